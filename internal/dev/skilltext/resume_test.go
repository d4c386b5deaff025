package skilltext

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The resume table of SKILL.md is the one place that says where a run
// goes on after a context compaction. These tests follow it as a
// controller would: they build a real situation (a repository, the real
// commands, a workspace, a ledger, commits), read the facts the table asks
// about from those artefacts, take the first row of the text's table that
// fits, and check that the row's action is the right one. Reordering the
// rows, swapping two actions or dropping one makes them fail.

// resumeRow is one row of the table, with the situation it describes.
type resumeRow struct {
	State, Action string
	Kind          string // a key of resumeKinds
}

// resumeKind recognises a row by words of its first cell and says when
// the row fits.
type resumeKind struct {
	has, not []string
	fits     func(f resumeFacts) bool
}

// resumeFacts are what a controller finds: in the workspace and git, then
// about one task (or, once every task is complete, the final review).
type resumeFacts struct {
	ledger, namesThisPlan, flatCommits bool

	final                bool   // every task is complete: the Final rows apply
	hasLines             bool   // the task has a line at all
	complete             bool   // Task <N>: complete
	last                 string // the kind of the task's (or Final's) last line
	round                int    // R
	commitsAfter, open   bool   // commits after the last reviewed head; findings open
	finalLines           bool   // any Final: line
	finalReviews         int
	finalDone, finalStop bool
}

func reviewedOrFix(f resumeFacts) bool { return f.last == "reviewed_head" || f.last == "fix" }

var resumeKinds = map[string]resumeKind{
	"flat ledger commits": {has: []string{"no `progress.md`", "flat ledger", "commits"},
		fits: func(f resumeFacts) bool { return !f.ledger && f.flatCommits }},
	"no ledger": {has: []string{"no `progress.md`"}, not: []string{"flat"},
		fits: func(f resumeFacts) bool { return !f.ledger }},
	"foreign ledger": {has: []string{"does not name this plan"},
		fits: func(f resumeFacts) bool { return f.ledger && !f.namesThisPlan }},
	"task complete": {has: []string{"`Task <N>: complete`"},
		fits: func(f resumeFacts) bool { return !f.final && f.complete }},
	"no line": {has: []string{"no line for the task"},
		fits: func(f resumeFacts) bool { return !f.final && !f.hasLines }},
	"task blocked": {has: []string{"`Task <N>: BLOCKED`"},
		fits: func(f resumeFacts) bool { return !f.final && f.last == "BLOCKED" }},
	"base only": {has: []string{"`base=` as the task's last line"},
		fits: func(f resumeFacts) bool { return !f.final && f.last == "base" }},
	"fix not re-reviewed": {has: []string{"with commits after the last reviewed head"},
		fits: func(f resumeFacts) bool { return !f.final && reviewedOrFix(f) && f.commitsAfter }},
	"next round": {has: []string{"no commits after the last reviewed head", "findings open"},
		fits: func(f resumeFacts) bool {
			return !f.final && reviewedOrFix(f) && !f.commitsAfter && f.open && f.round < 5
		}},
	"breaker": {has: []string{"`fix round 5/5`"},
		fits: func(f resumeFacts) bool {
			return !f.final && (f.last == "fix" && f.round == 5 && f.open || f.last == "parked")
		}},
	"complete it": {has: []string{"no finding open"},
		fits: func(f resumeFacts) bool { return !f.final && reviewedOrFix(f) && !f.open }},
	"final start": {has: []string{"every task complete", "no `Final:` line"},
		fits: func(f resumeFacts) bool { return f.final && !f.finalLines }},
	"final base": {has: []string{"`Final: base=` as the last line"},
		fits: func(f resumeFacts) bool { return f.final && f.last == "base" }},
	"final fix not re-reviewed": {has: []string{"`Final: reviewed_head=` as the last line, with commits after it"},
		fits: func(f resumeFacts) bool { return f.final && f.last == "reviewed_head" && f.commitsAfter }},
	"final fix": {has: []string{"one `Final: reviewed_head=` line", "findings open"},
		fits: func(f resumeFacts) bool {
			return f.final && f.last == "reviewed_head" && f.finalReviews == 1 && !f.commitsAfter && f.open
		}},
	"final rulings": {has: []string{"`Final: parked`", "any other case"},
		fits: func(f resumeFacts) bool { return f.final && (f.last == "reviewed_head" || f.last == "parked") }},
	"final complete": {has: []string{"`Final: complete`"}, not: []string{"`Final: parked`"},
		fits: func(f resumeFacts) bool { return f.final && f.finalDone }},
	"final blocked": {has: []string{"`Final: BLOCKED`"},
		fits: func(f resumeFacts) bool { return f.final && f.finalStop }},
}

