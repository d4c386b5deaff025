package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Resuming: a run is cut between two controller calls (as a context
// compaction cuts it), or its state is written by hand, and a new
// controller, which knows nothing but the text, the ledger, git and the
// workspace, must take the step the text's state table prescribes, and
// nothing else. The subagents of the first run can still be reached, as
// in one session.

// cutRun runs sc in a new repository holding plan and stops the run after
// k controller calls.
func cutRun(t *testing.T, planPath, plan string, sc follower.Scenario, k int, skillDir string) (*testutil.Repo, *directRun) {
	t.Helper()
	repo := walkRepo(t, planPath, plan)
	r := runDirect(t, repo, sc, directOptions{skillDir: skillDir, maxCalls: k})
	require.True(t, r.cut, "the run ended before call %d: %s\n%s", k+1, r.final, callList(r.calls))
	require.Empty(t, failedCalls(r.calls))
	return repo, r
}

// resumeRun starts a new controller after prev in the same repository.
func resumeRun(t *testing.T, repo *testutil.Repo, prev *directRun, sc follower.Scenario, skillDir string) *directRun {
	t.Helper()
	return runDirect(t, repo, sc, directOptions{skillDir: skillDir, after: prev})
}

// requireNext requires the resumed run's calls after Skill and Look to
// begin with next.
func requireNext(t *testing.T, skillDir string, r *directRun, next ...string) {
	t.Helper()
	got := actions(t, skillDir, r.calls)
	require.GreaterOrEqual(t, len(got), 3, callList(r.calls))
	require.Equal(t, []string{"Skill " + follower.DefaultSkill, "Read " + follower.HostFile("claude-code"), "Bash Look"}, got[:3], callList(r.calls))
	rest := got[3:]
	if len(rest) > len(next) {
		rest = rest[:len(next)]
	}
	require.Equal(t, next, rest, "the steps after Look\n%s\nlast words: %s", callList(r.calls), r.final)
}

var implementerLineRe = regexp.MustCompile(`(?m)^Task \d+: implementer=.*\n`)

// requireWalkLedger requires the walk-through's ledger at the end of a
// resumed run (its implementer ids aside: a resumed run may know none).
func requireWalkLedger(t *testing.T, repo *testutil.Repo, r *directRun) {
	t.Helper()
	c := branchCommits(repo, "main")
	require.Len(t, c, 5, repo.Git("log", "--oneline", "main..HEAD"))
	want := walkLedger(repo, repo.Git("rev-parse", "main"), c, "", "", "", "")
	got := finishedLedger(r)
	require.Equal(t, implementerLineRe.ReplaceAllString(want, ""), implementerLineRe.ReplaceAllString(got, ""))
}

// TestResumeTable resumes from each state of follower.Resumes, one or more
// for each row of the state table: the cut comes where the state says,
// Look names the state's row, the resumed controller (whose own reading
// of the table must name the same row at every step) takes the row's
// step, then runs to its end (or stops, where the row stops).
func TestResumeTable(t *testing.T) {
	t.Parallel()
	for _, c := range follower.Resumes() {
		if testing.Short() && !shortResumes[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			plan := c.Scenario().Plan
			repo, cut := cutRun(t, plan, follower.PlanText(plan), c.Scenario(), c.Cut, "")
			require.Equal(t, c.After, actions(t, "", cut.calls)[c.Cut-1], "the cut's last step")
			if c.Edit != nil {
				require.NoError(t, c.Edit(repo.Root, filepath.Join(repo.Root, ".superpowers", "sdd", follower.Workspace(plan))))
			}
			r := resumeRun(t, repo, cut, c.AfterCompaction(), "")
			require.Equal(t, c.Row, lookRow(t, r), "the row Look names")
			requireNext(t, "", r, c.Next...)
			require.Empty(t, failedCalls(r.calls))
			if c.Stop != "" {
				assert.Contains(t, r.final, c.Stop)
				return
			}
			requireFinished(t, r)
			if c.Walk {
				requireWalkLedger(t, repo, r)
			}
			if c.Ends != nil {
				assert.NoError(t, c.Ends(finishedLedger(r), branchCommits(repo, "main")))
			}
		})
	}
}

