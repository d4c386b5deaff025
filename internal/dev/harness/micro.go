package harness

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// batchLedgerLines are the lines a batch of every micro-task writes for
// its start and its close, each of which must be in the ledger once:
// the batch on Task 1, every other task batched in it, a complete line
// for each (closed with Task 1).
func batchLedgerLines() []string {
	var tasks []string
	for i := 1; i <= follower.MicroTasks; i++ {
		tasks = append(tasks, fmt.Sprint(i))
	}
	lines := []string{"Task 1: batch — Tasks " + strings.Join(tasks, ", ") + "\n", "Task 1: complete (commits "}
	for i := 2; i <= follower.MicroTasks; i++ {
		lines = append(lines, fmt.Sprintf("Task %d: batched — in Task 1\n", i), fmt.Sprintf("Task %d: complete (commits ", i))
	}
	return lines
}

// batchLedger is what is wrong with a finished micro run's ledger: each
// of batchLedgerLines there once, every complete line of the batch's
// review clean (Task 1's its own, the others' with Task 1); nil if
// nothing.
func batchLedger(ledger string) error {
	var wrong []string
	for _, want := range batchLedgerLines() {
		n := 0
		for _, l := range strings.SplitAfter(ledger, "\n") {
			if !strings.HasPrefix(l, want) {
				continue
			}
			n++
			suffix := ", review clean, with Task 1)\n"
			if strings.HasPrefix(l, "Task 1: ") {
				suffix = ", review clean)\n"
			}
			if strings.Contains(want, ": complete ") && !strings.HasSuffix(l, suffix) {
				wrong = append(wrong, fmt.Sprintf("%q does not end with %q", l, suffix))
			}
		}
		if n != 1 {
			wrong = append(wrong, fmt.Sprintf("%d lines starting %q", n, want))
		}
	}
	if wrong != nil {
		return fmt.Errorf("the ledger: %s\n%s", strings.Join(wrong, "; "), ledger)
	}
	return nil
}

// checkMicroBranch holds the branch to the micro plan's work: a commit
// per task, as its plan names it, each palette file the word.
func checkMicroBranch(t *testing.T, repo string) {
	t.Helper()
	var want []string
	for i := follower.MicroTasks; i >= 1; i-- {
		want = append(want, fmt.Sprintf("palette %d: color", i))
	}
	assert.Equal(t, strings.Join(want, "\n"), testutil.Git(t, repo, "log", "--format=%s", "main..HEAD"), "the branch's commits, newest first")
	for i := 1; i <= follower.MicroTasks; i++ {
		assert.Equal(t, "color\n", readFile(t, filepath.Join(repo, fmt.Sprintf("palette/p%d.txt", i))))
	}
}

// dispatchesOf counts a session's controller dispatches by role.
func dispatchesOf(p *Played) map[follower.Role]int {
	n := map[follower.Role]int{}
	for _, st := range p.Controller() {
		if d, ok := follower.ParseDispatch(st.Input); st.Tool == "Agent" && ok {
			n[d.Role]++
		}
	}
	return n
}

// microSteps are the controller's steps of a micro run on h: the direct
// executor's 12 calls (rare.md read for its Batches), then its last
// words.
func microSteps(h Host) []string {
	out := []string{"Skill " + h.Facts().SkillName(), "Read " + follower.HostFile(h.Host())}
	for _, step := range []string{"Bash Look", "Read color.md", "Read rare.md", "Bash Start the run+Start a batch",
		"Agent implementer 1 (haiku)", "Bash Package", "Agent reviewer 1 (sonnet)", "Bash Close+Final package",
		"Agent final reviewer 0 (opus)", "Bash Close+Finish", "Say"} {
		out = append(out, asHost(h, step))
	}
	return out
}

// microTasks: the follower carries out follower.MicroPlan, eight tasks
// of one shape, as one batch: one implementer, the batch's review and
// the final review, in the calls the direct executor makes
// (internal/dev/skilltext's TestWalkThroughMicroTasks); the ledger holds
// the batch, the batched tasks and a complete line for each, the branch
// a commit for each. Session holds every call of the session to no
// error and no refusal.
func microTasks(t *testing.T, h Host) {
	repo, s, keep, p := carryOut(t, h, follower.MicroScenario(), nil)

	got := stepNamer(t, h, s)(p.Calls())
	t.Logf("micro-tasks in the real CLI: %d tasks, dispatches %v, %d controller calls %q; %d requests, session %v",
		follower.MicroTasks, dispatchesOf(p), len(got), got, len(s.Server.Requests()), p.Elapsed.Round(time.Millisecond))
	assert.Equal(t, microSteps(h), got, "the controller's steps")
	assert.Equal(t, map[follower.Role]int{follower.RoleImplementer: 1, follower.RoleReviewer: 1, follower.RoleFinal: 1}, dispatchesOf(p))
	checkCalls(t, h, s, p)
	assert.NoError(t, batchLedger(finished(t, p, keep, follower.Workspace(follower.MicroPlanPath))))
	checkMicroBranch(t, repo)
	assert.NoDirExists(t, filepath.Join(repo, ".superpowers", "sdd", follower.Workspace(follower.MicroPlanPath)))
	assert.Contains(t, p.Final, "verdict: Final: complete")
}

// midBatch is the micro run cut right after the batch's implementer
// came back (its commits made, no package yet): Look sends the new
// session to Task 1 at row package, and the batch goes on as one unit,
// its review, its close and the final review.
var midBatch = follower.Resume{
	Name:     "mid-batch",
	Row:      "package",
	Scenario: follower.MicroScenario,
	Cut:      7,
	After:    "Agent implementer 1 (haiku)",
	Next:     []string{"Read color.md", "Bash Package", "Agent reviewer 1 (sonnet)", "Bash Close+Final package"},
	Ends: func(ledger string, commits []string) error {
		if len(commits) != follower.MicroTasks {
			return fmt.Errorf("%d commits on the branch, want one a task", len(commits))
		}
		return batchLedger(ledger)
	},
}

// microResume: resume (the harness's resume of follower.Resumes) from
// midBatch; Look of the new session shows every task but the first
// batched, and the run ends with the batch's ledger and branch.
func microResume(t *testing.T, h Host) {
	start := time.Now()
	p := resume(t, h, midBatch)
	look, _ := p.Ran("sdd-ledger look ")
	for i := 2; i <= follower.MicroTasks; i++ {
		assert.Contains(t, look.Text, fmt.Sprintf("Task %d: last=batched ", i))
	}
	t.Logf("a resume mid-batch in the real CLI: %d calls after the cut, dispatches %v; both sessions %v",
		len(p.Calls()), dispatchesOf(p), time.Since(start).Round(time.Millisecond))
}
