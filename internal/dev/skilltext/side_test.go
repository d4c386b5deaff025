package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// The walk-through side by side (walkthrough_test.go; rare.md, Side by
// side): tasks in their own worktrees, dispatched at once, joined at
// their close, resumed, escaped and in conflict.

// TestWalkThroughSideBySide: the human answers two at a time; each task
// starts in its own worktree (Start task N, never a batch), its
// implementer works there (Work in:), its check runs there, and its close
// joins it into the branch; Task 3, which lists what Tasks 1 and 2 write,
// starts once both have joined. Every task's commits are reviewed once,
// in its own package, and are on the branch at the end.
func TestWalkThroughSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("TestWalkThroughSixTasksSideBySide proves these rules on Claude Code's file; -short drops the repetition")
	}
	t.Parallel()
	for _, host := range []string{"claude-code", "codex"} {
		t.Run(host, func(t *testing.T) { sideBySide(t, host) })
	}
}

// sideBySide is TestWalkThroughSideBySide on host's file: Codex's sends
// the dispatches as spawn_agent calls, then waits for each; Claude Code's
// sends several Agent calls in one message, which run at once.
func sideBySide(t *testing.T, host string) {
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	r := runDirect(t, repo, follower.SideScenario(2), directOptions{host: host})
	requireFinished(t, r)
	ledger := finishedLedgerOf(r, "greet-side")
	for i := 1; i <= 3; i++ {
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: branch=sdd/greet-side/task-%d\n", i, i))
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", i))
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", i))
	}
	require.Equal(t, "", repo.Git("branch", "--list", "sdd/*"), "every task's branch removed once joined")
	require.Equal(t, "", repo.Git("status", "--porcelain"))
	for _, f := range []string{"greet.txt", "check1.sh", "bye.txt", "index.txt"} {
		_, err := os.Stat(filepath.Join(repo.Root, f))
		require.NoError(t, err, "%s is on the branch", f)
	}
	d := countDispatches(r.calls)
	t.Log(walkLine("side by side, two at a time, "+host, 3, d, r.calls))
	if steps := dispatchSteps(r.calls); host == "claude-code" && steps >= d.implementers+d.reviewers+d.fixes {
		t.Errorf("%d dispatch steps for %d dispatches: no two were sent in one message", steps, d.implementers+d.reviewers+d.fixes)
	}
}

// dispatchSteps counts the controller's messages that dispatch.
func dispatchSteps(calls []directCall) int {
	messages := map[int]bool{}
	for _, c := range controllerCalls(calls) {
		if c.Tool == "Agent" {
			messages[c.Message] = true
		}
	}
	return len(messages)
}

// sixTasks is a plan of six ordinary tasks as writing-plans writes them:
// five parts that need nothing of each other (each its file and its
// test), and a sixth that lists them all; and the run of it in which
// every task is done and reviewed clean.
func sixTasks() (plan string, sc follower.Scenario) {
	var b strings.Builder
	b.WriteString("# Parts plan\n\n## Global Constraints\n- Plain text files only, each ending with a newline.\n\n")
	sc = follower.Scenario{Plan: "docs/plans/parts.md", FinalMinors: []string{"the parts could share a header"}}
	var all []string
	for k := 1; k <= 5; k++ {
		f := fmt.Sprintf("part%d.txt", k)
		all = append(all, f)
		fmt.Fprintf(&b, "### Task %d: Part %d\n\n**Files:**\n- Create: `%s`\n- Test: `check%d.sh`\n\nCreate %s containing `part %d`, and check%d.sh that checks it.\n\n", k, k, f, k, f, k, k)
		sc.Tasks = append(sc.Tasks, follower.Task{N: k, Title: fmt.Sprintf("Part %d", k), Test: "test -s " + f,
			Commits: []follower.Commit{{Message: fmt.Sprintf("Task %d: %s", k, f), Files: []follower.File{
				{Path: f, Content: fmt.Sprintf("part %d\n", k)}, {Path: fmt.Sprintf("check%d.sh", k), Content: fmt.Sprintf("grep -qx 'part %d' %s\n", k, f)}}}}})
	}
	fmt.Fprintf(&b, "### Task 6: Index\n\n**Files:**\n- Create: `index.txt`\n\nList %s in index.txt, one a line.\n", strings.Join(all, ", "))
	sc.Tasks = append(sc.Tasks, follower.Task{N: 6, Title: "Index", Test: "test -s index.txt",
		Commits: []follower.Commit{{Message: "Task 6: index.txt", Files: []follower.File{{Path: "index.txt", Content: strings.Join(all, "\n") + "\n"}}}}})
	return b.String(), sc
}