// resumeTable reads the table of SKILL.md's Resume section and names the
// situation of every row; a row that fits no known situation, or more
// than one, fails the test.
func resumeTable(t *testing.T, skill string) []resumeRow {
	t.Helper()
	section := markdownSection(t, skill, "Resume")
	var rows []resumeRow
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		require.Len(t, cells, 2, "a resume row has two cells: %s", line)
		if cells[0] == "What you find" {
			continue
		}
		row := resumeRow{State: cells[0], Action: cells[1]}
		for name, k := range resumeKinds {
			if containsAll(row.State, k.has) && !containsAny(row.State, k.not) {
				require.Empty(t, row.Kind, "row %q fits both %q and %q", row.State, row.Kind, name)
				row.Kind = name
			}
		}
		require.NotEmpty(t, row.Kind, "a resume row this test does not understand: %q", row.State)
		rows = append(rows, row)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		assert.False(t, seen[r.Kind], "two rows for %q", r.Kind)
		seen[r.Kind] = true
	}
	for name := range resumeKinds {
		assert.True(t, seen[name], "the resume table has a row for %q", name)
	}
	return rows
}

func containsAll(s string, subs []string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// decision is where the table sends a resumed controller.
type decision struct {
	resumeRow
	Task  int // the task the row was read for; 0 for the ledger and Final rows
	Round int // R of that task
}

// controller is a scripted reader of the text: it knows the plan, the
// workspace and the number of tasks, and nothing else.
type controller struct {
	t     *testing.T
	s     *sandbox
	skill string
	plan  string // as passed to the commands
	ws    string
	tasks int
}

func (c *controller) pick(rows []resumeRow, f resumeFacts, task int) decision {
	c.t.Helper()
	for _, r := range rows {
		if resumeKinds[r.Kind].fits(f) {
			return decision{resumeRow: r, Task: task, Round: f.round}
		}
	}
	c.t.Fatalf("no row of the resume table fits %+v", f)
	return decision{}
}

// resume reads the facts from the artefacts and walks the table.
func (c *controller) resume() decision {
	c.t.Helper()
	rows := resumeTable(c.t, c.skill)
	var f resumeFacts
	ledgerPath := filepath.Join(c.ws, "progress.md")
	text, err := os.ReadFile(ledgerPath)
	f.ledger = err == nil
	if flat, err := os.ReadFile(filepath.Join(c.s.root, ".superpowers", "sdd", "progress.md")); err == nil && len(flat) > 0 {
		// Commits of this plan's tasks already on the branch: the
		// controller recognises them by their subjects.
		log := c.s.git("log", "--format=%s", "main..HEAD")
		f.flatCommits = regexp.MustCompile(`(?m)^Task [0-9]+:`).MatchString(log)
	}
	if !f.ledger {
		return c.pick(rows, f, 0)
	}
	first, _, _ := strings.Cut(string(text), "\n")
	if named, ok := strings.CutPrefix(first, IdentityPrefix); ok {
		f.namesThisPlan = c.samePlan(named)
	}
	if !f.namesThisPlan {
		return c.pick(rows, f, 0)
	}
	l, err := ParseLedger(string(text), LedgerFormats(c.skill))
	require.NoError(c.t, err, "\n%s", text)
	for n := 1; n <= c.tasks; n++ {
		tf := f
		if ts := l.Tasks[n]; ts != nil {
			tf.hasLines, tf.complete, tf.last, tf.round = true, ts.Complete, ts.LastKind, ts.Round
			if ts.ReviewedHead != "" && !ts.Complete {
				reviewed := ts.ReviewedHead
				if ts.Round > 0 {
					reviewed = c.s.git("rev-parse", ts.LastHead)
				}
				tf.commitsAfter = c.s.git("rev-list", "--count", reviewed+"..HEAD") != "0"
				if ts.Round > 0 {
					tf.open = ts.Open > len(ts.Parked)
				} else {
					tf.open = findingsOpen(c.t, filepath.Join(c.ws, "task-"+strconv.Itoa(n)+"-review.md"))
				}
			}
		}
		d := c.pick(rows, tf, n)
		if d.Kind != "task complete" {
			return d
		}
	}
	f.final = true
	if fs := l.Final; fs != nil {
		f.finalLines, f.last, f.finalDone, f.finalStop = true, fs.LastKind, fs.Complete, fs.Blocked != ""
		f.finalReviews = len(fs.ReviewedHeads)
		if f.finalReviews > 0 {
			f.commitsAfter = c.s.git("rev-list", "--count", fs.ReviewedHeads[f.finalReviews-1]+"..HEAD") != "0"
			f.open = findingsOpen(c.t, filepath.Join(c.ws, "final-review.md"))
		}
	}
	return c.pick(rows, f, 0)
}

// samePlan is "names this plan" as the text defines it: the same file,
// both paths read relative to the repository root; a file that is gone
// compares by its repository-relative path.
func (c *controller) samePlan(named string) bool {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(c.s.root, filepath.FromSlash(p))
	}
	a, errA := os.Stat(abs(named))
	b, errB := os.Stat(abs(c.plan))
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(c.s.root, abs(p))
		require.NoError(c.t, err)
		return r
	}
	return rel(named) == rel(c.plan)
}

