package e2e

// The run survives the plan and the branch changing under it (the fourth
// review, issue 36): each test is a state a real run met, reproduced with
// the shipped build, and the step Look names there, which is accepted or
// is a stop for the human, never one refused for ever (docs/spec.md ld4
// plan, ld5, ld7).

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// renumber inserts a new Task 2 into microPlan(3) and renumbers the rest.
func renumber(plan string) string {
	plan = strings.Replace(plan, "### Task 4:", "### Task 5:", 1)
	plan = strings.Replace(plan, "### Task 3:", "### Task 4:", 1)
	plan = strings.Replace(plan, "### Task 2:", "### Task 3:", 1)
	return strings.Replace(plan, "### Task 3: Spell color in f2",
		"### Task 2: Add src/logo.txt\n\n**Files:**\n- Create: `src/logo.txt`\n\nAdd a logo.\n\n### Task 3: Spell color in f2", 1)
}

// committedBatch is a run of microPlan(3) whose three tasks are one
// batch, begun and committed, not yet packaged.
func committedBatch(t *testing.T) *ledgerRun {
	t.Helper()
	l := newMicroRun(t, 3)
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1", "3")
	l.commitMicro(1, 3)
	return l
}

// Item 1: a batch renumbered in the plan after its review. Its close
// would complete the new Task 2, never done, and put the old Task 3, done,
// back at start: the batch stops at row renumbered, naming each task.
func TestLedgerRenumberedBatchStops(t *testing.T) {
	t.Parallel()
	l := committedBatch(t)
	l.review(l.run("package", "plan.md", "1", "a1"), cleanReview)
	l.r.Commit("plan: a logo first", "plan.md", renumber(microPlan(3)))
	out := l.look()
	assert.Contains(t, out, "Task 1: last=reviewed_head after=0 review=in pass=first spec=✅ open=0 round=0 left=5 shas=ok plan=renumbered needs=- row=renumbered\n", "the plan's commit is the human's, no work after the review")
	assert.Contains(t, out, "  plan: Task 2 was begun from the heading \"Spell color in f2\", and the plan's Task 2 is \"Add src/logo.txt\" now\n")
	assert.Contains(t, out, "  plan: Task 3 was begun from the heading \"Spell color in f3\", and the plan's Task 3 is \"Spell color in f2\" now\n")
	assert.Contains(t, out, "Task 2: last=batched after=- review=- pass=- spec=- open=0 round=0 left=5 shas=ok plan=renumbered needs=- row=renumbered\n")
	assert.Contains(t, out, "next: Task 1 row=renumbered\n")
	assert.NotContains(t, out, "batch?:", "a task done is not proposed again")
	l.fails(5, "close", "plan.md", "1")
	l.fails(5, "task", "plan.md", "2")
}

// Item 3: a batch's first task removed from the plan. Its later task was
// "the next unit" (batched), the final review refused for it, and Look
// named the same row again: it stops at row renumbered.
func TestLedgerBatchWithoutItsFirstTaskStops(t *testing.T) {
	t.Parallel()
	l := newMicroRun(t, 3)
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1")
	l.commitMicro(1, 1)
	l.review(l.run("package", "plan.md", "1", "a1"), cleanReview)
	l.run("close", "plan.md", "1")
	l.run("task", "plan.md", "2", "3")
	plan := microPlan(3)
	from := strings.Index(plan, "### Task 2:")
	to := strings.Index(plan, "### Task 3:")
	l.r.Commit("plan: no task 2", "plan.md", plan[:from]+plan[to:])
	out := l.look()
	assert.Contains(t, out, "Task 3: last=batched after=- review=- pass=- spec=- open=0 round=0 left=5 shas=ok plan=renumbered needs=- row=renumbered\n")
	assert.Contains(t, out, "  plan: its batch's first task, Task 2, is no task of the plan now\n")
	assert.Contains(t, out, "next: Task 3 row=renumbered\n")
	l.fails(5, "final", "plan.md", "main")
}

// Item 2: a restart mid-batch (an amend under the run) records the batch
// again: earlier-review takes the batch's last task, so its one package
// is judged against the batch's brief, each task in it, and no task of it
// is back at start.
func TestLedgerRestartMidBatchRecordsTheBatch(t *testing.T) {
	t.Parallel()
	l := committedBatch(t)
	l.run("package", "plan.md", "1", "a1")
	l.r.Git("commit", "-q", "--amend", "-m", "f3: color, amended")
	assert.Contains(t, l.look(), "next: Task 1 row=rewritten\n")
	l.run("restart", "plan.md", "the last commit amended")
	l.run("start", "plan.md")
	out := l.run("earlier-review", "plan.md", "main", "1", "1", "3")
	assert.Contains(t, out, "recorded Task 1: batch — Tasks 1, 2, 3\n")
	assert.Contains(t, out, "recorded Task 3: batched — in Task 1\n")
	out = l.look()
	assert.Contains(t, out, "Task 1: last=base after=3 ")
	assert.Contains(t, out, "Task 2: last=batched ")
	assert.Contains(t, out, "next: Task 1 row=package\n")
	brief := readFile(t, ws(l.r, "plan")+"/task-1-brief.md")
	assert.Contains(t, brief, "### Task 3: Spell color in f3\n", "the batch's brief holds every task of it")
	// A batch that would take a task begun, or one the plan lacks, is refused.
	l.fails(5, "earlier-review", "plan.md", "main", "2", "2", "3")
	l.fails(2, "earlier-review", "plan.md", "main", "4", "2", "9")
}

