// Package testutil builds the real binaries once per test process and makes
// hermetic git repositories in temporary directories: no test depends on
// the machine's git configuration or HOME, and none mocks git.
package testutil

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// builds are the sets of binaries this process built (or was given), by
// their extra build tags ("" for the shipped build) and race detection.
var builds sync.Map // buildKey → *binaries

type buildKey struct {
	tag  string
	race bool
}

type binaries struct {
	once  sync.Once
	dir   string
	err   error
	given bool // the binaries came from BinDirEnv: not ours to remove
}

// BinDirEnv names a directory of already built binaries to test instead of
// building them: the Windows suite runs under Wine, where there is no Go
// toolchain, with binaries cross-built on the Linux side.
const BinDirEnv = "SDD_TEST_BIN_DIR"

// NamedTempsTag is the build tag under which internal/atomicfile writes
// outputs to named temporary files on Linux too, as it does where O_TMPFILE
// is missing (other systems, some file systems): tests build a second set
// of binaries with it (NamedTempBinaries), so that path runs here.
const NamedTempsTag = "sdd_named_temps"

// ModuleRoot is the directory holding go.mod: the nearest one above this
// source file, so the answer does not depend on where the package sits.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("testutil: no go.mod above " + file)
		}
		dir = parent
	}
}

// BuildBinaries compiles the four commands into a fresh directory once per
// process, exactly as they ship, and returns it. Under `go test -race` they
// are built with the race detector too, so the suite's runs of the real
// binaries check the product, not only the test code. The directory is
// readable by everyone, so tests can run the binaries as another user. With
// $SDD_TEST_BIN_DIR set it returns that directory instead (see BinDirEnv).
// The caller (TestMain) removes what it built with CleanupBinaries.
func BuildBinaries() (string, error) { return build(buildKey{"", RaceEnabled}) }

// NamedTempBinaries is BuildBinaries with NamedTempsTag: the commands as
// they run where no unnamed temporary file can be made. They differ from
// the shipped build in how an output's temporary file is made, not in
// their goroutines, which the shipped build's runs of the same cases
// check race-enabled: they are built without the race detector (the
// signal tests run every signal on both builds, and race-enabled starts
// cost CPU; see ToolBinaries).
func NamedTempBinaries() (string, error) { return build(buildKey{NamedTempsTag, false}) }

// ToolBinaries is BuildBinaries without the race detector under -race
// too: for the suites that run the commands as tools, thousands of times
// (the skill text's direct executor, the comparison with the reference
// scripts), where a race-enabled start costs some 50 ms of CPU more (its
// shadow memory's page faults; compat's suite took 98 s with them, 32 s
// without). The commands' races are internal/dev/e2e's to find: it runs
// them race-enabled on every path that starts goroutines (review-package's
// calls side by side, the signal catchers, concurrent runs).
func ToolBinaries() (string, error) { return build(buildKey{"", false}) }

func build(key buildKey) (string, error) {
	v, _ := builds.LoadOrStore(key, &binaries{})
	b := v.(*binaries)
	b.once.Do(func() {
		if dir := os.Getenv(BinDirEnv); dir != "" && key.tag == "" {
			b.dir, b.given = dir, true
			return
		}
		b.dir, b.err = os.MkdirTemp("", "sdd-bin-")
		if b.err != nil {
			return
		}
		if b.err = os.Chmod(b.dir, 0o755); b.err != nil {
			return
		}
		sb := ship.Build{Root: ModuleRoot(), Out: b.dir, Race: key.race}
		if key.tag != "" {
			sb.Tags = []string{key.tag}
		}
		b.err = sb.Run(context.Background())
		if key.race {
			// A race-enabled program sleeps a second at exit by default;
			// every environment the tests derive from this process's
			// (gitenv.Hermetic) inherits the override.
			b.err = errors.Join(b.err, os.Setenv("GORACE", RaceOptions))
		}
	})
	return b.dir, b.err
}