// findingsOpen reads a saved review reply: a spec ❌, or a Critical or
// Important item other than "none", or a deferred line to fix now.
func findingsOpen(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "the controller saved the review reply")
	var section string
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "Spec: ❌"):
			return true
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "- "):
			section = line
		case strings.HasPrefix(line, "- ") && line != "- none":
			if section == "Critical:" || section == "Important:" || section == "Deferred and parked lines to fix now:" {
				return true
			}
		}
	}
	return false
}

// textBlock is the one command block of SKILL.md that holds substr.
func textBlock(t *testing.T, skill, substr string) Fence {
	t.Helper()
	var found []Fence
	for _, f := range shellBlocks(skill) {
		if strings.Contains(f.Body, substr) {
			found = append(found, f)
		}
	}
	require.Len(t, found, 1, "one command block of SKILL.md holds %q", substr)
	return found[0]
}

// runText runs a command block of SKILL.md in a fresh shell with the
// given placeholder values and requires it to succeed.
func runText(t *testing.T, s *sandbox, skill, substr string, values map[string]string) result {
	t.Helper()
	b := newBlockRunner(t, s.root)
	b.values = values
	script, r := b.run(textBlock(t, skill, substr))
	require.Equal(t, 0, r.code, "%s\n%s", script, r.stderr)
	return r
}

func requireAction(t *testing.T, d decision, kind string, words ...string) {
	t.Helper()
	require.Equal(t, kind, d.Kind, "the resume table's first fitting row (task %d): %q → %q", d.Task, d.State, d.Action)
	for _, w := range words {
		assert.Contains(t, d.Action, w, "the action for %q", kind)
	}
}

const twoTaskPlan = "# %s\n\n## Global Constraints\n- none\n\n### Task 1: First\nDo one.\n\n### Task 2: Second\nDo two.\n"

func planText(title string) string { return strings.Replace(twoTaskPlan, "%s", title, 1) }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = string(b)
		return err
	}))
	return out
}