// shortResumes are the states make test resumes from (go test -short): a
// task between its steps, one after a fix, a stop the human answers, and
// the final review's fix; make test-full resumes from every one.
var shortResumes = map[string]bool{"implement": true, "refix": true, "blocked: the human says go on": true, "fix: the final review": true}

// lookRow is the row the first Look of a run names: its "next:" line's.
func lookRow(t *testing.T, r *directRun) string {
	t.Helper()
	for _, c := range r.calls {
		if c.Actor == "controller" && c.Tool == "Bash" && strings.HasPrefix(c.Input, "sdd-ledger look ") {
			for _, l := range strings.Split(c.Output, "\n") {
				if n, ok := strings.CutPrefix(l, "next: "); ok {
					_, row, _ := strings.Cut(n, "row=")
					return row
				}
			}
		}
	}
	t.Fatalf("no Look printed a next: line\n%s", callList(r.calls))
	return ""
}

// TestResumeCommittedWorkWithoutReport: commits after BASE and no report
// (the implementer was cut off before writing it): the package is built,
// and the reviewer finds no report and judges from the brief and the diff.
func TestResumeCommittedWorkWithoutReport(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	repo, cut := cutRun(t, follower.WalkPlanPath, follower.WalkPlan, follower.WalkScenario(), 6, "")
	ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	require.NoError(t, os.Remove(filepath.Join(ws, "task-1-report.md")))
	r := resumeRun(t, repo, cut, follower.WalkScenario(), "")
	requireNext(t, "", r, "Read greet.md", "Bash Package", "Agent reviewer 1 (sonnet)")
	requireFinished(t, r)
	requireWalkLedger(t, repo, r)
	assert.NotContains(t, finishedLedger(r), "Task 1: implementer=", "no implementer is known after a compaction")
}

