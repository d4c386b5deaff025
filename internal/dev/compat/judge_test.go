package compat

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The judge (compare.go, model.go) on verdicts built by hand: which of
// the modelled differences a pair of outcomes is, and which is a
// difference.

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