// TestResumeForeignLedgerBesideSameBasenamePlan: docs/a/plan.md's run
// (made by the bash scripts: no marker) left .superpowers/sdd/plan/ with
// its ledger. A run of docs/b/plan.md must get another directory, start
// its own ledger, and delete only its own workspace at the end; plan A's
// next controller then finds its ledger and goes on where it stopped.
func TestResumeForeignLedgerBesideSameBasenamePlan(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	s.write("docs/a/plan.md", planText("Plan A"))
	s.write("docs/b/plan.md", planText("Plan B"))
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	s.git("checkout", "-q", "-b", "feature/a")
	base := s.git("rev-parse", "HEAD")
	a1 := s.commit("a1.txt", "one\n", "Task 1: plan A, first")
	s.commit("a2.txt", "two\n", "Task 2: plan A, second")

	aWS := filepath.Join(s.root, ".superpowers", "sdd", "plan")
	ledgerA := IdentityPrefix + "./docs/a/plan.md\n" +
		"Task 1: base=" + base + "\n" +
		"Task 1: implementer=agent-a1\n" +
		"Task 1: reviewed_head=" + a1 + "\n" +
		"Task 1: complete (commits " + s.short(base) + ".." + s.short(a1) + ", review clean)\n" +
		"Task 2: base=" + a1 + "\n" +
		"Task 2: implementer=agent-a2\n"
	s.write(".superpowers/sdd/.gitignore", "*\n")
	s.write(".superpowers/sdd/plan/progress.md", ledgerA)
	s.write(".superpowers/sdd/plan/task-2-report.md", "Status: DONE\n")
	before := snapshotDir(t, aWS)

	// Plan B's controller.
	r := s.cmd("sdd-workspace", "docs/b/plan.md")
	require.Equal(t, 0, r.code, r.stderr)
	wsB := strings.TrimSuffix(r.stdout, "\n")
	require.NotEqual(t, aWS, wsB, "sdd-workspace skips a marker-less directory whose ledger names another plan")
	assert.Equal(t, before, snapshotDir(t, aWS), "plan A's directory is untouched: no marker, the same ledger")

	b := &controller{t: t, s: s, skill: skill, plan: "docs/b/plan.md", ws: wsB, tasks: 2}
	requireAction(t, b.resume(), "no ledger", "create the ledger")
	values := map[string]string{"<plan file>": "docs/b/plan.md", "<workspace>": wsB}
	runText(t, s, skill, "'# SDD ledger — plan: <plan file>'", values)
	requireAction(t, b.resume(), "no line", "start it at step 1")

	// Plan B's run ends; Finish deletes its workspace, and only that.
	runText(t, s, skill, "rm -rf '<workspace>'", values)
	assert.NoDirExists(t, wsB)
	assert.Equal(t, before, snapshotDir(t, aWS), "plan A's ledger survives plan B's Finish")

	// Plan A's next controller finds its directory and its ledger, which
	// names the plan as ./docs/a/plan.md: the same file.
	r = s.cmd("sdd-workspace", "docs/a/plan.md")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, aWS+"\n", r.stdout)
	assert.Equal(t, "docs/a/plan.md\n", readString(t, filepath.Join(aWS, "plan-path")), "adopted and marked")
	a := &controller{t: t, s: s, skill: skill, plan: "docs/a/plan.md", ws: aWS, tasks: 2}
	d := a.resume()
	requireAction(t, d, "base only", "git log --oneline '<base sha>'..HEAD", "review")
	assert.Equal(t, 2, d.Task, "Task 1 is done and not redone")
	// The work is committed and reported: its package is the task's one
	// commit.
	assert.Equal(t, "1", s.git("rev-list", "--count", a1+"..HEAD"))
	pkg := s.reviewPackage(aWS, "docs/a/plan.md", a1, s.git("rev-parse", "HEAD"), 1)
	assert.Contains(t, commitsSection(pkg), "Task 2: plan A, second")
}

// TestResumeHandMadeForeignLedger: a directory made by hand carries this
// plan's marker but another plan's ledger. The table stops the run and
// asks the human; nothing in the directory changes.
func TestResumeHandMadeForeignLedger(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	s.write("docs/a/plan.md", planText("Plan A"))
	s.write("docs/b/plan.md", planText("Plan B"))
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	ws := filepath.Join(s.root, ".superpowers", "sdd", "plan")
	s.write(".superpowers/sdd/plan/plan-path", "docs/b/plan.md\n")
	s.write(".superpowers/sdd/plan/progress.md", IdentityPrefix+"docs/a/plan.md\nTask 1: base="+s.git("rev-parse", "HEAD")+"\n")
	before := snapshotDir(t, ws)

	r := s.cmd("sdd-workspace", "docs/b/plan.md")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, ws+"\n", r.stdout, "the marker names plan B")
	c := &controller{t: t, s: s, skill: skill, plan: "docs/b/plan.md", ws: ws, tasks: 2}
	requireAction(t, c.resume(), "foreign ledger", "ask the human", "never rename, move, edit or delete it")
	assert.Equal(t, before, snapshotDir(t, ws))
	assert.NotContains(t, skill, "progress.foreign.md", "the text never moves a ledger aside")
}

