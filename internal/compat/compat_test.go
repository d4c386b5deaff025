package compat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checker is tested against itself: the "reference" is our own
// binaries behind tiny shell wrappers, so no bash reference and no network
// is needed. An identity wrapper must give a clean run; each mutating
// wrapper must be caught.

// testScenarios is the size of the clean run; each mutation runs
// mutationScenarios scenarios chosen to be able to show it.
const (
	testScenarios     = 40
	mutationScenarios = 20
)

var (
	buildOnce sync.Once
	oursDir   string
	buildErr  error
)

// ours builds the three commands once per test binary.
func ours(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "compat-test-ours-")
		if err != nil {
			buildErr = err
			return
		}
		oursDir = dir
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goTool, "build", "-o", dir+string(filepath.Separator),
			"./cmd/sdd-workspace", "./cmd/task-brief", "./cmd/review-package")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	require.NoError(t, buildErr)
	return oursDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if oursDir != "" {
		os.RemoveAll(oursDir)
	}
	os.Exit(code)
}

// wrappers writes a directory holding all three names (the reference calls
// its siblings): each runs our binary, and mutate[name], when given, is a
// bash snippet run in its place; it may use $OURS, the real binary.
func wrappers(t *testing.T, oursBin string, mutate map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range Commands {
		body, ok := mutate[c]
		if !ok {
			body = `exec "$OURS" "$@"`
		}
		script := "#!/usr/bin/env bash\nOURS=" + shellQuote(filepath.Join(oursBin, c)) + "\nSCRATCH=" + shellQuote(dir) + "\n" + body + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, c), []byte(script), 0o755))
	}
	return dir
}

// runChecker runs n scenarios of seed 1: the first ones, or with want, the
// first ones want accepts.
func runChecker(t *testing.T, ref, oursBin string, n int, want func(*Scenario) bool) (Summary, string) {
	t.Helper()
	cfg := Config{Seed: 1, N: n, Ref: ref, Ours: oursBin, WorkDir: DefaultWorkDir()}
	for id := 1; want != nil && len(cfg.Only) < n && id < 100*n; id++ {
		if want(genScenario(cfg.Seed, id)) {
			cfg.Only = append(cfg.Only, id)
		}
	}
	var out bytes.Buffer
	cfg.Out = &out
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NotEmpty(t, lines)
	assert.Regexp(t, fmt.Sprintf(`^compat: \d+ passed, \d+ failed \(%d scenarios, seed 1\)$`, n), lines[len(lines)-1])
	return sum, out.String()
}

// uses reports whether the scenario's last step runs cmd and, when data is
// not empty, some file of the scenario contains it.
func uses(cmd, data string) func(*Scenario) bool {
	return func(s *Scenario) bool {
		if s.steps[len(s.steps)-1].cmd != cmd || s.expect != "" {
			return false
		}
		for _, n := range s.nodes {
			if data == "" || n.kind == 'f' && strings.Contains(string(n.data), data) {
				return true
			}
		}
		return false
	}
}

func TestIdentityReferenceIsClean(t *testing.T) {
	t.Parallel()
	o := ours(t)
	sum, out := runChecker(t, wrappers(t, o, nil), o, testScenarios, nil)
	assert.Equal(t, 0, sum.Failed, out)
	assert.Equal(t, testScenarios, sum.Passed)
	assert.Equal(t, "compat: 40 passed, 0 failed (40 scenarios, seed 1)\n", out)
}

func TestMutationsAreCaught(t *testing.T) {
	t.Parallel()
	o := ours(t)
	for _, tc := range []struct {
		name      string
		mutate    map[string]string
		scenarios func(*Scenario) bool // the scenarios able to show it
		command   string               // the command the FAIL lines must name
	}{
		{
			name: "task-brief strips carriage returns",
			mutate: map[string]string{"task-brief": `out=$("$OURS" "$@"); rc=$?
[ -n "$out" ] && printf '%s\n' "$out"
[ $rc -eq 0 ] || exit $rc
f=${out#wrote }; f=${f%: *}
tr -d '\r' < "$f" > "$SCRATCH/tmp.$$" && cat "$SCRATCH/tmp.$$" > "$f"`},
			scenarios: uses("task-brief", "\r"),
			command:   "task-brief",
		},
		{
			name:      "review-package with -U3",
			mutate:    map[string]string{"review-package": `GIT_DIFF_OPTS=-u3 exec "$OURS" "$@"`},
			scenarios: uses("review-package", ""),
			command:   "review-package",
		},
		{
			name: "sdd-workspace writes another .gitignore",
			mutate: map[string]string{"sdd-workspace": `out=$("$OURS" "$@") || exit $?
printf '%s\n' "$out"
printf '*\n!keep\n' > "$out/../.gitignore"`},
			scenarios: uses("sdd-workspace", ""),
			command:   "sdd-workspace",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum, out := runChecker(t, wrappers(t, o, tc.mutate), o, mutationScenarios, tc.scenarios)
			require.Positive(t, sum.Failed, out)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(l, "FAIL ") {
					assert.Contains(t, l, tc.command, "every failure involves the mutated command")
				}
			}
		})
	}
}