// TestWalkThroughSixTasksSideBySide: six ordinary tasks, three at a time,
// in Claude Code's file (several Agent calls of one message run at
// once): the five independent ones in two waves, the sixth once they
// have joined; S ≤ 0.6 × (I + R + F), and every task's commits reviewed
// exactly once, in its own package, and on the branch at the end.
func TestWalkThroughSixTasksSideBySide(t *testing.T) {
	t.Parallel()
	plan, sc := sixTasks()
	repo := walkRepo(t, sc.Plan, plan)
	sc.Human = follower.Human{Answered: true, Side: 3}
	r := runDirect(t, repo, sc, directOptions{})
	requireFinished(t, r)
	d := countDispatches(r.calls)
	t.Log(walkLine("six tasks, three at a time", 6, d, r.calls))
	if s, all := dispatchSteps(r.calls), d.implementers+d.reviewers+d.fixes; 10*s > 6*all {
		t.Errorf("%d dispatch steps for %d dispatches: more than 0.6 of them", s, all)
	}
	ledger := finishedLedgerOf(r, "parts")
	for k := 1; k <= 6; k++ {
		require.Equal(t, 1, strings.Count(ledger, fmt.Sprintf("\nTask %d: reviewed_head=", k)), "Task %d reviewed once:\n%s", k, ledger)
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", k))
	}
	require.Equal(t, "Task 1: part1.txt\nTask 2: part2.txt\nTask 3: part3.txt\nTask 4: part4.txt\nTask 5: part5.txt\nTask 6: index.txt",
		strings.Join(sortedLines(repo.Git("log", "--no-merges", "--format=%s", "main..HEAD")), "\n"), "every task's commit on the branch")
	require.Equal(t, "", repo.Git("branch", "--list", "sdd/*"), "every task's branch removed once joined")
	require.Equal(t, "", repo.Git("status", "--porcelain"))

	// The cost: no more controller calls than one at a time, plus one a
	// join (a measure, run in full).
	if testing.Short() {
		return
	}
	serialRepo := walkRepo(t, sc.Plan, plan)
	sc.Human.Side = 1
	serial := runDirect(t, serialRepo, sc, directOptions{})
	requireFinished(t, serial)
	t.Log(walkLine("six tasks, one at a time", 6, countDispatches(serial.calls), serial.calls))
	if side, one := len(controllerCalls(r.calls)), len(controllerCalls(serial.calls)); side > one+6 {
		t.Errorf("%d controller calls side by side, %d one at a time: more than one a join more", side, one)
	}
}

func sortedLines(s string) []string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(ls)
	return ls
}

// TestWalkThroughSideBySideEscape: Task 2's implementer, told to work in
// its worktree, commits on the main checkout instead: the next package
// stops its unit (BLOCKED — it left its worktree, naming the commit;
// which task's implementer escaped, the commit says, not the command),
// the run stops for the human, and nothing of it is joined.
func TestWalkThroughSideBySideEscape(t *testing.T) {
	t.Parallel()
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	sc := follower.SideScenario(2)
	sc.Tasks[1].Escapes = true
	r := runDirect(t, repo, sc, directOptions{})
	require.Contains(t, r.final, "BLOCKED", r.final)
	ledger := r.h.ledgers()["greet-side"]
	require.Regexp(t, `\nTask \d: BLOCKED — it left its worktree: the feature branch moved: .* "Task 2: bye.txt" now`, ledger)
	require.NotContains(t, ledger, "Task 2: reviewed_head=", "no package of the escaped work")
	require.NotContains(t, ledger, "Task 2: joined=")
}