// taskLines are a ledger's lines of one unit ("Task 2: ", "Final: ").
func taskLines(ledger, prefix string) []string {
	var out []string
	for _, l := range strings.Split(ledger, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestResumeRoundWithoutCommits: round 1 makes no commit (its finding
// stays open, and Package records the round so), round 2 fixes it.
func TestResumeRoundWithoutCommits(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	sc := noAttempts(follower.StubbornScenario(2, ""))
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	r := runDirect(t, repo, sc, directOptions{})
	requireFinished(t, r)
	c := branchCommits(repo, "main")
	require.Len(t, c, 5)
	s := func(x string) string { return short(repo, x) }
	assert.Equal(t, []string{
		"Task 2: base=" + c[1],
		"Task 2: implementer=agent-3",
		"Task 2: reviewed_head=" + c[2],
		"Task 2: implementer=agent-5",
		"Task 2: fix round 1/5 (0 addressed, 1 open — F1 " + follower.WalkFinding + "; commits " + s(c[2]) + ".." + s(c[2]) + ")",
		"Task 2: implementer=agent-6",
		"Task 2: reviewed_head=" + c[3],
		"Task 2: fix round 2/5 (1 addressed, 0 open — none; commits " + s(c[2]) + ".." + s(c[3]) + ")",
		"Task 2: complete (commits " + s(c[1]) + ".." + s(c[3]) + ", review clean)",
	}, taskLines(finishedLedger(r), "Task 2: "))
	got := actions(t, "", r.calls)
	assert.Equal(t, []string{"Agent fix 2 (sonnet)", "Bash Package",
		"Agent fix 2 (sonnet)", "Bash Package", "Agent re-reviewer 2 (sonnet)",
		"Bash Record the round+Close+Start task N"}, got[12:18])
}

// TestBreaker: a finding no round fixes: rounds 1-3 go to the implementer,
// 4-5 to a fresh one on the stronger model; after round 5 it is parked
// (and the task closed in the same call) or the run is BLOCKED.
func TestBreaker(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	const why = "the brief allows either spelling"
	t.Run("park", func(t *testing.T) {
		t.Parallel()
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, follower.StubbornScenario(9, "park: "+why), directOptions{})
		requireFinished(t, r)
		got := actions(t, "", r.calls)
		var rounds []string
		for _, a := range got {
			if strings.Contains(a, "fix 2") {
				rounds = append(rounds, a)
			}
		}
		assert.Equal(t, []string{"Agent fix 2 (sonnet)", "Agent fix 2 (sonnet)", "Agent fix 2 (sonnet)",
			"Agent fix 2 (opus)", "Agent fix 2 (opus)"}, rounds)
		assert.Contains(t, got, "Bash Park+Close+Start task N")
		c := branchCommits(repo, "main")
		require.Len(t, c, 9, "an attempt in each round")
		lines := taskLines(finishedLedger(r), "Task 2: ")
		s := func(x string) string { return short(repo, x) }
		assert.Equal(t, []string{
			"Task 2: fix round 5/5 (0 addressed, 1 open — F1 " + follower.WalkFinding + "; commits " + s(c[6]) + ".." + s(c[7]) + ")",
			"Task 2: parked — F1 " + follower.WalkFinding + " — ruling: " + why,
			"Task 2: complete (commits " + s(c[1]) + ".." + s(c[7]) + ", 1 parked)",
		}, lines[len(lines)-3:])
	})
	t.Run("block", func(t *testing.T) {
		t.Parallel()
		sc := follower.StubbornScenario(9, "block: Task 3 reads bye.txt")
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, sc, directOptions{})
		require.Contains(t, r.final, "Task 2 is BLOCKED")
		require.Empty(t, failedCalls(r.calls))
		ledger := readFileT(t, filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md"))
		require.True(t, strings.HasSuffix(ledger, "Task 2: BLOCKED — F1 "+follower.WalkFinding+": Task 3 reads bye.txt\n"), ledger)
		got := actions(t, "", r.calls)
		assert.Equal(t, []string{"Read rare.md", "Bash Block", "Say"}, got[len(got)-3:])

		// Resumed, the BLOCKED line stops the run again, and nothing runs.
		again := resumeRun(t, repo, r, sc, "")
		requireNext(t, "", again, "Read greet.md", "Say")
		assert.Len(t, controllerCalls(again.calls), 4)
		assert.Contains(t, again.final, "Task 2 is BLOCKED")
		assert.Equal(t, ledger, readFileT(t, filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md")))
	})
}

// earlierRun is a repository whose branch already holds Task 1's two
// commits, made by an earlier run, and whose plan has its workspace
// (made by sdd-workspace, as Look would).
func earlierRun(t *testing.T) (repo *testutil.Repo, ws string) {
	t.Helper()
	repo = walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	repo.Commit("greet.txt", "greet.txt", "hello\n")
	repo.Commit("check1.sh", "check1.sh", "grep -qx hello greet.txt\n")
	res := testutil.RunIn(repo.Root, repo.Env, binPath("sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, res.Code, res.Stderr)
	return repo, strings.TrimSpace(res.Stdout)
}

// snapshotTree reads every file under dir.
func snapshotTree(t *testing.T, dir string) map[string]string {
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

// resumeEarlierDone resumes after ask with the human's answer that
// Task 1 was done by the earlier run: the answer is recorded in the call
// that starts Task 2, and the run finishes.
func resumeEarlierDone(t *testing.T, repo *testutil.Repo, ask *directRun) *directRun {
	t.Helper()
	sc := follower.WalkScenario()
	sc.Human = follower.Human{Answered: true, Done: []follower.Earlier{{N: 1, First: 1, Last: 2}}}
	r := resumeRun(t, repo, ask, sc, "")
	requireNext(t, "", r, "Read greet.md", "Read rare.md", "Bash Start the run+Earlier run, done", "Bash Start task N", "Agent implementer 2 (sonnet)")
	requireFinished(t, r)
	return r
}

// earlierDoneLedger is the start of the ledger that records Task 1 as done
// by an earlier run.
func earlierDoneLedger(repo *testutil.Repo) string {
	c := branchCommits(repo, "main")
	m := repo.Git("rev-parse", "main")
	return IdentityPrefix + follower.WalkPlanPath + "\n" +
		"Task 1: base=" + m + "\n" +
		"Task 1: reviewed_head=" + c[1] + "\n" +
		"Task 1: settled — " + follower.WalkSettled + "\n" +
		"Task 1: complete (commits " + short(repo, m) + ".." + short(repo, c[1]) + ", earlier run, human confirmed)\n" +
		"Task 2: base=" + c[1] + "\n"
}

// TestResumeIdentityOnlyLedger: a ledger holding only its first line is
// read as no ledger: Setup 4's questions come again (the branch has an
// earlier run's commits), and nothing is written until the human answers;
// the answer is recorded in the call that starts the next task.
func TestResumeIdentityOnlyLedger(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	repo, ws := earlierRun(t)
	ledger := filepath.Join(ws, "progress.md")
	require.NoError(t, os.WriteFile(ledger, []byte(IdentityPrefix+follower.WalkPlanPath+"\n"), 0o644))
	before := snapshotTree(t, ws)

	ask := runDirect(t, repo, follower.WalkScenario(), directOptions{})
	requireNext(t, "", ask, "Read greet.md", "Say")
	assert.Contains(t, ask.final, "commits since main")
	assert.Contains(t, ask.final, "greet.txt")
	assert.Equal(t, before, snapshotTree(t, ws), "nothing is written before the human answers")

	r := resumeEarlierDone(t, repo, ask)
	got := finishedLedger(r)
	require.True(t, strings.HasPrefix(got, earlierDoneLedger(repo)), got)
}

// TestResumeFlatLedger: no ledger of this plan, the old flat ledger and
// commits of this plan on the branch: the controller asks once, leaves the
// flat ledger alone, and records the human's answer (Earlier run, done)
// before the next task starts.
func TestResumeFlatLedger(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	repo, ws := earlierRun(t)
	flat := filepath.Join(repo.Root, ".superpowers", "sdd", "progress.md")
	flatText := "# SDD progress\nTask 1: greeting — done (greet.txt, check1.sh)\nTask 1: minor (deferred): greet.txt lacks a trailing comment\n"
	require.NoError(t, os.WriteFile(flat, []byte(flatText), 0o644))

	ask := runDirect(t, repo, follower.WalkScenario(), directOptions{})
	requireNext(t, "", ask, "Read greet.md", "Say")
	assert.Contains(t, ask.final, "old flat ledger")
	assert.Contains(t, ask.final, "Task 1: greeting — done")
	assert.NoFileExists(t, filepath.Join(ws, "progress.md"))

	r := resumeEarlierDone(t, repo, ask)
	got := finishedLedger(r)
	require.True(t, strings.HasPrefix(got, strings.Replace(earlierDoneLedger(repo), "\nTask 1: settled", "\nTask 1: minor (deferred): greet.txt lacks a trailing comment\nTask 1: settled", 1)), got)
	assert.Equal(t, flatText, readFileT(t, flat), "the flat ledger is never edited")
	for _, c := range controllerCalls(r.calls) {
		if c.Tool == "Agent" && strings.HasPrefix(c.Input, "You implement Task 1 ") {
			t.Errorf("Task 1, done by the earlier run, was dispatched again")
		}
	}
}

// TestResumeEarlierRunToReview: the human wants the earlier run's commits
// reviewed as Task 1: only its base is recorded, the package is built at
// once (no Start task N), and the reviewer is told there is no report.
func TestResumeEarlierRunToReview(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	sc := follower.WalkScenario()
	sc.Human = follower.Human{Answered: true, Review: &follower.Earlier{N: 1, First: 1}}
	repo, _ := earlierRun(t)
	r := runDirect(t, repo, sc, directOptions{})
	requireNext(t, "", r, "Read greet.md", "Read rare.md", "Bash Start the run+Earlier run, to review", "Bash Package", "Agent reviewer 1 (sonnet)", "Bash ? sh check1.sh+Close+Start task N")
	requireFinished(t, r)
	c := branchCommits(repo, "main")
	lines := taskLines(finishedLedger(r), "Task 1: ")
	m := repo.Git("rev-parse", "main")
	assert.Equal(t, []string{
		"Task 1: base=" + m, "Task 1: reviewed_head=" + c[1],
		"Task 1: minor (deferred): check1.sh repeats the file name",
		"Task 1: settled — " + follower.WalkSettled,
		"Task 1: complete (commits " + short(repo, m) + ".." + short(repo, c[1]) + ", review clean)",
	}, lines)
}

// TestResumeWorkspaceGone: git clean -fdx deleted the workspace in the
// middle of Task 2; Look makes a new one, the controller asks about the
// branch's commits, and the human's answer rebuilds the ledger: Task 1
// done, Task 2's commits reviewed.
func TestResumeWorkspaceGone(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	dir := ""
	repo, cut := cutRun(t, follower.WalkPlanPath, follower.WalkPlan, follower.WalkScenario(), 14, dir)
	repo.Git("clean", "-q", "-fdx")
	require.NoDirExists(t, filepath.Join(repo.Root, ".superpowers"))
	ask := resumeRun(t, repo, cut, follower.WalkScenario(), dir)
	requireNext(t, dir, ask, "Read greet.md", "Say")
	assert.Contains(t, ask.final, "Task 2: fix F1")

	sc := follower.WalkScenario()
	sc.Human = follower.Human{Answered: true, Done: []follower.Earlier{{N: 1, First: 1, Last: 2}}, Review: &follower.Earlier{N: 2, First: 3}}
	r := resumeRun(t, repo, ask, sc, dir)
	requireNext(t, dir, r, "Read greet.md", "Read rare.md", "Bash Start the run+Earlier run, done+Earlier run, to review", "Bash Package",
		"Agent reviewer 2 (sonnet)", "Bash Close+Start task N")
	requireFinished(t, r)
}

// foreignLedger is a workspace of this plan (its marker says so) whose
// ledger names another plan: a directory someone made by hand.
func foreignLedger(t *testing.T, ledger string) (*testutil.Repo, string, map[string]string) {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("plans", follower.WalkPlanPath, follower.WalkPlan, "docs/plans/other.md", "# Other\n\n## Task 1: Other\nx\n")
	repo.Git("checkout", "-q", "-b", "feature/run")
	res := testutil.RunIn(repo.Root, repo.Env, binPath("sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, res.Code, res.Stderr)
	ws := strings.TrimSpace(res.Stdout)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(ledger), 0o644))
	return repo, ws, snapshotTree(t, ws)
}

// TestResumeForeignLedger: a ledger naming another plan stops the run with
// a question and stays byte for byte; the same plan spelled otherwise is
// this plan's.
func TestResumeForeignLedger(t *testing.T) {
	t.Parallel()
	other := IdentityPrefix + "docs/plans/other.md\nTask 1: base=" + strings.Repeat("a", 40) + "\n"
	t.Run("another plan", func(t *testing.T) {
		t.Parallel()
		repo, ws, before := foreignLedger(t, other)
		r := runDirect(t, repo, follower.WalkScenario(), directOptions{})
		requireNext(t, "", r, "Say")
		assert.Contains(t, r.final, "another run's only record")
		assert.Equal(t, before, snapshotTree(t, ws))
		assert.Equal(t, "foreign", lookRow(t, r))
	})
	t.Run("this plan by another spelling", func(t *testing.T) {
		t.Parallel()
		own := IdentityPrefix + "./" + follower.WalkPlanPath + "\n"
		repo, _, _ := foreignLedger(t, own)
		p := filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md")
		require.NoError(t, os.WriteFile(p, []byte(own+"Task 1: base="+repo.Git("rev-parse", "HEAD")+"\n"), 0o644))
		r := runDirect(t, repo, follower.WalkScenario(), directOptions{maxCalls: 5})
		requireNext(t, "", r, "Read greet.md", "Agent implementer 1 (sonnet)")
	})
	t.Run("another plan, first line only", func(t *testing.T) {
		t.Parallel()
		// The row for a foreign ledger comes first: Start the run would
		// keep its first line and append this run's lines to it.
		first := IdentityPrefix + "docs/plans/other.md\n"
		repo, ws, before := foreignLedger(t, first)
		r := runDirect(t, repo, follower.WalkScenario(), directOptions{})
		requireNext(t, "", r, "Say")
		assert.Equal(t, before, snapshotTree(t, ws))
	})
}

// TestResumeMovedPlan: the plan moved (committed on the branch) after
// Task 1's review; every command passes over the old workspace, whose plan
// path is gone, and Look says so; the controller asks, and on yes carries
// the record over (Carry over: a new first line, the old lines and files;
// the old workspace becomes this plan's where it is), runs Look again and
// resumes from the carried ledger, the move's commit reviewed with Task 1.
func TestResumeMovedPlan(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	const oldPath = "docs/plans/old/greet.md"
	sc := follower.WalkScenario()
	sc.Plan = oldPath
	repo, cut := cutRun(t, oldPath, follower.WalkPlan, sc, 8, "")
	repo.Git("mv", oldPath, follower.WalkPlanPath)
	repo.Git("commit", "-q", "-m", "move the plan")
	old := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	before := snapshotTree(t, old)

	sc.Plan = follower.WalkPlanPath
	ask := resumeRun(t, repo, cut, sc, "")
	requireNext(t, "", ask, "Read greet.md", "Say")
	require.Contains(t, ask.final, old+" belongs to "+oldPath+", which no longer exists: did "+follower.WalkPlanPath+" move from there?")
	assert.Equal(t, before, snapshotTree(t, old), "nothing is carried before the human's yes")

	sc.Human = follower.Human{Answered: true, Moved: true}
	r := resumeRun(t, repo, ask, sc, "")
	// The move is a commit after Task 1's review: it is reviewed before
	// Task 1 closes (no commit is left in no task's range).
	requireNext(t, "", r, "Read greet.md", "Read rare.md", "Bash Carry over", "Bash Look", "Bash Package", "Agent re-reviewer 1 (sonnet)", "Bash Record the round+Close+Start task N")
	requireFinished(t, r)
	assert.NoDirExists(t, filepath.Join(repo.Root, ".superpowers", "sdd", "greet-plans"), "the fresh workspace goes")

	var carried string
	for _, c := range controllerCalls(r.calls) {
		if strings.HasPrefix(c.Input, "sdd-ledger carry ") {
			carried = c.Ledgers["greet"]
		}
	}
	oldLedger := before["/progress.md"]
	require.Equal(t, IdentityPrefix+follower.WalkPlanPath+"\n"+strings.SplitN(oldLedger, "\n", 2)[1], carried,
		"the carried ledger: this plan's first line, then the old lines")
	kept := dirFiles(t, filepath.Join(r.keep, "greet"))
	for name := range before {
		assert.Contains(t, kept, name[1:], "the old workspace's files stay in it")
	}
}

// TestResumeMidBatch: a compaction in the middle of a batch (its
// implementer's answer in, the package not built): the ledger says the
// batch's first task is at row package and its other tasks batched, and
// the new controller takes the batch on as one unit, to its end.
func TestResumeMidBatch(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	repo, cut := cutRun(t, follower.MicroPlanPath, follower.MicroPlan, follower.MicroScenario(), 7, "")
	require.Equal(t, "Agent implementer 1 (haiku)", actions(t, "", cut.calls)[6], "the cut's last step")
	r := resumeRun(t, repo, cut, follower.MicroScenario(), "")
	require.Equal(t, "package", lookRow(t, r))
	var look string
	for _, c := range r.calls {
		if c.Tool == "Bash" && strings.HasPrefix(c.Input, "sdd-ledger look ") {
			look = c.Output
			break
		}
	}
	for i := 2; i <= follower.MicroTasks; i++ {
		assert.Contains(t, look, fmt.Sprintf("Task %d: last=batched ", i))
	}
	requireNext(t, "", r, "Read color.md", "Bash Package", "Agent reviewer 1 (sonnet)", "Bash Close+Final package")
	requireFinished(t, r)
	ledger := finishedLedgerOf(r, "color")
	for i := 2; i <= follower.MicroTasks; i++ {
		assert.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", i))
	}
}