func TestToolErrorEquivalent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ref, ours string
		want      bool
	}{
		{"bash redirection", "/x/ref/task-brief: line 28: out/x.md: No such file or directory\n", "task-brief: open out/x.md: no such file or directory\n", true},
		{"bash redirection, other path", "/x/ref/task-brief: line 28: out/x.md: No such file or directory\n", "task-brief: open out/y.md: no such file or directory\n", false},
		{"two lines from ours", "/x/ref/task-brief: line 28: d: Is a directory\n", "a d\nb d\n", false},
		{"mkdir", "mkdir: cannot create directory '/r/.superpowers': Not a directory\n", "sdd-workspace: mkdir /r/.superpowers/sdd/p: not a directory\n", true},
		{"git missing, shared suffix", "/x/review-package: line 22: git: command not found\nbad BASE: HEAD\n", "review-package: git: executable file not found in $PATH\nbad BASE: HEAD\n", true},
		{"git's #! interpreter missing", "/x/sdd-workspace: line 35: /t/git: cannot execute: required file not found\n", "sdd-workspace: /t/git: cannot execute: required file not found\n", true},
		{"git not an executable format", "/x/review-package: line 22: /t/git: cannot execute binary file: Exec format error\nbad BASE: HEAD\n", "review-package: /t/git: cannot execute binary file: exec format error\nbad BASE: HEAD\n", true},
		{"git not executable, ours names another path", "/x/sdd-workspace: line 35: /t/git: Permission denied\n", "sdd-workspace: /u/git: permission denied\n", false},
		{"git missing, ours does not say git", "/x/sdd-workspace: line 37: git: command not found\n", "sdd-workspace: not found\n", false},
		{"script's own message is never normalised", "no such plan file: p.md\n", "no such plan file: p.md \n", false},
		{"git's message is never normalised", "fatal: not a git repository (or any of the parent directories): .git\n", "fatal: not a git repository: .git\n", false},
		{"awk", "awk: cannot open a.md (No such file or directory)\n", "task-brief: open a.md: no such file\n", true},
		{"missing final newline", "mkdir: cannot create directory '/r': File exists\n", "mkdir /r: file exists", false},
		{"shared prefix kept exact", "fatal: x\nmkdir: cannot create directory '/r': File exists\n", "fatal: y\nmkdir /r: exists\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, toolErrorEquivalent([]byte(tc.ref), []byte(tc.ours)))
		})
	}
}

func TestScenariosAreDeterministicAndCoverTheShapes(t *testing.T) {
	seen := map[string]bool{}
	for id := 1; id <= 500; id++ {
		a, b := genScenario(7, id), genScenario(7, id)
		require.Equal(t, a.CommandLine(), b.CommandLine())
		require.Equal(t, a.nodes, b.nodes)
		for _, d := range strings.Split(a.expect, "+") {
			seen["expect:"+d] = true
		}
		for _, st := range a.steps {
			seen["cmd:"+st.cmd] = true
			seen["dir:"+st.dir] = true
		}
		if a.worktree {
			seen["worktree"] = true
		}
		seen["hist:"+histories[a.hist].name] = true
	}
	for _, want := range []string{"expect:D1", "expect:D2", "expect:D4", "expect:D5", "expect:D6", "expect:D8",
		"cmd:sdd-workspace", "cmd:task-brief", "cmd:review-package",
		"dir:repo", "dir:repo/sub/dir", "dir:repo/.git", "dir:outside", "dir:wt", "worktree",
		"hist:empty", "hist:linear", "hist:long", "hist:merges", "hist:abbrev"} {
		assert.True(t, seen[want], want)
	}
	assert.NotEqual(t, genScenario(1, 3).CommandLine()+genScenario(1, 4).CommandLine(),
		genScenario(2, 3).CommandLine()+genScenario(2, 4).CommandLine(), "the seed matters")
}

