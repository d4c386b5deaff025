package compat

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The generator (scenario.go, shapes.go, plan.go): a seed's scenarios
// are the same each time and cover every shape the checker names; the
// paths it spells, and the judge's reading of them (kernelPath), are the
// kernel's.

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
