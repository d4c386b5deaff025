// Command wintest runs the Windows end-to-end tests under Wine (make
// test-windows): the four commands, install-skill and two test binaries are
// cross-built for windows/amd64 and run as the PE files a Windows user gets,
// against the real git of this machine.
//
//	go run ./scripts/wintest [-v] [-keep] [-run REGEXP]
//
// What it sets up, all inside one temporary directory it removes again:
//
//   - a fresh Wine prefix (never ~/.wine), whose wineserver is shut down at
//     the end;
//   - bcryptprimitives.dll in that prefix, built from
//     internal/dev/wintest/prng with x86_64-w64-mingw32-gcc: Wine 8.0 lacks it and
//     no Go program since 1.22 starts without its ProcessPrng;
//   - a stand-in git.exe (internal/dev/wintest/gitstub) on the Windows PATH, and
//     the relay server it talks to over loopback TCP, running the real git
//     on this side: Wine cannot wait for a Linux child, so a Windows program
//     cannot run /usr/bin/git itself;
//   - a printf.exe (internal/dev/wintest/printf) beside it, for the scripts that
//     make byte-exact inputs with `exec printf`.
//
// Then it runs, under Wine, the testscript suite of internal/dev/e2e (the same
// scripts as on Linux; [unix] and [windows] conditions mark what differs)
// and the Windows-only suite of internal/dev/wintest, and prints the number of
// cases and the time taken.
//
// Without wine64 or the MinGW compiler it prints one line saying so and
// exits 0, so `make test-windows` is harmless on a machine without them.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/wintest/relay"
)

// suite is one test binary run under Wine. Of internal/dev/e2e only the
// testscripts run: its Go tests clean up with t.TempDir, whose RemoveAll
// fails under Wine 8 ("unlinkat …: Invalid function"), and most of them
// check Unix modes or symlinks. Of the testscripts, sdd-ledger's rules
// (rule_ld*) do not run here: each of its verbs runs eight to twelve git
// calls, each a Windows process under Wine (gitstub), and they were half
// of this suite's CPU, which CI's 25 minutes could not hold; the rules
// are the same logic on every system, and the ledger's every verb runs
// under Wine in internal/dev/wintest (win_ledger_walk, win_ledger_finish).
// rule_ld7_carry still runs: carry renames and removes workspaces, which
// is where Windows differs.
type suite struct {
	name string // for messages
	pkg  string // the package, relative to the module root
	run  string // -test.run
}

var suites = []suite{
	{name: "e2e testscripts", pkg: "internal/dev/e2e", run: "^TestScripts$/^(workspace_|rule_(tb|ws|rp|diff|every)|rule_ld7_carry$)"},
	{name: "windows", pkg: "internal/dev/wintest", run: "."},
}

func main() {
	verbose := flag.Bool("v", false, "print every test's output, not only failures")
	keep := flag.Bool("keep", false, "keep the temporary directory (Wine prefix, binaries) and say where")
	run := flag.String("run", "", "only run tests matching `REGEXP` (passed as -test.run)")
	flag.Parse()
	os.Exit(mainErr(*verbose, *keep, *run))
}

