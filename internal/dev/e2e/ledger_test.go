package e2e

// sdd-ledger (docs/spec.md, ld3, ld7, ld8) where a testscript cannot say
// it well: many processes appending at once, every verb's ledger holding
// the ledger before it as its first bytes, and texts with line breaks and
// control characters. The verbs' outputs and ledgers, one behaviour each,
// are the rule_ld*.txtar scripts.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// ledgerRun is a repository with a plan of n tasks, committed on main, on
// a branch feat: a run of sdd-ledger, verb by verb.
type ledgerRun struct {
	t *testing.T
	r *testutil.Repo
}

func newLedgerRun(t *testing.T, tasks int) *ledgerRun {
	var b strings.Builder
	b.WriteString("# Plan\n\n## Constraints\n- none\n\n")
	for i := 1; i <= tasks; i++ {
		fmt.Fprintf(&b, "## Task %d: step %d\nWrite f%d.txt.\n\n", i, i, i)
	}
	r := testutil.NewRepo(t)
	r.Commit("plan", "plan.md", b.String())
	r.Git("checkout", "-q", "-b", "feat")
	return &ledgerRun{t: t, r: r}
}

func (l *ledgerRun) path() string { return filepath.Join(ws(l.r, "plan"), "progress.md") }

func (l *ledgerRun) ledger() string {
	b, err := os.ReadFile(l.path())
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(l.t, err)
	return string(b)
}

// run runs a verb that must succeed.
func (l *ledgerRun) run(args ...string) string {
	l.t.Helper()
	res := l.r.Run("", "sdd-ledger", args...)
	require.Equal(l.t, 0, res.Code, "sdd-ledger %q: %s%s", args, res.Stdout, res.Stderr)
	return res.Stdout
}

var packageLine = regexp.MustCompile(`(?m)^  package: (.*) \(\d+ bytes\)$`)

// review writes the review file of the package the last output names.
func (l *ledgerRun) review(out, answer string) {
	l.t.Helper()
	m := packageLine.FindStringSubmatch(out)
	require.NotNil(l.t, m, "no package in %q", out)
	require.NoError(l.t, os.WriteFile(strings.TrimSuffix(m[1], ".diff")+".md", []byte(answer), 0o644))
}

// reviewTask1 starts the run and takes Task 1 to its review: begun, its
// work committed, answer the review of its package.
func (l *ledgerRun) reviewTask1(answer string) {
	l.t.Helper()
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1")
	l.r.Commit("task 1", "f1.txt", "one\n")
	l.review(l.run("package", "plan.md", "1", "a1"), answer)
}

// appendOnly runs a verb and checks that the ledger after it holds the
// ledger before it as its first bytes (a refused verb: the same bytes),
// and that the lines a success printed as recorded are what it added.
func (l *ledgerRun) appendOnly(status int, args ...string) string {
	l.t.Helper()
	before := l.ledger()
	res := l.r.Run("", "sdd-ledger", args...)
	require.Equal(l.t, status, res.Code, "sdd-ledger %q: %s%s", args, res.Stdout, res.Stderr)
	after := l.ledger()
	if status != 0 {
		assert.Equal(l.t, before, after, "refused %q", args)
		return res.Stdout
	}
	require.True(l.t, strings.HasPrefix(after, before), "sdd-ledger %q changed what was there:\n%s\nbecame\n%s", args, before, after)
	added := strings.TrimPrefix(after, before)
	if before != "" && !strings.HasSuffix(before, "\n") {
		require.True(l.t, strings.HasPrefix(added, "\n"), "a line glued to the last one")
		added = added[1:]
	}
	var recorded []string
	for _, s := range strings.Split(res.Stdout, "\n") {
		if r, ok := strings.CutPrefix(s, "recorded "); ok {
			recorded = append(recorded, r+"\n")
		}
	}
	if args[0] != "start" {
		assert.Equal(l.t, strings.Join(recorded, ""), added, "sdd-ledger %q: what it says it recorded", args)
	}
	return res.Stdout
}

const (
	cleanReview = "Spec: ✅\nOpen: none\nMinor: none\nNot verifiable: none\nReview: r.md\n"
	oneOpen     = "Spec: ❌\nOpen: F1 [Spec] f.txt:1 is empty\nMinor: a comment would help\nNot verifiable: none\nReview: r.md\n"
)

