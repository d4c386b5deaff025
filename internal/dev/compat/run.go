// Package compat is the differential compatibility checker: it generates
// scenarios from a seed, runs the reference bash scripts and our binaries on
// byte-identical copies of each scenario tree at the same absolute path, and
// reports every difference docs/spec.md does not list as deliberate.
package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Config is one checker run.
type Config struct {
	Seed    int64
	N       int    // number of scenarios
	Ref     string // directory with the reference scripts
	Ours    string // directory with our three binaries
	Keep    string // when set, a reproduction folder per failing scenario
	KeepAll bool   // with Keep: a folder for every scenario, passing or not
	Jobs    int    // workers; 0 means GOMAXPROCS
	Verbose bool
	Only    []int // when set, run just these scenario ids
	// WorkDir is where scenario trees are built and run ("" for the
	// system's temporary directory). The checker creates, copies and
	// removes tens of thousands of small files: a tmpfs is much faster.
	WorkDir string
	Out     io.Writer
	// Progress, when set, gets a carriage-return progress line (a terminal).
	Progress io.Writer
}

// Summary is the outcome of a run.
type Summary struct {
	Passed, Failed, Scenarios int
	Expected                  map[string]int // deliberate difference → scenarios that showed it
}

// ErrUsage is an error the caller should report as a usage problem (exit 2).
type ErrUsage struct{ Msg string }

func (e *ErrUsage) Error() string { return e.Msg }

// result is the verdict on one scenario.
type result struct {
	s        *Scenario
	diffs    []string
	expected bool     // every difference is covered by s.expect
	notes    []string // accepted differences (difference 3, tool errors)
	exits    string   // the reference's exit statuses, for -v
}