// TestWalkThroughSideBySideResume: six tasks three at a time, the run
// cut (a compaction) once three implementers have answered and before
// any package: the next controller's Look names every task in flight
// with its worktree, and the run goes on from there to its end, every
// task reviewed once and joined.
func TestWalkThroughSideBySideResume(t *testing.T) {
	t.Parallel()
	plan, sc := sixTasks()
	sc.Human = follower.Human{Answered: true, Side: 3}
	repo, cut := cutRun(t, sc.Plan, plan, sc, 11, "")
	require.Equal(t, 3, countDispatches(cut.calls).implementers, "the cut comes after the three implementers:\n%s", callList(cut.calls))
	r := resumeRun(t, repo, cut, sc, "")
	requireFinished(t, r)
	look := controllerCalls(r.calls)[2]
	require.Contains(t, look.Input, "look", callList(r.calls))
	for k := 1; k <= 3; k++ {
		require.Contains(t, look.Output, fmt.Sprintf("task-%d-worktree (branch sdd/parts/task-%d)", k, k), "Look after the cut names Task %d's worktree", k)
	}
	require.Contains(t, look.Output, "next: Task 1 row=package, Task 2 row=package, Task 3 row=package")
	ledger := finishedLedgerOf(r, "parts")
	for k := 1; k <= 6; k++ {
		require.Equal(t, 1, strings.Count(ledger, fmt.Sprintf("\nTask %d: reviewed_head=", k)), "Task %d reviewed once:\n%s", k, ledger)
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", k))
	}
	t.Log(walkLine("six tasks, resumed with three in flight", 6, countDispatches(r.calls), r.calls))
}

// TestWalkThroughSideBySideConflict: Tasks 1 and 2, whose Files lists are
// apart, both write notes.txt: each joins alone (Look's waits:), Task 1
// first; Task 2's join conflicts, the conflict comes back as its finding,
// its fix round (in its worktree) merges the branch and keeps both notes,
// the re-review finds it resolved, and the close joins it.
func TestWalkThroughSideBySideConflict(t *testing.T) {
	t.Parallel()
	sc := follower.SideConflictScenario()
	repo := walkRepo(t, sc.Plan, follower.PlanText(sc.Plan))
	r := runDirect(t, repo, sc, directOptions{})
	require.True(t, strings.HasPrefix(r.final, "Done: "), r.final)
	// Two calls fail, as they should: the close whose join conflicted
	// (exit 5, its finding recorded) and the fix's merge that stops at
	// the conflict for its implementer to resolve.
	failed := failedCalls(r.calls)
	require.Len(t, failed, 2, "%q", failed)
	require.Contains(t, failed[0], "sdd-ledger close 'docs/plans/greet-side.md' 2")
	require.Contains(t, failed[1], "merge -q 'feature/run'")
	ledger := finishedLedgerOf(r, follower.Workspace(sc.Plan))
	require.Regexp(t, `\nTask 2: finding — F\d+ joining conflicts with feature/run at [0-9a-f]+ in notes.txt: in the worktree .*task-2-worktree, merge feature/run into sdd/greet-side/task-2 and resolve it\n`, ledger)
	for n := 1; n <= 3; n++ {
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", n))
	}
	require.Equal(t, "greeting: hello\nfarewell: bye\n", readFileT(t, filepath.Join(repo.Root, "notes.txt")), "both tasks' notes, merged")
	var waits bool
	for _, k := range controllerCalls(r.calls) {
		waits = waits || strings.Contains(k.Output, "\nwaits: Task 2 it changed files its Files list does not name (notes.txt)")
	}
	require.True(t, waits, "Look said Task 2 joins alone")
	t.Log(walkLine("side by side, a conflict", 3, countDispatches(r.calls), r.calls))
}