// Rule ld3: every verb that writes appends; no byte already in the ledger
// changes, whether the verb succeeds or is refused.
func TestLedgerVerbsOnlyAppend(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.appendOnly(5, "task", "plan.md", "1")
	l.appendOnly(0, "start", "plan.md")
	l.appendOnly(0, "start", "plan.md")
	l.appendOnly(5, "package", "plan.md", "1", "a1")
	l.appendOnly(0, "task", "plan.md", "1")
	l.appendOnly(5, "start", "plan.md")
	l.appendOnly(5, "task", "plan.md", "1")
	l.appendOnly(5, "task", "plan.md", "2")
	l.r.Commit("task 1", "f1.txt", "one\n")
	out := l.appendOnly(0, "package", "plan.md", "1", "a1")
	l.review(out, oneOpen)
	l.appendOnly(5, "close", "plan.md", "1")
	l.appendOnly(5, "park", "plan.md", "1", "F1", "why")
	l.appendOnly(6, "finding", "plan.md", "1", "")
	l.appendOnly(0, "finding", "plan.md", "1", "check.sh fails")
	l.appendOnly(0, "package", "plan.md", "1", "a1") // round 1, no commits
	l.r.Commit("fix", "f1.txt", "one, fixed\n")
	out = l.appendOnly(0, "package", "plan.md", "1", "a2")
	l.review(out, "F1: ADDRESSED — done\nF2: ADDRESSED — passes\nNew: none\nOut of scope: naming\nReview: r.md\n")
	l.appendOnly(0, "round", "plan.md", "1")
	l.appendOnly(5, "round", "plan.md", "1")
	l.appendOnly(0, "close", "plan.md", "1", "f1.txt holds one")

	l.appendOnly(0, "task", "plan.md", "2")
	l.r.Commit("task 2", "f2.txt", "two\n")
	out = l.appendOnly(0, "package", "plan.md", "2", "a3")
	l.review(out, oneOpen)
	for i := 0; i < 5; i++ {
		l.appendOnly(0, "package", "plan.md", "2", "a3")
	}
	l.appendOnly(5, "round", "plan.md", "2")
	l.appendOnly(0, "park", "plan.md", "2", "F1", "the human accepts it")
	l.appendOnly(0, "close", "plan.md", "2")

	l.appendOnly(5, "finish", "plan.md")
	out = l.appendOnly(0, "final", "plan.md", "main")
	l.appendOnly(5, "final", "plan.md", "main")
	l.review(out, "Spec: n/a\nOpen: none\nMinor: drift\nNot verifiable: none\nReview: r.md\n")
	l.appendOnly(0, "close", "plan.md", "final")
	l.appendOnly(5, "block", "plan.md", "final", "too late")
	before := l.ledger()
	out = l.run("finish", "plan.md")
	assert.Contains(t, out, "Task 2: parked — F1 f.txt:1 is empty — ruling: the human accepts it\n")
	assert.Contains(t, before, "Final: complete (commits ")
	assert.NoDirExists(t, ws(l.r, "plan"))
}

// Rule ld3: a ledger whose last line lacks its newline (an editor's save)
// gets one before the verb's lines, which are not glued to it; the
// ledger's bytes before stay its first bytes.
func TestLedgerWithoutAFinalNewlineIsAppendedTo(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.run("start", "plan.md")
	l.run("block", "plan.md", "2", "waiting")
	require.NoError(t, os.WriteFile(l.path(), []byte(strings.TrimSuffix(l.ledger(), "\n")), 0o644))
	l.appendOnly(0, "task", "plan.md", "1")
	assert.Regexp(t, `\nTask 2: BLOCKED — waiting\nTask 1: base=[0-9a-f]{40}\n$`, l.ledger())
}

// The earlier-run verbs append like the others.
func TestLedgerEarlierRunVerbsOnlyAppend(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.r.Commit("one", "f1.txt", "1\n")
	l.r.Commit("two", "f2.txt", "2\n")
	l.appendOnly(0, "start", "plan.md")
	l.appendOnly(5, "earlier-done", "plan.md", "main", "2", "2", "2")
	l.appendOnly(2, "earlier-done", "plan.md", "main", "1", "1", "3")
	l.appendOnly(0, "earlier-done", "plan.md", "main", "1", "1", "1")
	l.appendOnly(5, "earlier-done", "plan.md", "main", "1", "2", "2")
	l.appendOnly(0, "earlier-review", "plan.md", "main", "2", "2")
	l.appendOnly(5, "earlier-review", "plan.md", "main", "2", "2")
}

