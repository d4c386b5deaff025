package skilltext

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// finalFinding is a defect only the whole branch shows: Task 3's index
// names a file by a name no task wrote.
const finalFinding = "index.txt:2 names bye.text, the branch has bye.txt"

// finalDefect is the walk-through with finalFinding planted in Task 3:
// the task's review cannot see it, the final review reports it, and the
// final fix fixes it when fixedIn is 1; ruling is the controller's ruling
// on it when the fix leaves it open.
func finalDefect(fixedIn int, ruling string) follower.Scenario {
	sc := follower.WalkScenario()
	sc.Tasks[2].Defect = &follower.Defect{Path: "index.txt", Wrong: "greet.txt\nbye.text\n", Marker: "bye.text",
		Finding: finalFinding, FixedIn: fixedIn, OnlyFinal: true}
	if ruling != "" {
		sc.Tasks[2].Rulings = map[string]string{finalFinding: ruling}
	}
	return sc
}

// finalLines are the ledger's Final: lines at the end of a run.
func finalLines(t *testing.T, r *directRun) []string {
	t.Helper()
	return taskLines(readFileT(t, filepath.Join(r.keep, "greet", "progress.md")), "Final: ")
}

// TestFinalFix: the final review's Important finding gets one fix (the Fix
// prompt to a fresh implementer, <who> = Final), its scoped re-review, and
// the run finishes; what the fix leaves open is parked or blocks the run,
// as the breaker rules.
func TestFinalFix(t *testing.T) {
	t.Parallel()
	t.Run("fixed", func(t *testing.T) {
		t.Parallel()
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, finalDefect(1, ""), directOptions{})
		requireFinished(t, r)
		got := actions(t, "", r.calls)
		i := slices.Index(got, "Agent final reviewer 0 (opus)")
		require.Positive(t, i)
		assert.Equal(t, []string{"Agent final reviewer 0 (opus)", "Agent fix 0 (sonnet)", "Bash Re-review package",
			"Agent re-reviewer 0 (sonnet)", "Bash Close+Finish", "Say"}, got[i:])
		c := branchCommits(repo, "main")
		require.Len(t, c, 6, "the final fix is the branch's last commit")
		assert.Equal(t, "Final: fix F1", repo.Git("log", "-1", "--format=%s"))
		m := repo.Git("rev-parse", "main")
		assert.Equal(t, []string{
			"Final: base=" + m, "Final: reviewed_head=" + c[4],
			"Final: minor (deferred): naming drift between greet and bye",
			"Final: reviewed_head=" + c[5],
			"Final: complete (commits " + short(repo, m) + ".." + short(repo, c[5]) + ", review clean)",
		}, finalLines(t, r))
		for _, k := range r.calls {
			if k.Tool == "Agent" && strings.HasPrefix(k.Input, "Fix round 1 of Final ") {
				ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
				assert.Contains(t, k.Input, "\nBrief: none\nReport: "+ws+"/final-report.md")
			}
		}
	})
	t.Run("left open, parked", func(t *testing.T) {
		t.Parallel()
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, finalDefect(2, "park: the index is informational"), directOptions{})
		requireFinished(t, r)
		got := actions(t, "", r.calls)
		i := slices.Index(got, "Agent final reviewer 0 (opus)")
		require.Positive(t, i)
		assert.Equal(t, []string{"Agent final reviewer 0 (opus)", "Agent fix 0 (sonnet)", "Bash Re-review package",
			"Read resume.md", "Bash Park+Close+Finish", "Say"}, got[i:])
		c := branchCommits(repo, "main")
		m := repo.Git("rev-parse", "main")
		assert.Equal(t, []string{
			"Final: base=" + m, "Final: reviewed_head=" + c[4],
			"Final: minor (deferred): naming drift between greet and bye",
			"Final: reviewed_head=" + c[4],
			"Final: parked — F1 " + finalFinding + " — ruling: the index is informational",
			"Final: complete (commits " + short(repo, m) + ".." + short(repo, c[4]) + ", 1 parked)",
		}, finalLines(t, r))
	})
	t.Run("left open, blocks", func(t *testing.T) {
		t.Parallel()
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, finalDefect(2, "block: the release reads the index"), directOptions{})
		require.True(t, strings.HasPrefix(r.final, "Final is BLOCKED: F1 "+finalFinding), r.final)
		ledger := readFileT(t, filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md"))
		assert.True(t, strings.HasSuffix(ledger, "Final: BLOCKED — F1 "+finalFinding+": the release reads the index\n"), ledger)
	})
}

// TestResumeFinalFix cuts the run with a final fix at each of its steps;
// the resumed run takes resume.md's final rows and ends with the uncut
// run's ledger.
func TestResumeFinalFix(t *testing.T) {
	t.Parallel()
	sc := finalDefect(1, "")
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	whole := runDirect(t, repo, sc, directOptions{})
	requireFinished(t, whole)
	want := finalLines(t, whole)
	steps := actions(t, "", whole.calls)
	review := "Read review-….md"
	for _, c := range []struct {
		name  string
		after string // the cut comes after this step
		next  []string
	}{
		{"the final review is in, findings open: the one fix", "Agent final reviewer 0 (opus)",
			[]string{"Read resume.md", review, "Agent fix 0 (sonnet)", "Bash Re-review package", "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}},
		{"the fix committed, its package not built: the fix again finds it done", "Agent fix 0 (sonnet)",
			[]string{"Read resume.md", review, "Agent fix 0 (sonnet)", "Bash Re-review package", "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}},
		{"the re-review package built, its review not in: dispatched again", "Bash Re-review package",
			[]string{"Read resume.md", review, "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}},
		{"the re-review in: rule, finish", "Agent re-reviewer 0 (sonnet)",
			[]string{"Read resume.md", review, review, "Bash Close+Finish", "Say"}},
	} {
		// The step's index among the final review's steps.
		f := slices.Index(steps, "Agent final reviewer 0 (opus)")
		require.Positive(t, f)
		k := slices.Index(steps[f:], c.after)
		require.GreaterOrEqual(t, k, 0, c.after)
		k += f + 1
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			repo, cut := cutRun(t, follower.WalkPlanPath, follower.WalkPlan, sc, k, "")
			r := resumeRun(t, repo, cut, sc, "")
			requireNext(t, "", r, c.next...)
			requireFinished(t, r)
			c := branchCommits(repo, "main")
			require.Len(t, c, 6)
			assert.Equal(t, len(want), len(finalLines(t, r)))
			assert.Equal(t, "Final: reviewed_head="+c[5], finalLines(t, r)[3])
		})
	}
}