// Item 10: a unit with an open finding when the branch is rebased. Look
// names the finding with the question to the human, and restart parks it
// (its ruling: open when the record began again), so it reaches Finish
// and later tasks' dispatches instead of vanishing with the epoch.
func TestLedgerRestartParksWhatIsOpen(t *testing.T) {
	t.Parallel()
	l := atFix(t, 2)
	l.rebaseOnUpstream()
	out := l.look()
	assert.Contains(t, out, "row=rewritten\n  shas: ")
	assert.Regexp(t, `(?m)^  open: F1 `, out)
	out = l.run("restart", "plan.md", "rebased onto main")
	assert.Regexp(t, `(?m)^recorded Task 1: parked — F1 .* — ruling: open when the record began again: rebased onto main$`, out)
	assert.Regexp(t, `(?m)^recorded Run: restarted — rebased onto main$`, out)
	assert.Less(t, strings.Index(out, "parked"), strings.Index(out, "restarted"), "parked before the record begins again")
	l.run("start", "plan.md")
	l.run("earlier-done", "plan.md", "main", "1", "1", "1")
	assert.Regexp(t, `(?m)^settled: Task 1: parked — F1 `, l.run("task", "plan.md", "2"), "a later task's dispatch hears of it")
}

// Item 12: a plan renamed with git mv to a new file name. Its workspace
// is under the old basename, where resolution never looks: Look names it
// (git records the rename), and carry takes its ledger over, decisions
// and all. A workspace whose plan was deleted, not renamed, is not named.
func TestLedgerRenamedPlanIsNamedAndCarried(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.r.Commit("another plan", "old.md", "# Old\n\n## Task 1: gone\nx\n")
	l.reviewTask1(cleanReview)
	l.run("close", "plan.md", "1", "f1.txt holds one")
	l.r.Run("", "sdd-ledger", "start", "old.md")
	l.r.Git("rm", "-q", "old.md")
	l.r.Git("mv", "plan.md", "colors.md")
	l.r.Git("commit", "-q", "-m", "plan: a better name")
	res := l.r.Run("", "sdd-ledger", "look", "colors.md", "main")
	assert.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "moved?: "+ws(l.r, "plan")+" belongs to plan.md, which no longer exists\n")
	assert.NotContains(t, res.Stdout, "belongs to old.md", "a plan deleted, not renamed, is not this one")
	res = l.r.Run("", "sdd-ledger", "carry", "colors.md", ws(l.r, "plan"))
	assert.Equal(t, 0, res.Code, res.Stderr)
	res = l.r.Run("", "sdd-ledger", "look", "colors.md", "main")
	assert.Contains(t, res.Stdout, "Task 1: last=complete ")
	assert.Contains(t, res.Stdout, "next: Task 2 row=start\n")
	assert.Contains(t, l.r.Run("", "sdd-ledger", "task", "colors.md", "2").Stdout, "settled: Task 1: settled — f1.txt holds one\n", "the decisions come along")
}

// Item 13: the human's own commit of the plan (an edit of a later task's
// text) in the middle of a task is no task work: the task's package
// leaves the plan out (its commit list, its stat, its diff), and a plan
// commit after the review is no commit to review.
func TestLedgerThePlansEditsAreNoTaskWork(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1")
	l.r.Commit("task 1", "f1.txt", "one\n")
	plan := readFile(t, l.r.Root+"/plan.md")
	l.r.Commit("plan: task 2 says more", "plan.md", strings.Replace(plan, "Write f2.txt.", "Write f2.txt, ending with a newline.", 1))
	out := l.run("package", "plan.md", "1", "a1")
	assert.Regexp(t, `(?m)^wrote .*: 1 commit\(s\), \d+ bytes$`, out)
	pkg := readFile(t, packageLine.FindStringSubmatch(out)[1])
	assert.Contains(t, pkg, "task 1")
	assert.NotContains(t, pkg, "plan.md", "the plan's edit is the human's")
	assert.NotContains(t, pkg, "task 2 says more")
	l.review(out, cleanReview)
	l.r.Commit("plan: task 2 says still more", "plan.md", strings.Replace(plan, "Write f2.txt.", "Write f2.txt twice.", 1))
	assert.Contains(t, l.look(), "next: Task 1 row=close\n", "a plan commit after the review is not a commit to review")
	l.run("close", "plan.md", "1")
}

// Item 11: an implementer's BLOCKED is recorded (block, then unblock with
// the change the controller makes), so that after a compaction Look says
// what the next dispatch carries instead of naming row implement with no
// memory of it; the change keeps the unit's rounds (a fresh budget comes
// only where the rounds were spent), so the cap holds.
func TestLedgerImplementersBlockedIsRecorded(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1")
	l.run("block", "plan.md", "1", "the brief names no encoding")
	l.run("unblock", "plan.md", "1", "a stronger model: opus")
	out := l.look()
	assert.Contains(t, out, "next: Task 1 row=implement\n")
	assert.Contains(t, out, "  unblocked: a stronger model: opus\n")

	f := atFix(t, 2)
	f.r.Commit("fix 1", "f1.txt", "one, fixed once\n")
	f.review(f.run("package", "plan.md", "1", "a1"), "F1: NOT ADDRESSED — still\nNew: none\nOut of scope: none\nReview: r.md\n")
	f.run("round", "plan.md", "1")
	f.run("block", "plan.md", "1", "the fix needs a schema")
	f.run("unblock", "plan.md", "1", "more context: the schema is in docs/schema.md")
	out = f.look()
	assert.Contains(t, out, " round=1 left=4 shas=ok plan=ok needs=- row=fix\n", "the rounds it had")
	assert.Contains(t, out, "  unblocked: more context: the schema is in docs/schema.md\n")
}