// Run executes the scenarios and writes one line per difference and the
// summary line to cfg.Out. The error is for the harness itself failing.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = runtime.GOMAXPROCS(0)
	}
	// The commands run in the scenario directories: every path given
	// relative to the caller's directory must be made absolute first.
	for _, p := range []*string{&cfg.Ref, &cfg.Ours, &cfg.Keep} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return Summary{}, err
		}
		*p = abs
	}
	for _, d := range []string{cfg.Ref, cfg.Ours} {
		if err := checkToolDir(d); err != nil {
			return Summary{}, err
		}
	}
	work, err := os.MkdirTemp(cfg.WorkDir, "sdd-compat-")
	if err != nil {
		return Summary{}, err
	}
	defer os.RemoveAll(work)
	// Physical path, so what git prints (symlinks resolved) is what we expect.
	if work, err = filepath.EvalSymlinks(work); err != nil {
		return Summary{}, err
	}
	h := &harness{cfg: cfg, work: work}
	if err := h.setup(ctx); err != nil {
		return Summary{}, err
	}

	ids := cfg.Only
	if len(ids) == 0 {
		for i := 1; i <= cfg.N; i++ {
			ids = append(ids, i)
		}
	}
	results := make([]*result, len(ids))
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		done   int
		failed int
	)
	next := make(chan int)
	for w := 0; w < cfg.Jobs; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range next {
				res := h.runScenario(ctx, w, genScenario(cfg.Seed, ids[i]))
				mu.Lock()
				results[i] = res
				done++
				if len(res.diffs) > 0 && !res.expected {
					failed++
				}
				if cfg.Progress != nil {
					fmt.Fprintf(cfg.Progress, "\rcompat: %d/%d scenarios, %d failed", done, len(ids), failed)
				}
				mu.Unlock()
			}
		}(w)
	}
	for i := range ids {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if cfg.Progress != nil {
		fmt.Fprint(cfg.Progress, "\r\033[K")
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}

	sum := Summary{Scenarios: len(ids), Expected: map[string]int{}}
	for _, res := range results {
		switch {
		case len(res.diffs) == 0:
			sum.Passed++
			if cfg.Verbose {
				note := ""
				if len(res.notes) > 0 {
					note = " [accepted: " + strings.Join(res.notes, "; ") + "]"
				}
				fmt.Fprintf(cfg.Out, "ok   s%04d exit %s %s%s\n", res.s.ID, res.exits, res.s.CommandLine(), note)
			}
		case res.expected:
			sum.Passed++
			sum.Expected[res.s.expect]++
			if cfg.Verbose {
				note := ""
				if len(res.notes) > 0 {
					note = " [accepted: " + strings.Join(res.notes, "; ") + "]"
				}
				fmt.Fprintf(cfg.Out, "exp  s%04d %s: expected (%s): %s%s\n", res.s.ID, res.s.CommandLine(), res.s.expect, strings.Join(res.diffs, "; "), note)
			}
		default:
			sum.Failed++
			fmt.Fprintf(cfg.Out, "FAIL s%04d %s: %s\n", res.s.ID, res.s.CommandLine(), strings.Join(res.diffs, "; "))
		}
	}
	if cfg.Verbose && len(sum.Expected) > 0 {
		var names []string
		for k, v := range sum.Expected {
			names = append(names, fmt.Sprintf("%s×%d", k, v))
		}
		sort.Strings(names)
		fmt.Fprintf(cfg.Out, "compat: deliberate differences seen: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(cfg.Out, "compat: %d passed, %d failed (%d scenarios, seed %d)\n", sum.Passed, sum.Failed, sum.Scenarios, cfg.Seed)
	return sum, nil
}

func checkToolDir(dir string) error {
	if dir == "" {
		return &ErrUsage{Msg: "compat: a tool directory is not set"}
	}
	for _, c := range ship.DropIns {
		fi, err := os.Stat(filepath.Join(dir, c))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return &ErrUsage{Msg: fmt.Sprintf("compat: %s has no executable %s", dir, c)}
		}
	}
	return nil
}

// harness holds what every worker shares: the built histories and the
// directories holding the tools the scripts may call.
type harness struct {
	cfg       Config
	work      string
	templates []*template
	// paths are PATH values: git and the utilities the scripts call, with
	// git as each gitKind has it (absent, or a file that cannot start).
	paths map[gitKind]string
}

// scriptTools are what the reference scripts run besides builtins; ours
// needs only git. Both sides get the same PATH.
var scriptTools = []string{"bash", "sh", "awk", "basename", "dirname", "mkdir", "wc", "tr", "cat", "env"}

// badGits are the files put on PATH as git for the kinds that cannot
// start, with their modes: a #! line naming no interpreter (127 from
// both), a script without execute permission (126), and an executable
// that is no format the kernel runs and holds NUL bytes (126; without
// them bash would run it as a script).
var badGits = map[gitKind]struct {
	data string
	perm os.FileMode
}{
	gitNoInterp:  {"#!/nonexistent/sdd-compat-interpreter\n", 0o755},
	gitNoExec:    {"#!/bin/sh\nexit 0\n", 0o644},
	gitBadFormat: {"\x7fELF\x00\x00\x00not an executable\x00\n", 0o755},
}

func (h *harness) setup(ctx context.Context) error {
	var err error
	if h.templates, err = buildTemplates(ctx, filepath.Join(h.work, "templates")); err != nil {
		return fmt.Errorf("building histories: %w", err)
	}
	h.paths = map[gitKind]string{}
	for _, kind := range []gitKind{gitOK, gitMissing, gitNoInterp, gitNoExec, gitBadFormat} {
		dir := filepath.Join(h.work, "tools")
		if kind != gitOK {
			dir += "-" + string(kind)
		}
		h.paths[kind] = dir
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		tools := scriptTools
		if kind == gitOK {
			tools = append(append([]string{}, tools...), "git")
		}
		for _, t := range tools {
			p, err := exec.LookPath(t)
			if err != nil {
				return fmt.Errorf("compat: %s is not on PATH (the reference scripts need it)", t)
			}
			if p, err = filepath.Abs(p); err != nil {
				return err
			}
			if err := os.Symlink(p, filepath.Join(dir, t)); err != nil {
				return err
			}
		}
		if bad, ok := badGits[kind]; ok {
			git := filepath.Join(dir, "git")
			if err := os.WriteFile(git, []byte(bad.data), 0o600); err != nil {
				return err
			}
			if err := os.Chmod(git, bad.perm); err != nil {
				return err
			}
		}
	}
	return nil
}

// outcome is what one command run produced.
type outcome struct {
	exit           int
	stdout, stderr []byte
	err            string // harness-level trouble (timeout, exec failure)
}

// sideResult is one side's run of a scenario.
type sideResult struct {
	steps []outcome
	pre   []snapshot // before each step
	final snapshot
}

// runScenario materialises the scenario once into the worker's stage, then
// for each side copies it to the worker's fixed root (the same absolute path
// for both), runs the steps, and snapshots the tree.
func (h *harness) runScenario(ctx context.Context, worker int, s *Scenario) *result {
	res := &result{s: s}
	wdir := filepath.Join(h.work, "w"+strconv.Itoa(worker))
	stage, root := filepath.Join(wdir, "stage"), filepath.Join(wdir, "root")
	fail := func(err error) *result {
		res.diffs = append(res.diffs, "harness: "+err.Error())
		return res
	}
	_ = os.RemoveAll(stage)
	if err := h.materialize(s, stage, root); err != nil {
		return fail(err)
	}
	var sides [2]*sideResult
	var afterDirs [2]string
	for i, tools := range []string{h.cfg.Ref, h.cfg.Ours} {
		_ = os.RemoveAll(root)
		if err := copyTree(stage, root); err != nil {
			return fail(err)
		}
		sr, err := h.runSide(ctx, s, tools, root)
		if err != nil {
			return fail(err)
		}
		sides[i] = sr
		if h.cfg.Keep != "" {
			afterDirs[i] = filepath.Join(wdir, []string{"ref-after", "ours-after"}[i])
			_ = os.RemoveAll(afterDirs[i])
			if err := copyTree(root, afterDirs[i]); err != nil {
				return fail(err)
			}
		}
	}
	v := judge(s, sides[0], sides[1], root)
	res.diffs, res.notes, res.expected = v.diffs, v.notes, v.expected
	for i, o := range sides[0].steps {
		if i > 0 {
			res.exits += ","
		}
		res.exits += strconv.Itoa(o.exit)
	}
	if (len(res.diffs) > 0 && !res.expected || h.cfg.KeepAll) && h.cfg.Keep != "" {
		if err := h.keep(s, stage, root, afterDirs, sides, res.diffs); err != nil {
			res.diffs = append(res.diffs, "harness: keeping reproduction: "+err.Error())
		}
	}
	return res
}

func (h *harness) env(s *Scenario, root string) []string {
	env := []string{
		"PATH=" + h.paths[s.git],
		"HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "home", ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + root,
		"LC_ALL=C",
		"TZ=UTC",
	}
	return append(env, s.env...)
}

// stepTimeout bounds one command: the reference hangs on a few inputs
// (awk reading standard input), and a hang must be a finding, not a stall.
const stepTimeout = 20 * time.Second

func (h *harness) runSide(ctx context.Context, s *Scenario, tools, root string) (*sideResult, error) {
	sr := &sideResult{}
	env := h.env(s, root)
	for _, st := range s.steps {
		snap, err := takeSnapshot(root)
		if err != nil {
			return nil, err
		}
		sr.pre = append(sr.pre, snap)
		args := make([]string, len(st.args))
		for j, a := range st.args {
			args[j] = h.resolveArg(s, a, root)
		}
		// PWD is the logical directory, as a shell exports it after cd: it
		// differs from the physical one when the way there is a symlink.
		dir := filepath.Join(root, filepath.FromSlash(st.dir))
		stepEnv := append(env[:len(env):len(env)], "PWD="+dir)
		sr.steps = append(sr.steps, runOne(ctx, filepath.Join(tools, st.cmd), args, dir, stepEnv))
	}
	snap, err := takeSnapshot(root)
	if err != nil {
		return nil, err
	}
	sr.final = snap
	return sr, nil
}

func runOne(ctx context.Context, prog string, args []string, dir string, env []string) outcome {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	o := outcome{stdout: out.Bytes(), stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		o.exit, o.err = -1, "timed out after "+stepTimeout.String()
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
		if o.exit < 0 {
			o.err = ee.String()
		}
	default:
		o.exit, o.err = -1, err.Error()
	}
	return o
}

// resolveArg replaces $ROOT by the root and {rev}/{rev}:N by the full (or
// first N hex digits of the) SHA resolved when the history was built.
func (h *harness) resolveArg(s *Scenario, a, root string) string {
	a = strings.ReplaceAll(a, "$ROOT", root)
	if !strings.HasPrefix(a, "{") {
		return a
	}
	end := strings.LastIndex(a, "}")
	if end < 0 {
		return a
	}
	sha := h.templates[s.hist].shas[a[1:end]]
	if n, err := strconv.Atoi(strings.TrimPrefix(a[end+1:], ":")); err == nil && n < len(sha) {
		sha = sha[:n]
	}
	return sha
}

// materialize builds the scenario tree in stage; absolute paths inside it
// (a linked worktree's links) name root, where it will run.
func (h *harness) materialize(s *Scenario, stage, root string) error {
	t := h.templates[s.hist]
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return err
	}
	if err := copyTree(t.dir, filepath.Join(stage, "repo")); err != nil {
		return err
	}
	write := func(rel string, data []byte) error {
		p := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	if s.worktree {
		wtAdmin := "repo/.git/worktrees/wt"
		for _, f := range []struct{ rel, data string }{
			{wtAdmin + "/HEAD", "ref: " + t.wtHead + "\n"},
			{wtAdmin + "/commondir", "../..\n"},
			{wtAdmin + "/gitdir", filepath.Join(root, "wt", ".git") + "\n"},
			{"wt/.git", "gitdir: " + filepath.Join(root, "repo", ".git", "worktrees", "wt") + "\n"},
		} {
			if err := write(f.rel, []byte(f.data)); err != nil {
				return err
			}
		}
	}
	for _, n := range s.nodes {
		p := filepath.Join(stage, filepath.FromSlash(n.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var err error
		switch n.kind {
		case 'd':
			if err = os.MkdirAll(p, 0o755); err == nil {
				err = os.Chmod(p, n.perm)
			}
		case 'l':
			err = os.Symlink(strings.ReplaceAll(n.target, "$ROOT", root), p)
		default:
			data := n.data
			if n.expand {
				data = bytes.ReplaceAll(data, []byte("$ROOT"), []byte(root))
			}
			if err = os.WriteFile(p, data, 0o600); err == nil {
				err = os.Chmod(p, n.perm)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DefaultWorkDir prefers /dev/shm (a tmpfs on Linux) when TMPDIR is not
// set: scenario trees are small and short-lived, and a disk filesystem
// (worse, one mounted with discard) makes creating and removing them the
// slowest part of a run. "" means the system's temporary directory.
func DefaultWorkDir() string {
	if os.Getenv("TMPDIR") != "" {
		return ""
	}
	f, err := os.CreateTemp("/dev/shm", "sdd-compat-probe-")
	if err != nil {
		return ""
	}
	f.Close()
	os.Remove(f.Name())
	return "/dev/shm"
}