// TestResumeFixMadeButNotReReviewed: the fix of round 2 is committed but
// the context was lost before its re-review. The table sends the
// controller to the re-review of exactly that fix, which closes round 2,
// not to another fix dispatch. The ledger names the plan by its absolute
// path, which is the same plan.
func TestResumeFixMadeButNotReReviewed(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	const plan = "docs/plans/demo.md"
	s.write(plan, planText("Demo"))
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	s.git("checkout", "-q", "-b", "feature/demo")
	r := s.cmd("sdd-workspace", plan)
	require.Equal(t, 0, r.code, r.stderr)
	ws := strings.TrimSuffix(r.stdout, "\n")
	c := &controller{t: t, s: s, skill: skill, plan: plan, ws: ws, tasks: 2}
	w := &ledgerWriter{t: t, path: filepath.Join(ws, "progress.md"), formats: LedgerFormats(skill)}
	w.add("# SDD ledger", "plan file path", filepath.ToSlash(filepath.Join(s.root, plan)))

	base := s.git("rev-parse", "HEAD")
	w.add("base=", "N", "1", "sha", base)
	w.add("implementer=", "N", "1", "id", "agent-1")
	h1 := s.commit("a.txt", "a\n", "Task 1: a")
	writeFile(t, filepath.Join(ws, "task-1-review.md"),
		"Spec: ✅\nCritical:\n- none\nImportant:\n- a.go:1 — unchecked error — data loss\nMinor:\n- none\n")
	w.add("reviewed_head=", "N", "1", "sha", h1)
	requireAction(t, c.resume(), "next round", "round R+1's fix")

	// Round 1's fix, committed; the context is lost before the re-review.
	f1 := s.commit("a.txt", "a\nchecked\n", "Task 1: fix round 1")
	d := c.resume()
	requireAction(t, d, "fix not re-reviewed", "re-review", "closes round R+1")
	assert.Equal(t, 0, d.Round, "the pending re-review closes round 1")
	w.add("fix round", "N", "1", "R", "1", "X", "0", "Y", "1", "finding one-liners", "F1 error still unchecked", "a7", s.short(h1), "b7", s.short(f1))

	// Round 1 recorded with F1 open and nothing after it: round 2's fix.
	d = c.resume()
	requireAction(t, d, "next round", "round R+1's fix")
	assert.Equal(t, 1, d.Round)

	// Round 2's fix is committed, and the context is lost again.
	f2 := s.commit("a.txt", "a\nchecked properly\n", "Task 1: fix round 2")
	d = c.resume()
	requireAction(t, d, "fix not re-reviewed", "re-review", "closes round R+1")
	require.Equal(t, 1, d.Round, "the pending re-review closes round 2")
	// The re-review covers exactly round 2's fix: from the end of round
	// 1's range, written out in full, to HEAD.
	fixBase := s.git("rev-parse", s.short(f1))
	require.Equal(t, f1, fixBase)
	pkg := s.reviewPackage(ws, plan, fixBase, f2, 1)
	assert.Contains(t, commitsSection(pkg), "Task 1: fix round 2")
	assert.NotContains(t, commitsSection(pkg), "fix round 1")
	w.add("fix round", "N", "1", "R", strconv.Itoa(d.Round+1), "X", "1", "Y", "0", "finding one-liners", "F1 error checked", "a7", s.short(f1), "b7", s.short(f2))
	requireAction(t, c.resume(), "complete it", "completion line")
	w.add("review clean", "N", "1", "base7", s.short(base), "head7", s.short(f2))
	requireAction(t, c.resume(), "no line", "start it at step 1")

	// Task 2, clean; then the final review with its one fix, committed
	// but not re-reviewed when the context is lost.
	w.add("base=", "N", "2", "sha", f2)
	h2 := s.commit("b.txt", "b\n", "Task 2: b")
	writeFile(t, filepath.Join(ws, "task-2-review.md"), "Spec: ✅\nCritical:\n- none\nImportant:\n- none\nMinor:\n- none\n")
	w.add("reviewed_head=", "N", "2", "sha", h2)
	requireAction(t, c.resume(), "complete it", "completion line")
	w.add("review clean", "N", "2", "base7", s.short(f2), "head7", s.short(h2))
	requireAction(t, c.resume(), "final start", "Final: base=")
	w.add("Final: base=", "sha", base)
	requireAction(t, c.resume(), "final base", "final reviewer")
	writeFile(t, filepath.Join(ws, "final-review.md"), "Critical:\n- none\nImportant:\n- b.txt:1 — names differ from a.txt\nMinor:\n- none\nDeferred and parked lines to fix now:\n- none\n")
	w.add("Final: reviewed_head=", "sha", h2)
	requireAction(t, c.resume(), "final fix", "one final fix dispatch")
	fix := s.commit("b.txt", "a-style b\n", "final: align names")
	requireAction(t, c.resume(), "final fix not re-reviewed", "re-review")
	w.add("Final: reviewed_head=", "sha", fix)
	requireAction(t, c.resume(), "final rulings", "`Final: complete`")
	w.add("Final: complete (commits <base7>..<head7>, review clean)", "base7", s.short(base), "head7", s.short(fix))
	requireAction(t, c.resume(), "final complete", "delete the workspace")
}

