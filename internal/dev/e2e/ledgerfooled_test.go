package e2e

// The ledger cannot be fooled (docs/spec.md ld2–ld8; the third adversarial
// review, issue 28): each test is one way a review found to mislead or
// wedge an unattended controller, which failed before its fix. The
// controller does whatever Look says, so each asserts what Look says and
// what the ledger holds, byte for byte.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// fails runs a verb that must exit with status and leave the ledger as it
// was; it returns stderr.
func (l *ledgerRun) fails(status int, args ...string) string {
	l.t.Helper()
	before := l.ledger()
	res := l.r.Run("", "sdd-ledger", args...)
	require.Equal(l.t, status, res.Code, "sdd-ledger %q: %s%s", args, res.Stdout, res.Stderr)
	assert.Equal(l.t, before, l.ledger(), "sdd-ledger %q changed the ledger", args)
	return res.Stderr
}

// look runs Look, which must answer (exit 0), and returns what it printed.
func (l *ledgerRun) look() string {
	l.t.Helper()
	return l.run("look", "plan.md", "main")
}

// rebaseOnUpstream rebases the run's branch, feat, onto a commit added
// to main: every sha the ledger records is rewritten.
func (l *ledgerRun) rebaseOnUpstream() {
	l.t.Helper()
	l.r.Git("checkout", "-q", "main")
	l.r.Commit("upstream", "up.txt", "up\n")
	l.r.Git("checkout", "-q", "feat")
	l.r.Git("rebase", "-q", "main")
}

// atCheck is a run at Task 1's row check: its review in, Spec ⚠️, two
// minors.
func atCheck(t *testing.T, tasks int) *ledgerRun {
	l := newLedgerRun(t, tasks)
	l.reviewTask1("Spec: ⚠️\nOpen: none\nMinor: m1; m2\nNot verifiable: run it\nReview: r.md\n")
	require.Contains(t, l.look(), "Task 1: last=reviewed_head after=0 review=in pass=first spec=⚠️ open=0 round=0 left=5 shas=ok plan=ok needs=- row=check\n")
	return l
}

// atFix is a run at Task 1's row fix: its review in with F1 open.
func atFix(t *testing.T, tasks int) *ledgerRun {
	l := newLedgerRun(t, tasks)
	l.reviewTask1(oneOpen)
	require.Contains(t, l.look(), " row=fix\n")
	return l
}

// Review item 2, ld7 unblock: BLOCKED waits for the human, whose decision
// to go on is recorded; the unit then goes on from where it was, with a
// fresh budget of fix rounds, and the run to its end.
func TestLedgerUnblockGoesOn(t *testing.T) {
	t.Parallel()
	l := atFix(t, 2)
	for i := 0; i < 5; i++ {
		l.run("package", "plan.md", "1", "a1") // rounds without commits
	}
	require.Contains(t, l.look(), " round=5 left=0 shas=ok plan=ok needs=- row=breaker\n")
	l.run("block", "plan.md", "1", "F1 is real and Task 2 reads f1.txt")
	require.Contains(t, l.look(), " row=blocked\n")
	l.fails(5, "task", "plan.md", "2")
	l.fails(5, "package", "plan.md", "1", "a1")
	l.fails(5, "unblock", "plan.md", "2", "nothing blocks it")
	l.fails(6, "unblock", "plan.md", "1", "  ")
	out := l.run("unblock", "plan.md", "1", "the human fixed the plan: f1.txt is one, fixed")
	assert.Contains(t, out, "recorded Task 1: unblocked — the human fixed the plan: f1.txt is one, fixed\n")
	assert.Contains(t, out, "Task 1: last=fix after=0 review=in pass=first spec=- open=1 round=0 left=5 shas=ok plan=ok needs=- row=fix\n")
	l.r.Commit("fix", "f1.txt", "one, fixed\n")
	l.review(l.run("package", "plan.md", "1", "a2"), "F1: ADDRESSED — fixed\nNew: none\nOut of scope: none\nReview: r.md\n")
	out = l.run("round", "plan.md", "1")
	assert.Contains(t, out, "recorded Task 1: fix round 1/5 (1 addressed, 0 open — none; commits ")
	l.run("close", "plan.md", "1")
	l.run("task", "plan.md", "2")
}