func TestPlanShapes(t *testing.T) {
	var all bytes.Buffer
	for id := 0; id < 400; id++ {
		r := newRand(3, id)
		p, _ := genPlan(r)
		all.Write(p)
		all.WriteByte(0)
	}
	for _, want := range []string{"```go", "~~~", "   ```", "\r\n", "\x00", "\xff", "\v", "\f", "\t", "## Final Review", "task ", "Task 10", "Task 1.5", "#######"} {
		assert.Contains(t, all.String(), want)
	}
}

func TestFindReference(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	mk := func(dir string) string {
		d := filepath.Join(dir, filepath.FromSlash(referenceSuffix))
		require.NoError(t, os.MkdirAll(d, 0o755))
		for _, c := range Commands {
			require.NoError(t, os.WriteFile(filepath.Join(d, c), []byte("#!/bin/sh\n"), 0o755))
		}
		return d
	}
	home := t.TempDir()

	_, err := FindReference(env(nil), home)
	var usage *ErrUsage
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, usage.Msg, "SDD_REFERENCE=")
	assert.Contains(t, usage.Msg, "obra/superpowers")

	_, err = FindReference(env(map[string]string{"SDD_REFERENCE": home}), home)
	require.ErrorAs(t, err, &usage)

	old := mk(filepath.Join(home, ".claude", "plugins", "cache", "sp", "superpowers", "6.1.0"))
	newer := mk(filepath.Join(home, ".claude", "plugins", "cache", "sp", "superpowers", "6.2.0"))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(old, "sdd-workspace"), past, past))
	got, err := FindReference(env(nil), home)
	require.NoError(t, err)
	assert.Equal(t, newer, got)

	got, err = FindReference(env(map[string]string{"SDD_REFERENCE": old}), home)
	require.NoError(t, err)
	assert.Equal(t, old, got)
}

func TestPartialOutfile(t *testing.T) {
	empty := entry{kind: 'f', perm: 0o644}
	partial := entry{kind: 'f', perm: 0o644, data: []byte("# Review package: a..b\n\n## Commits\n")}
	old := entry{kind: 'f', perm: 0o600, data: []byte("old\n")}
	other := entry{kind: 'f', perm: 0o644, data: []byte("## Task 1\n")}
	ws := "repo/.superpowers/sdd/plan/task-1-brief.md"
	for _, tc := range []struct {
		name    string
		d       treeDiff
		pre     snapshot
		outfile string
		want    bool
	}{
		{"default brief left empty", treeDiff{path: ws, ref: &empty}, snapshot{}, "", true},
		{"explicit package left partial", treeDiff{path: "repo/out.md", ref: &partial}, snapshot{}, "repo/out.md", true},
		{"existing kept by ours", treeDiff{path: "repo/out.md", ref: &empty, ours: &old}, snapshot{"repo/out.md": old}, "repo/out.md", true},
		{"ours changed the existing file", treeDiff{path: "repo/out.md", ref: &empty, ours: &other}, snapshot{"repo/out.md": old}, "repo/out.md", false},
		{"reference content is not partial", treeDiff{path: ws, ref: &other}, snapshot{}, "", false},
		{"not the OUTFILE", treeDiff{path: "repo/else.md", ref: &empty}, snapshot{}, "repo/out.md", false},
		{"ours created it", treeDiff{path: "repo/out.md", ref: &empty, ours: &other}, snapshot{}, "repo/out.md", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, partialOutfile(tc.d, tc.pre, tc.outfile))
		})
	}
}

func TestRelPathAndQuoting(t *testing.T) {
	assert.Equal(t, "../../docs/plans/p.md", relPath("repo/sub/dir", "repo/docs/plans/p.md"))
	assert.Equal(t, "p.md", relPath("repo/docs/plans", "repo/docs/plans/p.md"))
	assert.Equal(t, "../repo/p.md", relPath("outside", "repo/p.md"))
	assert.Equal(t, "plain.md", shellQuote("plain.md"))
	assert.Equal(t, "''", shellQuote(""))
	assert.Equal(t, "'my plan.md'", shellQuote("my plan.md"))
	assert.Equal(t, `$'x\x0a.md'`, shellQuote("x\n.md"))
	assert.Equal(t, "$ROOT/outside/x", shellQuote("$ROOT/outside/x"))
}