func mainErr(verbose, keep bool, run string) int {
	start := time.Now()
	tools, missing := findTools()
	if missing != "" {
		fmt.Printf("test-windows: SKIP: %s not found (on Debian: apt-get install wine64 gcc-mingw-w64-x86-64)\n", missing)
		return 0
	}
	root, err := moduleRoot(tools.goCmd)
	if err != nil {
		return fail(err)
	}
	tmpMode, err := modeOf(os.TempDir())
	if err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp("", "sdd-wintest-")
	if err != nil {
		return fail(err)
	}
	h := &harness{tools: tools, root: root, tmp: tmp, verbose: verbose,
		prefix: filepath.Join(tmp, "prefix"), bin: filepath.Join(tmp, "bin"), toolbin: filepath.Join(tmp, "toolbin")}
	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			h.stopWine()
			if keep {
				fmt.Printf("test-windows: kept %s (WINEPREFIX=%s)\n", tmp, h.prefix)
			} else {
				os.RemoveAll(tmp)
			}
		})
	}
	defer cleanup()
	// Interrupted, still shut this prefix's Wine down and remove the
	// directory: nothing of the run may outlive it.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintln(os.Stderr, "test-windows: interrupted; cleaning up")
		cleanup()
		os.Exit(130)
	}()
	if err := h.prepare(); err != nil {
		return fail(err)
	}
	fmt.Printf("test-windows: prepared in %.1fs\n", time.Since(start).Seconds())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	defer l.Close()
	srv := &relay.Server{Git: tools.git, Drives: h.drives, Env: os.Environ()}
	if verbose {
		srv.Log = os.Stderr
	}
	go func() { _ = srv.Serve(l) }()
	if err := os.WriteFile(filepath.Join(h.toolbin, relay.AddrFile), []byte(l.Addr().String()+"\n"), 0o644); err != nil {
		return fail(err)
	}

	// One git call through Wine before the suites: it checks the relay
	// end to end and has Wine load what every later process needs.
	if err := h.warmUp(); err != nil {
		return fail(err)
	}

	total := counts{}
	failed := false
	for _, s := range suites {
		c, err := h.runSuite(s, run)
		total.add(c)
		fmt.Printf("test-windows: %s: %d passed, %d failed, %d skipped\n", s.name, c.pass, c.fail, c.skip)
		if err != nil {
			fmt.Fprintf(os.Stderr, "test-windows: %s: %v\n", s.name, err)
			failed = true
		}
	}
	fmt.Printf("test-windows: %d cases passed, %d failed, %d skipped under Wine in %.1fs\n",
		total.pass, total.fail, total.skip, time.Since(start).Seconds())
	// A test may change only what it made: the temporary directory all of
	// it lives in must keep its mode (1777 for /tmp).
	if m, err := modeOf(os.TempDir()); err != nil || m != tmpMode {
		fmt.Fprintf(os.Stderr, "test-windows: %s changed from mode %v to %v\n", os.TempDir(), tmpMode, m)
		failed = true
	}
	if failed || total.fail > 0 {
		return 1
	}
	return 0
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "test-windows: %v\n", err)
	return 1
}

type tools struct {
	wine, wineserver, wineboot, gcc, git, goCmd string
}

// findTools looks up what the harness needs; missing names the first
// Wine or MinGW tool absent.
func findTools() (t tools, missing string) {
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	// Debian puts wine64 and wineserver outside PATH and /usr/bin/wine is a
	// wrapper that prefers the 32-bit loader.
	t.wine = look("wine64", "/usr/lib/wine/wine64", "/usr/lib64/wine/wine64")
	t.wineserver = look("wineserver", "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver")
	t.wineboot = look("wineboot", "/usr/lib/wine/wineboot")
	t.gcc = look("x86_64-w64-mingw32-gcc")
	t.git = look("git")
	t.goCmd = look(os.Getenv("GO"), "go")
	switch {
	case t.wine == "":
		return t, "wine64"
	case t.wineserver == "":
		return t, "wineserver"
	case t.gcc == "":
		return t, "x86_64-w64-mingw32-gcc"
	case t.git == "":
		return t, "git"
	}
	return t, ""
}

func moduleRoot(goCmd string) (string, error) {
	out, err := exec.Command(goCmd, "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run me inside the sdd-go module")
	}
	return filepath.Dir(gomod), nil
}

// prngSource is the stand-in bcryptprimitives.dll's source, relative to
// the module root.
const prngSource = "internal/dev/wintest/prng/bcryptprimitives.c"

type harness struct {
	tools
	root, tmp, prefix, bin, toolbin string
	verbose                         bool
	drives                          relay.Drives
}

// wineEnv is the environment every Wine process of the run gets.
func (h *harness) wineEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "HOME", "TMPDIR", "XDG_RUNTIME_DIR":
			continue
		}
		if strings.HasPrefix(k, "WINE") {
			continue
		}
		env = append(env, kv)
	}
	// HOME too: Wine links the prefix's Desktop, Documents and other user
	// folders to $HOME, and nothing of the run may reach the real one. And
	// the temporary directories: the wineserver makes its socket directory
	// (wine-XXXXXX) there and never removes it.
	run := filepath.Join(h.tmp, "wine-run")
	env = append(env, "WINEPREFIX="+h.prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=",
		"HOME="+filepath.Join(h.tmp, "home"), "TMPDIR="+run, "XDG_RUNTIME_DIR="+run)
	return append(env, extra...)
}