// Review item 3, ld4/ld6: history rewritten under the run (a rebase, a
// reset) is named by Look with its units, at a row that stops; no step
// computes over it, and the human's restart begins the record again.
func TestLedgerRewrittenHistoryStops(t *testing.T) {
	t.Parallel()
	t.Run("rebase at row fix", func(t *testing.T) {
		l := atFix(t, 2)
		l.rebaseOnUpstream()
		out := l.look()
		assert.Contains(t, out, "shas=rewritten plan=ok needs=- row=rewritten\n")
		assert.Regexp(t, `  shas: [0-9a-f]{40} \(reviewed_head=\) is a commit the branch does not contain\n`, out)
		assert.Contains(t, out, "next: Task 1 row=rewritten\n")
		l.fails(5, "package", "plan.md", "1", "a1")
		l.fails(5, "close", "plan.md", "1")
		l.fails(5, "finding", "plan.md", "1", "check fails")
	})
	t.Run("reset after task 1", func(t *testing.T) {
		l := atCheck(t, 2)
		l.run("close", "plan.md", "1")
		l.run("task", "plan.md", "2")
		l.r.Git("reset", "-q", "--hard", "main")
		out := l.look()
		assert.Contains(t, out, "Task 1: last=complete after=- review=in pass=first spec=- open=0 round=0 left=5 shas=rewritten plan=ok needs=- row=rewritten\n")
		assert.Contains(t, out, "Task 2: last=base after=- ")
		assert.Contains(t, out, "next: Task 1 row=rewritten\n")
		assert.Contains(t, out, "commits since main, oldest first: 0\n", "the commits are listed for the human's answers")
		l.fails(5, "package", "plan.md", "2", "a2")
		l.fails(5, "final", "plan.md", "main")
		// The human keeps the branch as it is: the record begins again.
		l.fails(6, "restart", "plan.md", "")
		out = l.run("restart", "plan.md", "the branch was reset to main")
		assert.Contains(t, out, "recorded Run: restarted — the branch was reset to main\n")
		out = l.look()
		assert.Contains(t, out, "Ledger: ledger=none row=new\n")
		assert.Contains(t, out, "  restarted: Run: restarted — the branch was reset to main; the ")
		l.fails(5, "restart", "plan.md", "again")
		l.run("start", "plan.md")
		l.run("task", "plan.md", "1")
		assert.Contains(t, l.ledger(), "Task 1: minor (deferred): m1\n", "the earlier epoch's lines stay")
	})
}

// Review item 4, ld6: a recorded sha that git collected (an amend, the
// reflog expired, gc) does not make Look fail: it answers, names the sha
// and the unit, and the row stops.
func TestLedgerGoneShaLookAnswers(t *testing.T) {
	t.Parallel()
	l := atFix(t, 2)
	l.r.Git("commit", "-q", "--amend", "-m", "task 1, amended")
	l.r.Git("reflog", "expire", "--expire=now", "--all")
	l.r.Git("gc", "-q", "--prune=now")
	out := l.look()
	assert.Contains(t, out, " shas=gone plan=ok needs=- row=rewritten\n")
	assert.Regexp(t, `  shas: [0-9a-f]{40} \(reviewed_head=\) is not a commit of this repository\n`, out)
	l.fails(5, "package", "plan.md", "1", "a1")
	l.fails(5, "task", "plan.md", "2")
	l.run("block", "plan.md", "1", "the human amended task 1's commit") // blocking stays possible
}