// RaceOptions is GORACE for the race-enabled binaries under test.
const RaceOptions = "atexit_sleep_ms=0 halt_on_error=1"

// CleanupBinaries removes what BuildBinaries and NamedTempBinaries made.
func CleanupBinaries() {
	builds.Range(func(_, v any) bool {
		if b := v.(*binaries); b.dir != "" && !b.given {
			os.RemoveAll(b.dir)
		}
		return true
	})
}

// MainWithBinaries is a TestMain that builds the commands
// (BuildBinaries), hands their directory to ready, runs the tests, removes
// what it built and exits with their status; a failed build or ready
// exits 1 before any test. The commands start with every signal at its
// default (CommandsStartWithDefaultSignals).
func MainWithBinaries(m *testing.M, ready func(binDir string) error) {
	flag.Parse()
	CommandsStartWithDefaultSignals()
	dir, err := BuildBinaries()
	if err == nil {
		err = ready(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	CleanupBinaries()
	os.Exit(code)
}

// Build is one set of the commands' binaries.
type Build struct {
	Name string // "shipped" or "named-temps"
	Dir  string
}

// OutputBuilds are the builds that tests of output files run against: the
// shipped one and, on Linux (where the shipped one uses unnamed temporary
// files), the NamedTempsTag one, whose temporary files have names as they
// have elsewhere; under go test -short (make test), the shipped one
// alone: what a user sees is the same, and make test-full runs both. It
// fails t if a build fails.
func OutputBuilds(t testing.TB) []Build {
	t.Helper()
	dir, err := BuildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	out := []Build{{"shipped", dir}}
	if runtime.GOOS == "linux" && os.Getenv(BinDirEnv) == "" && !testing.Short() {
		named, err := NamedTempBinaries()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Build{"named-temps", named})
	}
	return out
}

// Bin is the path of one built command; BuildBinaries must have run.
func Bin(t testing.TB, name string) string {
	t.Helper()
	dir, err := BuildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// Repo is a throwaway git repository.
type Repo struct {
	t    testing.TB
	Root string   // the top-level directory, as git prints it
	Env  []string // the hermetic environment for git and the binaries
}

// NewRepo makes an empty repository (branch main) in a temp dir.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	return newRepoIn(t, RealTempDir(t))
}

// NewSharedRepo is NewRepo in a SharedDir, for tests that run the binaries
// as another user.
func NewSharedRepo(t testing.TB) *Repo {
	t.Helper()
	return newRepoIn(t, SharedDir(t))
}

func newRepoIn(t testing.TB, tmp string) *Repo {
	t.Helper()
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, Root: filepath.Join(tmp, "repo"), Env: gitenv.Hermetic(home)}
	if res := RunIn(tmp, r.Env, "git", "init", "-q", "-b", "main", r.Root); res.Code != 0 {
		t.Fatalf("git init: %s", res.Stderr)
	}
	return r
}

// RealTempDir is t.TempDir with symlinks resolved, so paths compare equal
// to what git prints (macOS's /var is /private/var).
func RealTempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	own(t, d)
	return d
}

// T is the test the repository belongs to.
func (r *Repo) T() testing.TB { return r.t }

// Git runs git in the repository and returns its trimmed stdout; it fails
// the test on error.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	res := RunIn(r.Root, r.Env, "git", args...)
	if res.Code != 0 {
		r.t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), res.Code, res.Stderr)
	}
	return strings.TrimRight(res.Stdout, "\n")
}