// Rule ld3: many processes at once, each recording a finding of one unit:
// every one is recorded whole, each on its own line, with its own id (each
// took the next free id on a reading no other changed before it wrote).
func TestLedgerConcurrentFindings(t *testing.T) {
	t.Parallel()
	const n = 16
	l := newLedgerRun(t, 1)
	l.run("start", "plan.md")
	l.run("task", "plan.md", "1")
	l.r.Commit("task 1", "f1.txt", "one\n")
	l.review(l.run("package", "plan.md", "1", "a1"), cleanReview)
	before := l.ledger()

	results := make([]testutil.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = l.r.Run("", "sdd-ledger", "finding", "plan.md", "1", fmt.Sprintf("check %d fails", i))
		}()
	}
	wg.Wait()
	for i, res := range results {
		require.Equal(t, 0, res.Code, "finding %d: %s", i, res.Stderr)
	}
	after := l.ledger()
	require.True(t, strings.HasPrefix(after, before), "the ledger before is not the start of\n%s", after)
	added := strings.Split(strings.TrimSuffix(strings.TrimPrefix(after, before), "\n"), "\n")
	require.Len(t, added, n, "lost or interleaved lines:\n%s", after)
	line := regexp.MustCompile(`^Task 1: finding — F(\d+) check (\d+) fails$`)
	ids, texts := map[string]bool{}, map[string]bool{}
	for _, s := range added {
		m := line.FindStringSubmatch(s)
		require.NotNil(t, m, "not a whole finding line: %q", s)
		ids[m[1]], texts[m[2]] = true, true
	}
	var got []string
	for id := range ids {
		got = append(got, id)
	}
	sort.Strings(got)
	assert.Len(t, ids, n, "two processes took the same id: %q", got)
	assert.Len(t, texts, n)
	for i, res := range results {
		assert.Contains(t, added, strings.TrimPrefix(strings.SplitN(res.Stdout, "\n", 2)[0], "recorded "), "finding %d", i)
	}
	assert.Contains(t, l.run("look", "plan.md", "main"), fmt.Sprintf(" open=%d round=0 left=5 shas=ok plan=ok needs=- row=fix\n", n))
}

// Rule ld3: many processes at once, each blocking another task: every line
// is there, whole, once. The reasons are long (8 KiB), so that a line
// written in more than one write(2) (a buffered writer's flushes), or a
// ledger rewritten from what a process read, would lose or cut another
// process's line were the lock not held; a few rounds, from the started
// ledger each time, for the processes to overlap.
func TestLedgerConcurrentBlocks(t *testing.T) {
	t.Parallel()
	const n = 16
	rounds := 4
	if testing.Short() {
		rounds = 1 // lost or interleaved lines show in any round; make test-full runs them all
	}
	long := strings.TrimSpace(strings.Repeat("and the plan does not say which ", 256))
	l := newLedgerRun(t, n)
	l.run("start", "plan.md")
	before := l.ledger()
	var want []string
	for i := 1; i <= n; i++ {
		want = append(want, fmt.Sprintf("Task %d: BLOCKED — reason %d %s", i, i, long))
	}
	sort.Strings(want)
	for round := 0; round < rounds; round++ {
		require.NoError(t, os.WriteFile(l.path(), []byte(before), 0o644))
		var wg sync.WaitGroup
		results := make([]testutil.Result, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = l.r.Run("", "sdd-ledger", "block", "plan.md", fmt.Sprint(i+1), fmt.Sprintf("reason %d %s", i+1, long))
			}()
		}
		wg.Wait()
		for i, res := range results {
			require.Equal(t, 0, res.Code, "block %d: %s", i+1, res.Stderr)
		}
		after := l.ledger()
		require.True(t, strings.HasPrefix(after, before), "round %d: the first line is gone", round)
		added := strings.Split(strings.TrimSuffix(strings.TrimPrefix(after, before), "\n"), "\n")
		sort.Strings(added)
		// Compared as a whole, not printed: a failure would print 128 KiB.
		require.True(t, slices.Equal(want, added), "round %d: %d lines added, %d whole; lost or interleaved lines", round, len(added), countIn(added, want))
	}
}

