package skilltext

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// finalLines are the ledger's Final: lines at the end of a run.
func finalLines(t *testing.T, r *directRun) []string {
	t.Helper()
	return taskLines(follower.WithoutImplementers(finishedLedger(r)), "Final: ")
}

// TestFinalFix: the final review's Important finding gets one fix (the Fix
// prompt to a fresh implementer, <who> = Final), its scoped re-review, and
// the run finishes; what the fix leaves open is parked or blocks the run,
// as the breaker rules.
func TestFinalFix(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	t.Run("fixed", func(t *testing.T) {
		t.Parallel()
		repo, r := runFinalDefect(t, 1, "")
		assert.Equal(t, []string{"Agent final reviewer 0 (opus)", "Agent fix 0 (sonnet)", "Bash Package",
			"Agent re-reviewer 0 (sonnet)", "Bash Record the round+Close+Finish", "Say"}, fromFinalReview(t, r))
		c := branchCommits(repo, "main")
		require.Len(t, c, 6, "the final fix is the branch's last commit")
		assert.Equal(t, "Final: fix F1", repo.Git("log", "-1", "--format=%s"))
		m := repo.Git("rev-parse", "main")
		assert.Equal(t, []string{
			"Final: base=" + m, "Final: reviewed_head=" + c[4], "Final: reviewed_head=" + c[5],
			"Final: minor (deferred): naming drift between greet and bye",
			"Final: fix round 1/1 (1 addressed, 0 open — none; commits " + short(repo, c[4]) + ".." + short(repo, c[5]) + ")",
			"Final: complete (commits " + short(repo, m) + ".." + short(repo, c[5]) + ", review clean)",
		}, finalLines(t, r))
		// Its Package records the fix's implementer: <agent id> is the id
		// the last implementer or fix dispatch returned.
		assert.Contains(t, finishedLedger(r), "\nFinal: implementer=agent-")
		for _, k := range r.calls {
			if k.Tool == "Agent" && strings.HasPrefix(k.Input, "Fix round 1 of Final ") {
				ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
				assert.Contains(t, k.Input, "\nBrief: none\nReport: "+ws+"/final-report.md")
			}
		}
	})
	t.Run("left open, parked", func(t *testing.T) {
		t.Parallel()
		repo, r := runFinalDefect(t, 2, "park: the index is informational")
		assert.Equal(t, []string{"Agent final reviewer 0 (opus)", "Agent fix 0 (sonnet)", "Bash Package",
			"Agent re-reviewer 0 (sonnet)", "Bash Record the round", "Read rare.md", "Bash Park+Close+Finish", "Say"}, fromFinalReview(t, r))
		c := branchCommits(repo, "main")
		m := repo.Git("rev-parse", "main")
		s := func(x string) string { return short(repo, x) }
		assert.Equal(t, []string{
			"Final: base=" + m, "Final: reviewed_head=" + c[4], "Final: reviewed_head=" + c[5],
			"Final: minor (deferred): naming drift between greet and bye",
			"Final: fix round 1/1 (0 addressed, 1 open — F1 " + follower.FinalFinding + "; commits " + s(c[4]) + ".." + s(c[5]) + ")",
			"Final: parked — F1 " + follower.FinalFinding + " — ruling: the index is informational",
			"Final: complete (commits " + s(m) + ".." + s(c[5]) + ", 1 parked)",
		}, finalLines(t, r))
		// What the human must still decide is in the last words.
		assert.Contains(t, r.final, "Final: parked — F1 "+follower.FinalFinding)
		assert.Contains(t, r.final, "Final: minor (deferred): naming drift between greet and bye")
	})
	t.Run("left open, blocks", func(t *testing.T) {
		t.Parallel()
		repo, r := runFinalDefect(t, 2, "block: the release reads the index")
		require.True(t, strings.HasPrefix(r.final, "Final is BLOCKED: F1 "+follower.FinalFinding), r.final)
		ledger := readFileT(t, filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md"))
		assert.True(t, strings.HasSuffix(ledger, "Final: BLOCKED — F1 "+follower.FinalFinding+": the release reads the index\n"), ledger)
	})
}

// runFinalDefect runs the walk-through whose final review finds a defect
// (follower.FinalDefectScenario: fixed in round fixedIn, else ruled by
// ruling).
func runFinalDefect(t *testing.T, fixedIn int, ruling string) (*testutil.Repo, *directRun) {
	t.Helper()
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	return repo, runDirect(t, repo, follower.FinalDefectScenario(fixedIn, ruling), directOptions{})
}

// fromFinalReview is what a finished run did from its final review's
// dispatch on.
func fromFinalReview(t *testing.T, r *directRun) []string {
	t.Helper()
	requireFinished(t, r)
	got := actions(t, "", r.calls)
	i := slices.Index(got, "Agent final reviewer 0 (opus)")
	require.Positive(t, i)
	return got[i:]
}