// Write creates a file (and its directories) relative to the root.
func (r *Repo) Write(rel, content string) string {
	r.t.Helper()
	p := filepath.Join(r.Root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// Commit writes files (name, content pairs), stages everything and commits;
// it returns the new HEAD.
func (r *Repo) Commit(msg string, files ...string) string {
	r.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.Write(files[i], files[i+1])
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Run runs one of the built commands in dir (relative to the root, "" for
// the root itself) with the repository's environment.
func (r *Repo) Run(dir, name string, args ...string) Result {
	r.t.Helper()
	return RunIn(filepath.Join(r.Root, dir), r.Env, Bin(r.t, name), args...)
}

// RunBuild is Run with the binaries in bins (a Build's Dir).
func (r *Repo) RunBuild(bins, dir, name string, args ...string) Result {
	return RunIn(filepath.Join(r.Root, dir), r.Env, filepath.Join(bins, name), args...)
}

// Enter makes the repository this process's working directory and its
// environment this process's (every other GIT_* variable unset) for the
// rest of the test: for in-process tests of code that runs git as the
// commands do, in the current directory with the inherited environment.
// Such a test cannot run in parallel.
func (r *Repo) Enter() {
	t := r.t
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, "") // restored after the test
			if err := os.Unsetenv(k); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	for _, kv := range r.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Chdir(r.Root)
}

// Result is what a process did.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// RunIn runs prog in dir with env and no stdin.
func RunIn(dir string, env []string, prog string, args ...string) Result {
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			code = -1
			errb.WriteString(err.Error())
		}
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// StatusCmd is the testscript command `status N program [args...]`: it
// runs the program and checks its exact exit status. `! exec` only says
// "non-zero", and the statuses are the interface.
func StatusCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// ScriptEnv prepares a testscript's environment for the binaries in
// binDir: they come first on PATH (and are $BIN), git is hermetic (its
// HOME inside the script's work directory, GIT_* from gitenv.Hermetic),
// GORACE is passed on for race-enabled binaries, and on Windows the
// variables cmd and the loader need are kept (testscript passes only PATH).
func ScriptEnv(env *testscript.Env, binDir string) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	env.Setenv("BIN", binDir)
	for _, kv := range gitenv.Hermetic(home) {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CONFIG_HOME" || strings.HasPrefix(k, "GIT_") {
			env.Setenv(k, v)
		}
	}
	for _, k := range []string{"GORACE", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT"} {
		if v := os.Getenv(k); v != "" {
			env.Setenv(k, v)
		}
	}
	return nil
}

// EntriesCmd is the testscript command `entries DIR [NAME...]`: DIR holds
// exactly the names given (in any order, compared exactly): no temporary
// file left, no second workspace, no package a refused step would have
// written.
//
//	entries .superpowers/sdd .gitignore plan
func EntriesCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: entries DIR [NAME...]")
	}
	ents, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := slices.Clone(args[1:])
	slices.Sort(got)
	slices.Sort(want)
	if eq := slices.Equal(got, want); eq == neg {
		ts.Fatalf("%s holds %q, want %s%q", args[0], got, map[bool]string{true: "not "}[neg], want)
	}
}

// PlanRepo makes the repository the host suites run the skill in: a git
// repository under a path with a space and an é (".../my repo é/shop"),
// with plan committed at planPath on main and the run's branch,
// feature/run, checked out. It returns the repository's path.
func PlanRepo(t testing.TB, planPath, plan string) string {
	t.Helper()
	root := filepath.Join(RealTempDir(t), "my repo é", "shop")
	for _, err := range []error{
		os.MkdirAll(filepath.Dir(filepath.Join(root, planPath)), 0o755),
		os.WriteFile(filepath.Join(root, planPath), []byte(plan), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "plan"},
		{"checkout", "-q", "-b", "feature/run"},
	} {
		Git(t, root, args...)
	}
	return root
}

// Git runs git in dir, hermetic (gitenv, its home beside dir), and returns
// its output trimmed; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := RunIn(dir, gitenv.Hermetic(filepath.Join(dir, "..", "git-home")), "git", args...)
	if r.Code != 0 {
		t.Fatalf("git %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	return strings.TrimSpace(r.Stdout)
}

// BranchCommits are the commits of the branch checked out in repo after
// main, oldest first.
func BranchCommits(t testing.TB, repo string) []string {
	t.Helper()
	return strings.Fields(Git(t, repo, "log", "--reverse", "--format=%H", "main..HEAD"))
}

// DirNames are the names in dir, sorted; a failure fails the test.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
