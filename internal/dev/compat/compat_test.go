package compat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The checker is tested against itself: the "reference" is our own
// binaries behind tiny shell wrappers, so no bash reference and no network
// is needed. An identity wrapper must give a clean run; each mutating
// wrapper must be caught.

// mutationScenarios is how many scenarios each mutation runs, chosen to
// be able to show it.
const mutationScenarios = 20

// cleanScenarios is the size of a clean run: 40, or 12 under go test
// -short (make test; make test-full runs 40, make compat 500).
func cleanScenarios() int {
	if testing.Short() {
		return 12
	}
	return 40
}

// ours is the directory of the three commands, built once per test binary
// as they ship.
func ours(t *testing.T) string {
	t.Helper()
	dir, err := testutil.ToolBinaries()
	require.NoError(t, err)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	os.Exit(code)
}

// wrappers writes a directory holding all three names (the reference calls
// its siblings): each runs our binary, and mutate[name], when given, is a
// bash snippet run in its place; it may use $OURS, the real binary.
func wrappers(t *testing.T, oursBin string, mutate map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range ship.DropIns {
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
	if want != nil {
		// A rare shape may have fewer than n scenarios among the first
		// 100*n; a handful is still a test.
		require.GreaterOrEqual(t, len(cfg.Only), min(n, 5), "too few scenarios show the shape")
		n = len(cfg.Only)
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

// mutation is a bash snippet in place of a command (mutate, as
// wrappers takes it) and what catches it: the scenarios able to show it,
// and the command every FAIL line must then name.
type mutation struct {
	name      string
	mutate    map[string]string
	scenarios func(*Scenario) bool
	command   string
}

// requireCaught runs m's scenarios with ref as the reference and oursBin
// as ours, one of them mutated by m: the checker must fail some, and
// every failure must involve m's command.
func requireCaught(t *testing.T, ref, oursBin string, m mutation) {
	t.Helper()
	sum, out := runChecker(t, ref, oursBin, mutationScenarios, m.scenarios)
	require.Positive(t, sum.Failed, out)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			assert.Contains(t, l, m.command, "every failure involves the mutated command")
		}
	}
}

func TestIdentityReferenceIsClean(t *testing.T) {
	t.Parallel()
	o := ours(t)
	n := cleanScenarios()
	sum, out := runChecker(t, wrappers(t, o, nil), o, n, nil)
	assert.Equal(t, 0, sum.Failed, out)
	assert.Equal(t, n, sum.Passed)
	assert.Equal(t, fmt.Sprintf("compat: %d passed, 0 failed (%d scenarios, seed 1)\n", n, n), out)
}

func TestMutationsAreCaught(t *testing.T) {
	t.Parallel()
	o := ours(t)
	for _, m := range []mutation{
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
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			requireCaught(t, wrappers(t, o, m.mutate), o, m)
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

// nodesSnapshot is the tree a scenario's nodes describe (without the
// history's repository), for resolving paths the way the kernel will.
func nodesSnapshot(nodes []node, root string) snapshot {
	// The directories of the history's repository and the worktree that
	// steps run in or pass through.
	snap := snapshot{"repo": {kind: 'd'}, "repo/.git": {kind: 'd'}, "wt": {kind: 'd'}}
	for _, n := range nodes {
		for d := path.Dir(n.path); d != "."; d = path.Dir(d) {
			if _, ok := snap[d]; !ok {
				snap[d] = entry{kind: 'd', perm: 0o755}
			}
		}
		snap[n.path] = entry{kind: n.kind, perm: n.perm, data: n.data, target: strings.ReplaceAll(n.target, "$ROOT", root)}
	}
	return snap
}

// TestNewShapesAreGenerated checks that seeds 1-3 (the seeds of a full
// run) produce every path, ledger, revision and git shape the checker is
// meant to try, each more than once.
func TestNewShapesAreGenerated(t *testing.T) {
	count := map[string]int{}
	for seed := int64(1); seed <= 3; seed++ {
		for id := 1; id <= 500; id++ {
			s := genScenario(seed, id)
			for _, st := range s.steps {
				if strings.HasPrefix(st.dir, "lnk-") {
					count["cwd through a symlink"]++
				}
				for i, a := range st.args {
					switch {
					case i == 0 && strings.Contains(a, "plink/../"):
						count["plan link/../plan.md"]++
					case i == 0 && strings.Contains(a, "inner/../"):
						count["plan ./x/../plan.md"]++
					case i == 0 && strings.Contains(a, "nosuchdir/../"):
						count["plan missing/../plan.md"]++
					case i == 0 && strings.HasPrefix(a, "$ROOT/lnk-repo/"), i == 0 && strings.HasPrefix(a, "$ROOT/") && strings.Contains(a, "pdir/"):
						count["plan absolute through a symlinked directory"]++
					}
					if i > 0 && (st.cmd == "task-brief" && i == 2 || st.cmd == "review-package" && i == 3) {
						switch {
						case strings.HasPrefix(a, "$ROOT/") && strings.HasSuffix(a, "/ld/out.md"):
							count["outfile absolute through a symlinked directory"]++
						case a == "ld/out.md":
							count["outfile sub/out.md, both relative symlinks"]++
						case strings.HasSuffix(a, "ld/../out.md"):
							count["outfile link/../out.md"]++
						case a == "./x/../out.md":
							count["outfile ./x/../out.md"]++
						case a == "./nosuchdir/../out.md":
							count["outfile ./missing/../out.md"]++
						}
					}
					if st.cmd == "review-package" && (i == 1 || i == 2) {
						pos := map[int]string{1: "BASE", 2: "HEAD"}[i]
						for _, f := range []string{"--output=", "-n", "--all", "-"} {
							if a == f || f == "--output=" && strings.HasPrefix(a, f) {
								count["revision "+f+" as "+pos]++
							}
						}
					}
				}
				if st.cmd == "task-brief" && len(st.args) == 2 {
					for _, n := range []string{"../../../x", "1/../x", "../x"} {
						if st.args[1] != n {
							continue
						}
						first, _, _ := strings.Cut(n, "/")
						made, linked, found := false, false, false
						for _, nd := range s.nodes {
							made = made || strings.HasSuffix(nd.path, "/task-"+first)
							linked = linked || strings.HasSuffix(nd.path, "/task-"+first) && nd.kind == 'l'
							found = found || bytes.Contains(nd.data, []byte("## Task "+n+": "))
						}
						count[fmt.Sprintf("number %s, task-%s made: %v", n, first, made)]++
						if linked && found && strings.Contains(n, "/../") {
							// Written through the link: ".." is the
							// link target's parent, not the workspace.
							count["number 1/../ found, task-1 a symlink"]++
						}
					}
				}
			}
			if s.ledger != nil {
				count["foreign ledger (D2, modelled)"]++
			}
			for _, nd := range s.nodes {
				if !strings.HasSuffix(nd.path, "/progress.md") || !strings.HasPrefix(string(nd.data), ledgerLine) || s.ledger != nil {
					continue
				}
				named, _, _ := strings.Cut(strings.TrimPrefix(string(nd.data), ledgerLine), "\n")
				switch {
				case strings.HasPrefix(named, "$ROOT/"):
					count["own ledger, absolute"]++
				case strings.HasPrefix(named, "./"):
					count["own ledger, ./"]++
				case strings.HasPrefix(named, "ledger-link/"):
					count["own ledger, through a symlinked directory"]++
				default:
					count["own ledger, relative"]++
				}
			}
			if s.git != gitOK {
				count["git "+string(s.git)]++
			}
		}
	}
	for _, want := range []string{
		"cwd through a symlink", "plan link/../plan.md", "plan ./x/../plan.md", "plan missing/../plan.md",
		"plan absolute through a symlinked directory",
		"outfile absolute through a symlinked directory", "outfile sub/out.md, both relative symlinks",
		"outfile link/../out.md", "outfile ./x/../out.md", "outfile ./missing/../out.md",
		"revision --output= as BASE", "revision --output= as HEAD", "revision -n as BASE", "revision -n as HEAD",
		"revision --all as BASE", "revision --all as HEAD", "revision - as BASE", "revision - as HEAD",
		"number ../../../x, task-.. made: true", "number ../../../x, task-.. made: false",
		"number 1/../x, task-1 made: true", "number 1/../x, task-1 made: false",
		"number ../x, task-.. made: true", "number ../x, task-.. made: false",
		"number 1/../ found, task-1 a symlink",
		"foreign ledger (D2, modelled)", "own ledger, absolute", "own ledger, ./", "own ledger, relative",
		"own ledger, through a symlinked directory",
		"git missing", "git nointerp", "git noexec", "git badformat",
	} {
		assert.GreaterOrEqual(t, count[want], 2, want)
	}
}

// TestSpellPlanIsTheKernelsReading resolves every plan spelling the way the
// kernel will and checks it reaches the plan exactly when spellPlan says
// so, and that a lexical clean of a link/../ spelling lands on the decoy.
func TestSpellPlanIsTheKernelsReading(t *testing.T) {
	const root = "/r"
	lexicalDiffers := 0
	for id := 0; id < 3000; id++ {
		r := newRand(11, id)
		cwd := pick(r, "repo", "repo/sub/dir", "repo/docs/plans", "outside")
		dir := pick(r, placeDirs...)
		spelt, nodes, reaches := spellPlan(r, cwd, dir, "plan.md")
		nodes = append(nodes, node{path: dir + "/plan.md", kind: 'f', perm: 0o644}, node{path: "lnk-repo", kind: 'l', target: "repo"},
			node{path: "repo/docs/plans", kind: 'd'}, node{path: "repo/sub/dir", kind: 'd'}, node{path: "outside", kind: 'd'})
		snap := nodesSnapshot(nodes, root)
		p := strings.ReplaceAll(spelt, "$ROOT", root)
		if !path.IsAbs(p) {
			p = cwd + "/" + p
		}
		got, ok := kernelPath(snap, root, p)
		if !reaches {
			assert.False(t, ok, spelt)
			assert.Contains(t, spelt, "nosuchdir/../", "only a missing directory keeps a spelling from the plan")
			continue
		}
		require.True(t, ok, "%s from %s: %v", spelt, cwd, nodes)
		assert.Equal(t, dir+"/plan.md", got, "%s from %s", spelt, cwd)
		if strings.Contains(spelt, "plink/../") {
			lexical := strings.TrimPrefix(path.Clean(p), root+"/")
			require.NotEqual(t, got, lexical, spelt)
			assert.Equal(t, decoyPlan, string(snap[lexical].data), "a lexical clean of %s reads the decoy", spelt)
			lexicalDiffers++
		}
	}
	assert.Positive(t, lexicalDiffers)
}

// TestPathOutfilesPartFromTheLexicalReading checks each link shape of
// genPathOutfile: the kernel's file and the lexical one differ, so a
// binary that cleans OUTFILE lexically writes the wrong file.
func TestPathOutfilesPartFromTheLexicalReading(t *testing.T) {
	const root = "/r"
	seen := map[string]bool{}
	for id := 0; id < 500; id++ {
		r := newRand(12, id)
		cwd := pick(r, "repo", "repo/sub/dir", "outside", "wt/sub")
		out, nodes := genPathOutfile(r, cwd)
		if !strings.Contains(out, "ld/") {
			continue
		}
		nodes = append(nodes, node{path: cwd, kind: 'd'})
		snap := nodesSnapshot(nodes, root)
		p := strings.ReplaceAll(out, "$ROOT", root)
		if !path.IsAbs(p) {
			p = cwd + "/" + p
		}
		kernel, ok := kernelPath(snap, root, p)
		require.True(t, ok)
		lexical := strings.TrimPrefix(path.Clean(p), root+"/")
		if strings.HasSuffix(out, "ld/out.md") {
			// Through the link and then the entry's own relative link:
			// the target beside the link's target, not beside cwd.
			assert.True(t, strings.HasSuffix(kernel, "/other/target.md"), kernel)
			seen["through"] = true
		} else {
			assert.True(t, strings.HasSuffix(kernel, "/other/out.md"), kernel)
			seen["dotdot"] = true
		}
		assert.NotEqual(t, kernel, lexical, out)
	}
	assert.True(t, seen["through"] && seen["dotdot"])
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

func TestRegexDiffers(t *testing.T) {
	plan := []byte("# P\n## Task 1: one\n## Task 12: twelve\n## Task 1.5: half\n## Task 1/../x: by path\n## Task 1\xffx\n")
	for _, tc := range []struct {
		n    string
		want bool
	}{
		{"1", false},
		{"../x", false},       // no heading can match: "." is harmless here
		{"1/../x", false},     // matches its heading both ways
		{"1.5", false},        // only the literal heading
		{"1.", true},          // "1." matches "12"
		{"1/x", false},        // no special character at all
		{"1\\.5", true},       // a backslash: awk -v escapes
		{"(", true},           // any other special character
		{"1.x", true},         // "." matches the byte 0xff, as awk does under LC_ALL=C
		{"../../../x", false}, // no heading
	} {
		assert.Equal(t, tc.want, regexDiffers(tc.n, plan), tc.n)
	}
}

// TestLedgerLabels checks the labelling of difference 2's foreign ledger
// against the kernel's reading of the scenario: D2 (modelled) exactly when
// the ledger names another file than every plan file a step reaches, and
// never for a ledger naming this plan, however spelled.
func TestLedgerLabels(t *testing.T) {
	const root = "/r"
	var own, foreign int
	for seed := int64(1); seed <= 3; seed++ {
		for id := 1; id <= 500; id++ {
			s := genScenario(seed, id)
			snap := nodesSnapshot(s.nodes, root)
			for _, nd := range s.nodes {
				if !strings.HasSuffix(nd.path, "/progress.md") || !strings.HasPrefix(string(nd.data), ledgerLine) {
					continue
				}
				named, _, _ := strings.Cut(strings.TrimPrefix(string(nd.data), ledgerLine), "\n")
				named = strings.TrimRight(strings.ReplaceAll(named, "$ROOT", root), " \t\r")
				if !path.IsAbs(named) {
					named = "repo/" + named // relative to the repository root
				}
				file, ok := kernelPath(snap, root, named)
				if !ok {
					// Nothing there: the path as text names the plan or not.
					file = strings.TrimPrefix(path.Clean(named), root+"/")
				}
				plans := stepPlans(s, snap, root)
				switch {
				case plans[file]:
					own++
					assert.Nil(t, s.ledger, "s%04d: a ledger naming this plan is adopted", id)
					assert.False(t, s.modelled["D2"], "s%04d", id)
				case len(plans) > 0:
					foreign++
					assert.Contains(t, strings.Split(s.expect, "+"), "D2", "s%04d", id)
					if len(plans) > 1 || s.ledger == nil {
						// A step on a same-basename plan elsewhere: that
						// is difference 2 too, excused as before, and
						// never combined with the model.
						assert.Nil(t, s.ledger, "s%04d", id)
						assert.False(t, s.modelled["D2"], "s%04d", id)
						continue
					}
					assert.Equal(t, nd.path, s.ledger.dir+"/"+ledgerName)
					assert.True(t, s.modelled["D2"])
				default:
					assert.Nil(t, s.ledger, "s%04d: no step reaches a plan file", id)
				}
			}
		}
	}
	assert.Positive(t, own)
	assert.Positive(t, foreign)
}

// stepPlans are the regular files the steps' PLAN_FILEs reach, resolved
// as the kernel will (through symlinks, ".." after them).
func stepPlans(s *Scenario, snap snapshot, root string) map[string]bool {
	plans := map[string]bool{}
	for _, st := range s.steps {
		if len(st.args) == 0 || st.args[0] == "" || strings.HasSuffix(st.args[0], "/") {
			continue
		}
		p := strings.ReplaceAll(st.args[0], "$ROOT", root)
		if !path.IsAbs(p) {
			p = physical(st.dir) + "/" + p
		}
		if file, ok := kernelPath(snap, root, p); ok && snap[file].kind == 'f' {
			plans[file] = true
		}
	}
	return plans
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

// TestJudgeModelsForeignLedgerNote: where the plan a foreign ledger names
// is gone, ours' sdd-workspace notes the skipped workspace on stderr; the
// model drops exactly that line, and its absence (or a note where the
// plan still exists) is a difference.
func TestJudgeModelsForeignLedgerNote(t *testing.T) {
	const root = "/r"
	ws, alt := "repo/.superpowers/sdd/plan", "repo/.superpowers/sdd/plan-plans"
	dir := entry{kind: 'd', perm: 0o755}
	ledger := entry{kind: 'f', perm: 0o644, data: []byte(ledgerLine + "docs/old/plan.md\n")}
	pre := snapshot{"repo": dir, "repo/.superpowers": dir, "repo/.superpowers/sdd": dir, ws: dir, ws + "/progress.md": ledger}
	withOld := snapshot{"repo/docs/old/plan.md": entry{kind: 'f', perm: 0o644, data: []byte("## Task 1\n")}}
	for k, v := range pre {
		withOld[k] = v
	}
	gitignore := entry{kind: 'f', perm: 0o644, data: []byte("*\n")}
	marker := entry{kind: 'f', perm: 0o644, data: []byte("docs/plans/plan.md\n")}
	final := func(s snapshot, extra ...string) snapshot {
		out := snapshot{"repo/.superpowers/sdd/.gitignore": gitignore}
		for k, v := range s {
			out[k] = v
		}
		for _, p := range extra {
			out[p] = dir
			out[p+"/plan-path"] = marker
		}
		return out
	}
	note := "sdd-workspace: note: /r/" + ws + " belongs to docs/old/plan.md, which no longer exists; if docs/plans/plan.md moved from there, its ledger is /r/" + ws + "/progress.md\n"
	judgeWith := func(pre snapshot, stderr string) verdict {
		s := &Scenario{
			steps:    []step{{cmd: "sdd-workspace", dir: "repo", args: []string{"docs/plans/plan.md"}}},
			expect:   "D2",
			modelled: map[string]bool{"D2": true},
			ledger:   &ledgerCase{dir: ws, alt: alt, names: "docs/old/plan.md"},
		}
		ref := &sideResult{steps: []outcome{{stdout: []byte("/r/" + ws + "\n")}}, pre: []snapshot{pre}, final: final(pre)}
		ours := &sideResult{steps: []outcome{{stdout: []byte("/r/" + alt + "\n"), stderr: []byte(stderr)}}, pre: []snapshot{pre}, final: final(pre, alt)}
		return judge(s, ref, ours, root)
	}
	v := judgeWith(pre, note)
	assert.True(t, v.expected, v.diffs)
	// The identity line ends at the first newline of a plan name, and its
	// trailing blanks are not part of the path.
	assert.Equal(t, "../outside/x", (&ledgerCase{names: "../outside/x\n.md"}).recorded())
	assert.Equal(t, "$ROOT/a b", (&ledgerCase{names: "$ROOT/a b \t\r"}).recorded())
	v = judgeWith(withOld, "")
	assert.True(t, v.expected, "the ledger's plan exists: no note %v", v.diffs)
	for name, c := range map[string]struct {
		pre    snapshot
		stderr string
	}{
		"no note":                     {pre, ""},
		"the note twice":              {pre, note + note},
		"another plan in the note":    {pre, strings.Replace(note, "if docs/plans/plan.md", "if plan.md", 1)},
		"a note for an existing plan": {withOld, note},
	} {
		t.Run(name, func(t *testing.T) {
			v := judgeWith(c.pre, c.stderr)
			assert.False(t, v.expected, "%v", v.diffs)
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

// newShape reports whether a scenario exercises a shape of this file's
// generator: a symlinked or ".." path, a ledger, a path TASK_NUMBER, a git
// that cannot start, a revision shaped like an option.
func newShape(s *Scenario) bool {
	if s.ledger != nil || s.git != gitOK && s.git != gitMissing {
		return true
	}
	for _, st := range s.steps {
		if strings.HasPrefix(st.dir, "lnk-") {
			return true
		}
		for _, a := range st.args {
			if strings.Contains(a, "/../") || strings.Contains(a, "ld/") || strings.HasPrefix(a, "--output=") {
				return true
			}
		}
	}
	return false
}

func TestIdentityReferenceIsCleanOnNewShapes(t *testing.T) {
	t.Parallel()
	o := ours(t)
	sum, out := runChecker(t, wrappers(t, o, nil), o, cleanScenarios(), newShape)
	assert.Equal(t, 0, sum.Failed, out)
}

// TestMutationsOfOursAreCaught mutates OUR side (the reference is our
// binaries unchanged): the invariants and the kernel's paths must catch
// what a differential check against the scripts alone could miss.
func TestMutationsOfOursAreCaught(t *testing.T) {
	t.Parallel()
	o := ours(t)
	for _, m := range []mutation{
		{
			name: "sdd-workspace marks a workspace whose ledger names another plan",
			mutate: map[string]string{"sdd-workspace": `out=$("$OURS" "$@") || exit $?
printf '%s\n' "$out"
for d in "$out"/../*/; do
  [ -f "$d/progress.md" ] && [ ! -e "$d/plan-path" ] && printf 'x\n' > "$d/plan-path"
done
exit 0`},
			scenarios: func(s *Scenario) bool {
				return s.ledger != nil && s.git == gitOK && s.steps[0].cmd == "sdd-workspace" && !strings.HasPrefix(physical(s.steps[0].dir), "outside") && physical(s.steps[0].dir) != "repo/.git" && !strings.HasPrefix(s.steps[0].dir, "wt")
			},
			command: "sdd-workspace",
		},
		{
			name: "review-package hands an --output= revision to git",
			mutate: map[string]string{"review-package": `for a in "$2" "$3"; do
  case $a in --output=*) : > "${a#--output=}..HEAD" ;; esac
done
exec "$OURS" "$@"`},
			scenarios: func(s *Scenario) bool {
				st := s.steps[len(s.steps)-1]
				return st.cmd == "review-package" && len(st.args) >= 3 && (strings.HasPrefix(st.args[1], "--output=") || strings.HasPrefix(st.args[2], "--output="))
			},
			command: "review-package",
		},
		{
			name: "task-brief cleans OUTFILE lexically",
			mutate: map[string]string{"task-brief": `[ $# -eq 3 ] || exec "$OURS" "$@"
out=$3
if [[ $out == */../* ]]; then
  pre=${out%%/../*}; rest=${out#*/../}
  if [[ $pre == */* ]]; then out=${pre%/*}/$rest; else out=$rest; fi
fi
res=$("$OURS" "$1" "$2" "$out"); rc=$?
[ -n "$res" ] && printf '%s\n' "${res/"wrote $out:"/"wrote $3:"}"
exit $rc`},
			scenarios: func(s *Scenario) bool {
				st := s.steps[len(s.steps)-1]
				return st.cmd == "task-brief" && len(st.args) == 3 && strings.Contains(st.args[2], "/../") && !s.excuses()
			},
			command: "task-brief",
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			requireCaught(t, wrappers(t, o, nil), wrappers(t, o, m.mutate), m)
		})
	}
}

// TestJudgeGitignoreOfAFailedStep: ours writes .superpowers/sdd/.gitignore
// before the workspace is looked for (docs/spec.md ws5), so where the
// reference's mkdir -p fails only ours has it. That, and only that, is
// difference 2; the same file after a step the reference passed, or with
// other bytes, is a difference.
func TestJudgeGitignoreOfAFailedStep(t *testing.T) {
	dir := entry{kind: 'd', perm: 0o755}
	blocker := entry{kind: 'f', perm: 0o644, data: []byte("a file where the workspace goes\n")}
	pre := snapshot{"repo": dir, "repo/.superpowers": dir, "repo/.superpowers/sdd": dir, "repo/.superpowers/sdd/plan": blocker}
	with := func(data string) snapshot {
		out := snapshot{"repo/.superpowers/sdd/.gitignore": entry{kind: 'f', perm: 0o644, data: []byte(data)}}
		for k, v := range pre {
			out[k] = v
		}
		return out
	}
	s := &Scenario{steps: []step{{cmd: "sdd-workspace", dir: "repo", args: []string{"plan.md"}}}, modelled: map[string]bool{}}
	side := func(exit int, final snapshot) *sideResult {
		return &sideResult{steps: []outcome{{exit: exit}}, pre: []snapshot{pre}, final: final}
	}
	v := judge(s, side(1, pre), side(1, with("*\n")), "/r")
	assert.Empty(t, v.diffs)
	assert.Contains(t, strings.Join(v.notes, "; "), "difference 2: the .gitignore of a failed step")

	v = judge(s, side(1, pre), side(1, with("*\n!x\n")), "/r")
	assert.NotEmpty(t, v.diffs, "other bytes")
	v = judge(s, side(0, pre), side(0, with("*\n")), "/r")
	assert.NotEmpty(t, v.diffs, "the reference did not fail")
}