// TestResumeFlatLedgerWithThisPlansCommits: a run from before per-plan
// workspaces kept the flat ledger and committed Task 1 of this very plan.
// The table asks the human once instead of redoing Task 1, and the flat
// ledger is never touched.
func TestResumeFlatLedgerWithThisPlansCommits(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	const plan = "docs/plans/demo.md"
	s.write(plan, planText("Demo"))
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	s.git("checkout", "-q", "-b", "feature/demo")
	base := s.git("rev-parse", "HEAD")
	t1 := s.commit("a.txt", "a\n", "Task 1: a")
	flatText := IdentityPrefix + plan + "\nTask 1: base=" + base + "\nTask 1: complete (commits " + s.short(base) + ".." + s.short(t1) + ", review clean)\n"
	s.write(".superpowers/sdd/progress.md", flatText)
	flat := filepath.Join(s.root, ".superpowers", "sdd", "progress.md")

	r := s.cmd("sdd-workspace", plan)
	require.Equal(t, 0, r.code, r.stderr)
	ws := strings.TrimSuffix(r.stdout, "\n")
	assert.Equal(t, flatText, readString(t, flat), "sdd-workspace leaves the flat ledger alone")
	c := &controller{t: t, s: s, skill: skill, plan: plan, ws: ws, tasks: 2}
	requireAction(t, c.resume(), "flat ledger commits", "ask the human once", "never continue or edit the flat ledger")

	// The human counts Task 1 as done: the controller writes the three
	// lines Setup 5 names into its own ledger, and goes on at Task 2.
	values := map[string]string{"<plan file>": plan, "<workspace>": ws}
	runText(t, s, skill, "'# SDD ledger — plan: <plan file>'", values)
	w := &ledgerWriter{t: t, path: filepath.Join(ws, "progress.md"), formats: LedgerFormats(skill)}
	w.add("base=", "N", "1", "sha", base)
	w.add("reviewed_head=", "N", "1", "sha", t1)
	w.add("review clean", "N", "1", "base7", s.short(base), "head7", s.short(t1))
	d := c.resume()
	requireAction(t, d, "no line", "start it at step 1")
	assert.Equal(t, 2, d.Task)
	assert.Equal(t, flatText, readString(t, flat), "the flat ledger is never edited")

	// A flat ledger with no commit of this plan on the branch asks
	// nothing: a fresh start.
	s2 := newSandbox(t)
	s2.write(plan, planText("Demo"))
	s2.git("add", ".")
	s2.git("commit", "-q", "-m", "plans")
	s2.git("checkout", "-q", "-b", "feature/demo")
	s2.write(".superpowers/sdd/progress.md", IdentityPrefix+"docs/plans/old.md\n")
	r = s2.cmd("sdd-workspace", plan)
	require.Equal(t, 0, r.code, r.stderr)
	c2 := &controller{t: t, s: s2, skill: skill, plan: plan, ws: strings.TrimSuffix(r.stdout, "\n"), tasks: 2}
	requireAction(t, c2.resume(), "no ledger", "create the ledger")
}