// countIn is how many of lines are among want.
func countIn(lines, want []string) int {
	k := 0
	for _, s := range lines {
		if slices.Contains(want, s) {
			k++
		}
	}
	return k
}

// Rule ld7, start: processes starting one run at once make one ledger with
// one first line (the first to create the file and the others must not
// each write it).
func TestLedgerConcurrentStarts(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 1)
	rounds := 40
	if testing.Short() {
		rounds = 4 // a race lost shows in most rounds; make test-full runs them all
	}
	for round := 0; round < rounds; round++ {
		require.NoError(t, os.RemoveAll(ws(l.r, "plan")))
		var wg sync.WaitGroup
		results := make([]testutil.Result, 12)
		for i := range results {
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = l.r.Run("", "sdd-ledger", "start", "plan.md") }()
		}
		wg.Wait()
		for i, res := range results {
			require.Equal(t, 0, res.Code, "start %d: %s", i, res.Stderr)
		}
		require.Equal(t, "# SDD ledger — plan: plan.md\n", l.ledger(), "round %d", round)
	}
}

// Rules ld7 and ld8: a text with a line break or a control character would
// make no ledger line (or two): exit 6 for every verb that takes a text,
// nothing written.
func TestLedgerRefusesTextsThatMakeNoLine(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 1)
	l.reviewTask1(oneOpen)
	// Line breaks of every kind a reader takes for one (LF, CR, NEL, LS,
	// PS), control characters C0 and C1 (CSI), bytes that are no UTF-8,
	// and blanks at an end, which the ledger would not read back.
	for k, bad := range []string{"two\nlines", "a\rb", "trailing\n", "bell\a", "nul\x01", "del\x7f", "esc\x1b[31m",
		"nel\u0085x", "csi\u009b31m", "ls\u2028x", "ps\u2029x", "bad\xffutf8", "  a  ", "a ", "\ta"} {
		verbs := [][]string{
			{"finding", "plan.md", "1", bad},
			{"park", "plan.md", "1", "F1", bad},
			{"block", "plan.md", "1", bad},
			{"unblock", "plan.md", "1", bad},
			{"restart", "plan.md", bad},
			{"close", "plan.md", "1", bad},
			{"package", "plan.md", "1", bad},
		}
		if testing.Short() {
			// Each text with one verb, each verb with some text: every
			// text and every verb refused once; make test-full, all pairs.
			verbs = verbs[k%len(verbs) : k%len(verbs)+1]
		}
		for _, args := range verbs {
			before := l.ledger()
			res := l.r.Run("", "sdd-ledger", args...)
			assert.Equal(t, 6, res.Code, "%q: %s", args, res.Stderr)
			assert.Empty(t, res.Stdout)
			assert.Regexp(t, `^sdd-ledger: .* (holds|is|begins) .*: nothing was written\n$`, res.Stderr)
			assert.Equal(t, before, l.ledger(), "%q", args)
		}
	}
	// Texts that would read back as another: a finding that begins with
	// a grade, rulings that move " — ruling: " (the finding would read
	// back longer), an agent id with a blank that is not a space.
	for _, args := range [][]string{
		{"finding", "plan.md", "1", "[Critical] x"},
		{"block", "plan.md", "1", "— ruling: x"},
		{"block", "plan.md", "1", "x — ruling:"},
		{"package", "plan.md", "1", "agent\u00a0one"},
		{"package", "plan.md", "1", "agent\u3000one"},
	} {
		before := l.ledger()
		res := l.r.Run("", "sdd-ledger", args...)
		assert.Equal(t, 6, res.Code, "%q: %s", args, res.Stderr)
		assert.Equal(t, before, l.ledger(), "%q", args)
	}
}

// Review item 14, ld7: close takes any number of decisions, each its own
// settled line.
func TestLedgerCloseTakesManyDecisions(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.reviewTask1(cleanReview)
	args := []string{"close", "plan.md", "1"}
	for i := 1; i <= 100; i++ {
		args = append(args, fmt.Sprintf("decision %d", i))
	}
	l.run(args...)
	assert.Equal(t, 100, strings.Count(l.ledger(), "Task 1: settled — decision "))
}