// Review item 5, ld4: a CR (or another line breaking byte) a reviewer
// wrote into its answer is read as a space and recorded cleanly; the unit
// goes on.
func TestLedgerLineBreakInAReviewIsRecordedCleanly(t *testing.T) {
	t.Parallel()
	for name, bytes := range map[string]string{"CR": "\r", "NEL": "\u0085", "LS": "\u2028", "invalid UTF-8": "\xff"} {
		if testing.Short() && name != "CR" && name != "invalid UTF-8" {
			continue // a line break and bytes no UTF-8; make test-full, each kind
		}
		t.Run(name, func(t *testing.T) {
			l := newLedgerRun(t, 2)
			l.reviewTask1("Spec: ✅\nOpen: F1 [Important] f1.txt:1 50%" + bytes + "100% broken\nMinor: a" + bytes + "b\nNot verifiable: none\nReview: r.md\n")
			out := l.look()
			assert.Contains(t, out, " open=1 round=0 left=5 shas=ok plan=ok needs=- row=fix\n")
			l.r.Commit("fix", "f1.txt", "one, fixed\n")
			out = l.run("package", "plan.md", "1", "a1")
			l.review(out, "F1: NOT ADDRESSED — still"+bytes+"broken\nNew: none\nOut of scope: x"+bytes+"y\nReview: r.md\n")
			l.run("round", "plan.md", "1")
			want := " 50% 100% broken"
			if name == "invalid UTF-8" {
				want = " 50%\uFFFD100% broken"
			}
			assert.Contains(t, l.ledger(), "Task 1: fix round 1/5 (0 addressed, 1 open — F1 f1.txt:1"+want+"; commits ")
		})
	}
}

// Review item 6, ld7 finding: at row record or record-close a finding
// would leave the re-review's round unrecorded (and the round count to
// start again): refused, the round comes first.
func TestLedgerFindingWaitsForTheRound(t *testing.T) {
	t.Parallel()
	l := atFix(t, 2)
	l.r.Commit("fix", "f1.txt", "one, fixed\n")
	l.review(l.run("package", "plan.md", "1", "a1"), "F1: ADDRESSED — fixed\nNew: none\nOut of scope: a note\nReview: r.md\n")
	require.Contains(t, l.look(), " row=record-close\n")
	assert.Contains(t, l.fails(5, "finding", "plan.md", "1", "check failed"), "row record-close")
	l.run("round", "plan.md", "1")
	out := l.run("finding", "plan.md", "1", "check failed")
	assert.Contains(t, out, "recorded Task 1: finding — F2 check failed\n")
	assert.Contains(t, out, " round=1 left=4 shas=ok plan=ok needs=- row=fix\n")
}

// Review item 7, ld5/ld7: a commit after the reviewed head is reviewed
// before the unit closes; close refuses to leave it in no unit's range.
func TestLedgerCloseLeavesNoCommitUnreviewed(t *testing.T) {
	t.Parallel()
	l := atCheck(t, 2)
	l.r.Commit("one more", "f1b.txt", "late\n")
	out := l.look()
	assert.Contains(t, out, "Task 1: last=reviewed_head after=1 review=in pass=first spec=⚠️ open=0 round=0 left=5 shas=ok plan=ok needs=- row=refix\n")
	l.fails(5, "close", "plan.md", "1")
	out = l.run("package", "plan.md", "1", "a1")
	assert.Contains(t, out, " pass=re ")
	l.review(out, "New: none\nOut of scope: none\nReview: r.md\n")
	require.Contains(t, l.look(), " row=record-close\n")
	l.run("round", "plan.md", "1")
	l.run("close", "plan.md", "1")
	assert.Contains(t, l.run("task", "plan.md", "2"), "recorded Task 2: base="+strings.TrimSpace(l.r.Git("rev-parse", "HEAD")))
}

// Review item 7 at the cap: commits after round 5's review have no round
// left to be reviewed in: the run stops (late) until the human's unblock.
func TestLedgerCommitsAfterTheLastRoundStop(t *testing.T) {
	t.Parallel()
	l := atFix(t, 2)
	for i := 0; i < 5; i++ {
		l.run("package", "plan.md", "1", "a1")
	}
	l.r.Commit("late", "f1.txt", "late\n")
	require.Contains(t, l.look(), " after=1 review=in pass=first spec=- open=1 round=5 left=0 shas=ok plan=ok needs=- row=late\n")
	l.fails(5, "park", "plan.md", "1", "F1", "no")
	l.fails(5, "close", "plan.md", "1")
	out := l.run("unblock", "plan.md", "1", "review the late commit")
	assert.Contains(t, out, " round=0 left=5 shas=ok plan=ok needs=- row=refix\n")
}