func TestKernelPath(t *testing.T) {
	snap := snapshot{
		"repo":                    {kind: 'd'},
		"repo/ld":                 {kind: 'l', target: "../outside/other/sub"},
		"outside/other/sub":       {kind: 'd'},
		"outside/other/sub/o":     {kind: 'l', target: "../target.md"},
		"repo/abs":                {kind: 'l', target: "/r/outside/other"},
		"repo/loop":               {kind: 'l', target: "loop"},
		"repo/escape":             {kind: 'l', target: "/elsewhere"},
		"repo/ws":                 {kind: 'd'},
		"repo/ws/task-..":         {kind: 'l', target: "../../outside/t/a"},
		"outside":                 {kind: 'd'},
		"outside/other":           {kind: 'd'},
		"outside/t":               {kind: 'd'},
		"outside/t/a":             {kind: 'd'},
		"outside/other/target.md": {kind: 'f'},
		"repo/ws/task-../../x":    {kind: 'f'}, // never reached: the kernel goes through the link
	}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"repo/ld/o", "outside/other/target.md", true},
		{"repo/ld/../x.md", "outside/other/x.md", true},
		{"repo/./ws/../y.md", "repo/y.md", true},
		{"repo/./nosuchdir/../y.md", "", false}, // the kernel needs nosuchdir
		{"repo/ld/o/x", "", false},              // through a file: ENOTDIR
		{"outside/other/sub/", "outside/other/sub", true},
		{"/r/repo/abs/sub/o", "outside/other/target.md", true},
		{"repo/ws/task-../../x-brief.md", "outside/t/x-brief.md", true},
		{"repo/ld", "outside/other/sub", true},
		{"../x", "", false},
		{"/elsewhere/x", "", false},
		{"repo/escape/x", "", false},
		{"repo/loop/x", "", false},
	} {
		got, ok := kernelPath(snap, "/r", tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

// TestJudgeModelsForeignLedger builds both sides of a foreign-ledger
// scenario by hand: the reference writes its brief into the ledger's
// workspace, ours into plan-plans. Only that difference passes; anything
// else, or ours touching the skipped workspace, fails.
func TestJudgeModelsForeignLedger(t *testing.T) {
	const root = "/r"
	ws, alt := "repo/.superpowers/sdd/plan", "repo/.superpowers/sdd/plan-plans"
	ledger := entry{kind: 'f', perm: 0o644, data: []byte(ledgerLine + "docs/plans/other.md\n")}
	brief := entry{kind: 'f', perm: 0o644, data: []byte("## Task 1\n")}
	dir := entry{kind: 'd', perm: 0o755}
	pre := snapshot{"repo": dir, "repo/.superpowers": dir, "repo/.superpowers/sdd": dir, ws: dir, ws + "/progress.md": ledger}
	with := func(s snapshot, kv ...any) snapshot {
		out := snapshot{}
		for k, v := range s {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(entry)
		}
		return out
	}
	gitignore := entry{kind: 'f', perm: 0o644, data: []byte("*\n")}
	scenario := func(expect string) *Scenario {
		return &Scenario{
			steps:    []step{{cmd: "task-brief", dir: "repo", args: []string{"docs/plans/plan.md", "1"}}},
			expect:   expect,
			modelled: map[string]bool{"D2": true},
			ledger:   &ledgerCase{dir: ws, alt: alt},
		}
	}
	ref := &sideResult{
		steps: []outcome{{stdout: []byte("wrote /r/" + ws + "/task-1-brief.md: 1 lines\n")}},
		pre:   []snapshot{pre},
		final: with(pre, "repo/.superpowers/sdd/.gitignore", gitignore, ws+"/task-1-brief.md", brief),
	}
	oursSide := func(printed string, final snapshot) *sideResult {
		return &sideResult{steps: []outcome{{stdout: []byte("wrote /r/" + printed + "/task-1-brief.md: 1 lines\n")}}, pre: []snapshot{pre}, final: final}
	}
	marker := entry{kind: 'f', perm: 0o644, data: []byte("docs/plans/plan.md\n")}
	good := with(pre, "repo/.superpowers/sdd/.gitignore", gitignore, alt, dir, alt+"/plan-path", marker, alt+"/task-1-brief.md", brief)

	v := judge(scenario("D2"), ref, oursSide(alt, good), root)
	assert.True(t, v.expected, v.diffs)
	assert.NotEmpty(t, v.diffs, "the raw differences are shown")
	assert.Contains(t, strings.Join(v.notes, "; "), "modelled: D2")

	for _, tc := range []struct {
		name   string
		ours   *sideResult
		expect string
	}{
		{"ours marks the skipped workspace", oursSide(alt, with(good, ws+"/plan-path", marker)), "D2"},
		{"ours writes its brief beside the foreign ledger", oursSide(ws, with(pre, "repo/.superpowers/sdd/.gitignore", gitignore, ws+"/plan-path", marker, ws+"/task-1-brief.md", brief)), "D2"},
		{"ours takes another name", oursSide(alt+"-2", with(pre, "repo/.superpowers/sdd/.gitignore", gitignore, alt+"-2", dir, alt+"-2/task-1-brief.md", brief)), "D2"},
		{"ours' brief differs", oursSide(alt, with(good, alt+"/task-1-brief.md", entry{kind: 'f', perm: 0o644, data: []byte("## Task 1\r\n")})), "D2"},
		{"ours edits the ledger, with a label that excuses", oursSide(alt, with(good, ws+"/progress.md", brief)), "D2+D4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(scenario(tc.expect), ref, tc.ours, root)
			assert.False(t, v.expected, "%v", v.diffs)
			assert.NotEmpty(t, v.diffs)
		})
	}
}

// TestJudgeModelsDashRevisions: the reference's git line before bad
// BASE/bad HEAD is dropped, nothing else.
func TestJudgeModelsDashRevisions(t *testing.T) {
	snap := snapshot{"repo": {kind: 'd', perm: 0o755}}
	side := func(exit int, stderr string) *sideResult {
		return &sideResult{steps: []outcome{{exit: exit, stderr: []byte(stderr)}}, pre: []snapshot{snap}, final: snap}
	}
	scenario := func(base, head string) *Scenario {
		return &Scenario{
			steps:    []step{{cmd: "review-package", dir: "repo", args: []string{"plan.md", base, head}}},
			expect:   "D8",
			modelled: map[string]bool{"D8": true},
		}
	}
	for _, tc := range []struct {
		name       string
		base, head string
		ref, ours  *sideResult
		want       bool
	}{
		{"git's fatal line", "-n", "HEAD", side(2, "fatal: -n requires an argument\nbad BASE: -n\n"), side(2, "bad BASE: -n\n"), true},
		{"bash's line, git cannot start", "HEAD", "--prefix", side(2, "/x/review-package: line 22: git: command not found\nbad HEAD: --prefix\n"), side(2, "bad HEAD: --prefix\n"), true},
		{"$ROOT in the revision", "--output=$ROOT/o", "HEAD", side(2, "fatal: x\nbad BASE: --output=/r/o\n"), side(2, "bad BASE: --output=/r/o\n"), true},
		{"ours adds a line", "-n", "HEAD", side(2, "fatal: -n requires an argument\nbad BASE: -n\n"), side(2, "bad BASE: -n\nmore\n"), false},
		{"ours exits otherwise", "-n", "HEAD", side(2, "fatal: -n requires an argument\nbad BASE: -n\n"), side(1, "bad BASE: -n\n"), false},
		{"not the dash revision's line", "-n", "HEAD", side(2, "fatal: -n requires an argument\nbad BASE: -n\n"), side(2, "bad HEAD: HEAD\n"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(scenario(tc.base, tc.head), tc.ref, tc.ours, "/r")
			assert.Equal(t, tc.want, v.expected, "%v", v.diffs)
		})
	}
}

// TestOutputRevisionNeverReachesGit: a file named after an --output=
// revision on our side fails the scenario whatever its labels.
func TestOutputRevisionNeverReachesGit(t *testing.T) {
	snap := snapshot{"repo": {kind: 'd', perm: 0o755}}
	out := snapshot{"repo": {kind: 'd', perm: 0o755}, "repo/rev-out..HEAD": {kind: 'f', perm: 0o644}}
	s := &Scenario{
		steps:      []step{{cmd: "review-package", dir: "repo", args: []string{"-p.md", "--output=rev-out", "HEAD"}}},
		expect:     "D6+D8",
		modelled:   map[string]bool{"D8": true},
		absentBase: outputRevBase,
	}
	o := outcome{exit: 2, stderr: []byte("bad BASE: --output=rev-out\n")}
	ref := &sideResult{steps: []outcome{o}, pre: []snapshot{snap}, final: snap}
	v := judge(s, ref, &sideResult{steps: []outcome{o}, pre: []snapshot{snap}, final: out}, "/r")
	assert.False(t, v.expected)
	assert.Contains(t, strings.Join(v.diffs, "; "), "an --output= revision reached git")
	v = judge(s, ref, &sideResult{steps: []outcome{o}, pre: []snapshot{snap}, final: snap}, "/r")
	assert.Empty(t, v.diffs)
}
