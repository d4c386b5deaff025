package skilltext

import (
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
// workspace, must take the step the text's Resume tables prescribe, and
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
	require.GreaterOrEqual(t, len(got), 2, callList(r.calls))
	require.Equal(t, []string{"Skill " + follower.DefaultSkill, "Bash Look"}, got[:2], callList(r.calls))
	rest := got[2:]
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
	want := walkLedger(repo, repo.Git("rev-parse", "main"), c, "", "", "")
	got := readFileT(t, filepath.Join(r.keep, "greet", "progress.md"))
	require.Equal(t, implementerLineRe.ReplaceAllString(want, ""), implementerLineRe.ReplaceAllString(got, ""))
}

// TestResumeAfterACut cuts the walk-through after each kind of call and
// resumes it: the new controller takes the next step the text prescribes,
// and the run ends with the ledger an uncut run writes.
func TestResumeAfterACut(t *testing.T) {
	review := "Read review-….md"
	for _, c := range []struct {
		name string
		k    int // controller calls before the cut
		next []string
	}{
		{"no ledger yet: the run starts", 2, []string{"Bash Start the run+Start task N", "Agent implementer 1 (sonnet)"}},
		{"BASE, no commits: the implementer again", 3, []string{"Agent implementer 1 (sonnet)", "Bash Build the package"}},
		{"BASE, commits: the package", 4, []string{"Bash Build the package", "Agent reviewer 1 (opus)", "Bash Close+Start task N"}},
		{"the review is in, nothing open: Close", 6, []string{review, "Bash Close+Start task N", "Agent implementer 2 (sonnet)"}},
		{"a fix not re-reviewed: the re-review closes round 1", 12, []string{review, "Bash Re-review package", "Agent re-reviewer 2 (sonnet)", "Bash Record the round+Close+Start task N"}},
		{"Task 3's BASE: its implementer", 15, []string{"Agent implementer 3 (sonnet)"}},
		{"Task 3's review is in: Close and the final package", 18, []string{review, "Bash Close+Final package", "Agent final reviewer 0 (opus)"}},
		{"the final review is in: finish", 20, []string{"Read resume.md", review, "Bash Close+Finish", "Say"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, cut := cutRun(t, walkPlanPath, walkPlan, walkScenario(), c.k, "")
			r := resumeRun(t, repo, cut, walkScenario(), "")
			requireNext(t, "", r, c.next...)
			requireFinished(t, r)
			requireWalkLedger(t, repo, r)
		})
	}
}

// TestResumeCommittedWorkWithoutReport: commits after BASE and no report
// (the implementer was cut off before writing it): the package is built
// and the reviewer is told there is no report, and reads none.
func TestResumeCommittedWorkWithoutReport(t *testing.T) {
	repo, cut := cutRun(t, walkPlanPath, walkPlan, walkScenario(), 4, "")
	ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	require.NoError(t, os.Remove(filepath.Join(ws, "task-1-report.md")))
	r := resumeRun(t, repo, cut, walkScenario(), "")
	requireNext(t, "", r, "Bash Build the package", "Agent reviewer 1 (opus)")
	var prompt string
	for _, c := range r.calls {
		if c.Tool == "Agent" && strings.HasPrefix(c.Input, "You review Task 1 ") {
			prompt = c.Input
		}
		if c.Tool == "Read" && strings.HasSuffix(c.Input, "task-1-report.md") {
			t.Errorf("%s read the report that is not there", c.Actor)
		}
	}
	assert.Contains(t, prompt, "\n"+follower.NoReportLine+"\n")
	assert.NotContains(t, prompt, "task-1-report.md")
	requireFinished(t, r)
	requireWalkLedger(t, repo, r)
	assert.Contains(t, readFileT(t, filepath.Join(r.keep, "greet", "progress.md")), "Task 1: implementer=none\n")
}

// TestResumeNoLineForTheTask: Task 1 complete and nothing about Task 2
// (written by hand: the text always starts the next task in the call that
// closes one): Start task N runs alone, and must stand alone.
func TestResumeNoLineForTheTask(t *testing.T) {
	repo, cut := cutRun(t, walkPlanPath, walkPlan, walkScenario(), 7, "")
	ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	ledger := readFileT(t, filepath.Join(ws, "progress.md"))
	i := strings.Index(ledger, "Task 2: base=")
	require.Positive(t, i)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(ledger[:i]), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "task-2-brief.md")))
	r := resumeRun(t, repo, cut, walkScenario(), "")
	requireNext(t, "", r, "Bash Start task N", "Agent implementer 2 (sonnet)")
	requireFinished(t, r)
	requireWalkLedger(t, repo, r)
}

// TestResumeRowsTheTextLacks: states the text's Resume table has no right
// row for. Each case runs on skill/ as it is (and shows what goes wrong)
// and on a copy with the proposed rows (textFixes), where the resumed run
// takes the right step and ends with the right ledger.
func TestResumeRowsTheTextLacks(t *testing.T) {
	review := "Read review-….md"
	for _, c := range []struct {
		name  string
		k     int
		fixes []string
		now   string // what goes wrong with skill/ as it is: in the last words, or "no fix round line"
		next  []string
	}{
		{"a review not in: dispatched again, with <bytes>", 5, []string{"look lists sizes"},
			"placeholders no value fills: <bytes>", []string{"Agent reviewer 1 (opus)", "Bash Close+Start task N"}},
		{"the first review is in with findings open, no fix yet: round 1", 10, []string{"resume rows"},
			"no row of the Resume tables fits Task 2", []string{review, "ToolSearch select:SendMessage", "SendMessage fix 2 round 1 to agent-3", "Bash Re-review package"}},
		{"a re-review not in: dispatched again", 13, []string{"look lists sizes"},
			"placeholders no value fills: <bytes>", []string{review, "Agent re-reviewer 2 (sonnet)", "Bash Record the round+Close+Start task N"}},
		{"a re-review is in, its round not recorded: Record the round", 14, []string{"resume rows"},
			"no fix round line", []string{review, review, "Bash Record the round+Close+Start task N"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Run("the text as it is", func(t *testing.T) {
				repo, cut := cutRun(t, walkPlanPath, walkPlan, walkScenario(), c.k, "")
				r := resumeRun(t, repo, cut, walkScenario(), "")
				if c.now == "no fix round line" {
					requireFinished(t, r)
					assert.NotContains(t, readFileT(t, filepath.Join(r.keep, "greet", "progress.md")), "Task 2: fix round 1/5",
						"the text closes the task and its round is never recorded")
					return
				}
				require.Contains(t, r.final, c.now, callList(r.calls))
			})
			t.Run("fixed", func(t *testing.T) {
				dir := fixedSkill(t, c.fixes...)
				repo, cut := cutRun(t, walkPlanPath, walkPlan, walkScenario(), c.k, dir)
				r := resumeRun(t, repo, cut, walkScenario(), dir)
				requireNext(t, dir, r, c.next...)
				requireFinished(t, r)
				requireWalkLedger(t, repo, r)
			})
		})
	}
}