// Review item 8, ld2: a ledger that is a symbolic link (a cloned
// repository can ship one) is never written through, nor followed by
// Look.
func TestLedgerSymlinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.run("start", "plan.md")
	target := filepath.Join(testutil.RealTempDir(t), "someone-else.md")
	require.NoError(t, os.WriteFile(target, []byte("mine\n"), 0o644))
	require.NoError(t, os.Remove(l.path()))
	require.NoError(t, os.Symlink(target, l.path()))
	for _, args := range [][]string{{"task", "plan.md", "1"}, {"block", "plan.md", "2", "x"}, {"start", "plan.md"}} {
		res := l.r.Run("", "sdd-ledger", args...)
		assert.Equal(t, 4, res.Code, "%q: %s", args, res.Stderr)
		assert.Contains(t, res.Stderr, "is a symbolic link, not a regular file")
	}
	assert.Equal(t, "mine\n", readFile(t, target))
	out := l.look()
	assert.Contains(t, out, "is a symbolic link, not a regular file: not followed, not read\n")
	assert.Contains(t, out, "next: Ledger row=foreign\n")
}

// Review item 9, ld2: a byte order mark before another plan's first line
// does not make it this plan's.
func TestLedgerBOMDoesNotHideAnotherPlan(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.r.Run("", "sdd-workspace", "plan.md")
	other := "\xEF\xBB\xBF# SDD ledger — plan: docs/other.md\nTask 1: BLOCKED — theirs\n"
	require.NoError(t, os.WriteFile(l.path(), []byte(other), 0o644))
	assert.Contains(t, l.fails(4, "block", "plan.md", "2", "x"), "names another plan than plan.md")
	assert.Contains(t, l.look(), "next: Ledger row=foreign\n")
	// Its own first line behind a BOM is this plan's.
	require.NoError(t, os.WriteFile(l.path(), []byte("\xEF\xBB\xBF# SDD ledger — plan: plan.md\n"), 0o644))
	l.run("task", "plan.md", "1")
	// A first line that names no plan and is no ledger line: whose it is
	// cannot be told.
	require.NoError(t, os.WriteFile(l.path(), []byte("# SDD ledger - plan: plan.md\nTask 1: BLOCKED — x\n"), 0o644))
	assert.Contains(t, l.fails(4, "block", "plan.md", "2", "x"), "names no plan")
}

// Review item 14, ld6: a ledger adopted from the reference's workspace
// (no first line naming a plan, never started here) gets the constraints
// file every dispatch names; lines of a task the plan no longer has, and a
// brief written from another heading, are named, not dropped in silence.
func TestLedgerLookNamesWhatItPassesOver(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	base := strings.TrimSpace(l.r.Git("rev-parse", "HEAD"))
	l.r.Run("", "sdd-workspace", "plan.md")
	require.NoError(t, os.WriteFile(l.path(), []byte("Task 1: base="+base+"\nTask 7: base="+base+"\nTask 7: BLOCKED — x\n"), 0o644))
	out := l.look()
	assert.Contains(t, out, "/constraints.md: 3 lines\n")
	assert.FileExists(t, filepath.Join(ws(l.r, "plan"), "constraints.md"))
	assert.Contains(t, out, "  note: lines of Task 7 (2 lines), which the plan has no heading for, passed over: was a task removed or the plan renumbered?\n")
	assert.Contains(t, out, "Task 1: last=base after=0 ")

	// Task 1's brief was written from "step 1"; the plan renumbered, its
	// Task 1 is another task now: a stop for the human (issue 36).
	l2 := newLedgerRun(t, 2)
	l2.run("start", "plan.md")
	l2.run("task", "plan.md", "1")
	l2.r.Write("plan.md", "# Plan\n\n## Task 1: a new first step\nx\n\n## Task 2: step 1\nWrite f1.txt.\n\n## Task 3: step 2\nWrite f2.txt.\n")
	out = l2.look()
	assert.Contains(t, out, `  plan: Task 1 was begun from the heading "step 1", and the plan's Task 1 is "a new first step" now`)
	assert.Contains(t, out, "next: Task 1 row=renumbered\n")
}