// prepare builds everything and makes the Wine prefix, the slow parts side
// by side.
func (h *harness) prepare() error {
	for _, d := range []string{h.bin, h.toolbin, filepath.Join(h.tmp, "home"), filepath.Join(h.tmp, "wine-run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
	)
	do := func(what string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				mu.Lock()
				errs = append(errs, what+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	do("wineboot", func() error {
		c := exec.Command(h.wine, "wineboot", "--init")
		c.Env = h.wineEnv()
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
		// wineboot returns before the prefix is written out; wait for it.
		return h.waitWine()
	})
	do("build", func() error {
		dll := filepath.Join(h.tmp, "bcryptprimitives.dll")
		if err := h.cmd(h.gcc, "-shared", "-O2", "-s", "-o", dll,
			filepath.Join(h.root, filepath.FromSlash(prngSource)), "-ladvapi32"); err != nil {
			return err
		}
		// The commands exactly as they ship, and the installer beside them.
		b := ship.Build{Go: h.goCmd, Root: h.root, Out: h.bin, GOOS: "windows", GOARCH: "amd64"}
		if err := b.Run(context.Background()); err != nil {
			return err
		}
		if err := h.goBuild("-o", filepath.Join(h.bin, "install-skill.exe"), "./scripts/install-skill"); err != nil {
			return err
		}
		if err := h.goBuild("-o", filepath.Join(h.toolbin, "git.exe"), "./internal/dev/wintest/gitstub"); err != nil {
			return err
		}
		if err := h.goBuild("-o", filepath.Join(h.toolbin, "printf.exe"), "./internal/dev/wintest/printf"); err != nil {
			return err
		}
		for _, s := range suites {
			if err := h.goTest(s); err != nil {
				return err
			}
		}
		return nil
	})
	wg.Wait()
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	// Into the prefix's 64-bit system directory, where the loader looks
	// after the program's own directory.
	b, err := os.ReadFile(filepath.Join(h.tmp, "bcryptprimitives.dll"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(h.prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"), b, 0o644); err != nil {
		return err
	}
	h.drives, err = relay.PrefixDrives(h.prefix)
	return err
}

func (h *harness) cmd(name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Dir = h.root
	c.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return nil
}

func (h *harness) goBuild(args ...string) error {
	return h.cmd(h.goCmd, append([]string{"build", "-trimpath", "-tags", ship.Tags}, args...)...)
}

func (h *harness) goTest(s suite) error {
	return h.cmd(h.goCmd, "test", "-c", "-tags", ship.Tags, "-o", h.testExe(s), "./"+s.pkg)
}

func (h *harness) testExe(s suite) string {
	return filepath.Join(h.tmp, strings.ReplaceAll(s.pkg, "/", "_")+".test.exe")
}

// waitWine waits for the prefix's wineserver to finish and exit.
func (h *harness) waitWine() error {
	c := exec.Command(h.wineserver, "-w")
	c.Env = h.wineEnv()
	return c.Run()
}

// stopWine shuts down this prefix's wineserver (and so every Wine process
// of the run).
func (h *harness) stopWine() {
	c := exec.Command(h.wineserver, "-k")
	c.Env = h.wineEnv()
	_ = c.Run()
	_ = h.waitWine()
}

func modeOf(dir string) (fs.FileMode, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	return fi.Mode(), nil
}

// warmUp runs the stand-in git once under Wine.
func (h *harness) warmUp() error {
	c := exec.Command(h.wine, filepath.Join(h.toolbin, "git.exe"), "--version")
	c.Dir = h.tmp
	c.Env = h.wineEnv()
	out, err := c.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "git version") {
		return fmt.Errorf("git.exe --version under Wine: %v\n%s", err, out)
	}
	return nil
}

// winPath is p as Windows programs under Wine see it: drive Z is "/".
func winPath(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }

type counts struct{ pass, fail, skip int }

func (c *counts) add(o counts) { c.pass += o.pass; c.fail += o.fail; c.skip += o.skip }

// runSuite runs one suite and counts its cases: every test or subtest
// that has no subtests of its own. A case that failed only because Wine
// could not start a process for it is run again, up to twice: see
// wineStartFailure. The log of a case that still fails is printed; -v
// prints every log.
func (h *harness) runSuite(s suite, run string) (counts, error) {
	if run == "" {
		run = s.run
	}
	results, logs, err := h.runTests(s, run)
	for attempt := 0; attempt < 2 && err == nil; attempt++ {
		var again []string
		for name, result := range results {
			if result == "FAIL" && wineStartFailure(logs[name]) {
				again = append(again, name)
			}
		}
		if len(again) == 0 {
			break
		}
		sort.Strings(again)
		fmt.Printf("test-windows: %s: running again, as Wine failed to start a process for them: %s\n",
			s.name, strings.Join(again, ", "))
		var r map[string]string
		var l map[string][]string
		if r, l, err = h.runTests(s, runPattern(again)); err != nil {
			break
		}
		for _, name := range again {
			if res, ok := r[name]; ok {
				results[name], logs[name] = res, l[name]
			}
		}
	}
	var cnt counts
	parents := map[string]bool{}
	for name := range results {
		for i := range len(name) {
			if name[i] == '/' {
				parents[name[:i]] = true
			}
		}
	}
	var failed []string
	for name, result := range results {
		if parents[name] {
			continue // its subtests are the cases
		}
		switch result {
		case "PASS":
			cnt.pass++
		case "FAIL":
			cnt.fail++
			failed = append(failed, name)
		case "SKIP":
			cnt.skip++
		}
	}
	sort.Strings(failed)
	if !h.verbose {
		for _, name := range failed {
			fmt.Printf("--- FAIL: %s\n%s\n", name, strings.Join(logs[name], "\n"))
		}
	}
	switch {
	case cnt.fail > 0:
		return cnt, fmt.Errorf("%d case(s) failed", cnt.fail)
	case err != nil:
		return cnt, err
	case cnt.pass == 0:
		return cnt, errors.New("no test ran")
	}
	return cnt, nil
}

// wineStartFailure reports whether a failed case's log shows Wine failing
// to create a process ("fork/exec …: Internal error.", which Wine 8 answers
// now and then to CreateProcess under load): nothing of the product ran.
func wineStartFailure(log []string) bool {
	for _, line := range log {
		if strings.Contains(line, "fork/exec ") && strings.Contains(line, ": Internal error.") {
			return true
		}
	}
	return false
}

// runPattern is a -test.run pattern matching exactly the named cases
// (each "Test" or "Test/sub").
func runPattern(names []string) string {
	tops := map[string][]string{}
	var order []string
	for _, n := range names {
		top, sub, _ := strings.Cut(n, "/")
		if _, ok := tops[top]; !ok {
			order = append(order, top)
		}
		if sub != "" {
			tops[top] = append(tops[top], regexp.QuoteMeta(sub))
		} else {
			tops[top] = tops[top][:0:0]
		}
	}
	var alts []string
	for _, top := range order {
		alts = append(alts, regexp.QuoteMeta(top))
	}
	pat := "^(" + strings.Join(alts, "|") + ")$"
	if len(order) == 1 && len(tops[order[0]]) > 0 {
		pat += "/^(" + strings.Join(tops[order[0]], "|") + ")$"
	}
	return pat
}

// runTests runs one test binary under Wine from its package directory (as
// go test would) and returns each case's result and log.
func (h *harness) runTests(s suite, run string) (map[string]string, map[string][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, h.wine, h.testExe(s), "-test.v", "-test.run", run, "-test.timeout", "14m")
	c.Dir = filepath.Join(h.root, filepath.FromSlash(s.pkg))
	c.Env = h.wineEnv(
		"WINEPATH="+winPath(h.toolbin),
		"SDD_TEST_BIN_DIR="+winPath(h.bin),
	)
	// A Windows process a test leaves behind inherits the output pipe; do
	// not wait for it to close it. (Wine 8 sometimes leaves a git.exe
	// that was killed while starting up stuck for good, where Windows would
	// end it; the commands kill their cancelled git calls, so this happens.
	// stopWine ends it with the prefix.)
	c.WaitDelay = 2 * time.Second
	pr, pw := io.Pipe()
	c.Stdout, c.Stderr = pw, pw
	if err := c.Start(); err != nil {
		return nil, nil, err
	}
	results := map[string]string{}
	logs := map[string][]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		current := ""
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			if h.verbose {
				fmt.Println(line)
			}
			if m := blockLine.FindStringSubmatch(line); m != nil {
				current = m[1]
				continue
			}
			if m := resultLine.FindStringSubmatch(line); m != nil {
				results[m[2]] = m[1]
				current = ""
				continue
			}
			if current != "" {
				logs[current] = append(logs[current], line)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := c.Wait()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the test program exited 0; only a leftover held the pipe
	}
	pw.Close()
	<-done
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && len(results) > 0 {
		err = nil // failing tests: their results say which
	}
	if err != nil {
		return results, logs, fmt.Errorf("%s: %v", filepath.Base(h.testExe(s)), err)
	}
	return results, logs, nil
}

var (
	resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	blockLine  = regexp.MustCompile(`^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)`)
)
