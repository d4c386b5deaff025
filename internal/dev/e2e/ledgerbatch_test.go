package e2e

// Batches of small tasks (docs/spec.md ld6, ld7; docs/protocol.md,
// "Batches of small tasks"): look proposes consecutive small tasks of one
// shape, task N LAST starts them as one batch (one brief, one base), and
// the batch's one close completes each of its tasks.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// microPlan is a plan of n tasks, each the same one-line edit of its own
// file, as superpowers' writing-plans writes tasks; then one ordinary task.
func microPlan(n int) string {
	var b strings.Builder
	b.WriteString("# Color Implementation Plan\n\n**Goal:** spell color one way.\n\n## Global Constraints\n- American spelling.\n\n---\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "### Task %d: Spell color in f%d\n\n**Files:**\n- Modify: `src/f%d.txt:1`\n\n- [ ] **Step 1: Replace colour with color**\n\n```text\ncolor\n```\n\n- [ ] **Step 2: Commit**\n\n```bash\ngit commit -am \"f%d: color\"\n```\n\n", i, i, i, i)
	}
	fmt.Fprintf(&b, "### Task %d: Document it\n\nWrite docs/color.md explaining the rule, with an example.\n", n+1)
	return b.String()
}

func newMicroRun(t *testing.T, n int) *ledgerRun {
	r := testutil.NewRepo(t)
	r.Commit("plan", "plan.md", microPlan(n))
	r.Git("checkout", "-q", "-b", "feat")
	return &ledgerRun{t: t, r: r}
}

// commitMicro commits micro-plan Tasks first to last, one commit each.
func (l *ledgerRun) commitMicro(first, last int) {
	l.t.Helper()
	for i := first; i <= last; i++ {
		l.r.Commit(fmt.Sprintf("f%d: color", i), fmt.Sprintf("src/f%d.txt", i), "color\n")
	}
}

func TestLedgerBatchRun(t *testing.T) {
	t.Parallel()
	l := newMicroRun(t, 8)
	l.run("start", "plan.md")
	out := l.look()
	assert.Contains(t, out, "\nbatch?: Tasks 1, 2, 3, 4, 5, 6, 7, 8 (each short")
	out = l.run("task", "plan.md", "1", "8")
	assert.Contains(t, out, "recorded Task 1: batch — Tasks 1, 2, 3, 4, 5, 6, 7, 8\n")
	assert.Contains(t, out, "recorded Task 8: batched — in Task 1\n")
	assert.Contains(t, out, "Task 1: last=base after=0 ")
	brief := readFile(t, filepath.Join(ws(l.r, "plan"), "task-1-brief.md"))
	for i := 1; i <= 8; i++ {
		assert.Equal(t, 1, strings.Count(brief, fmt.Sprintf("### Task %d: Spell color in f%d\n", i, i)), "the brief holds Task %d once", i)
	}
	assert.NotContains(t, brief, "Task 9", "nor a task outside the batch")
	assert.Less(t, strings.Index(brief, "### Task 2:"), strings.Index(brief, "### Task 3:"), "in plan order")
	out = l.look()
	assert.Contains(t, out, "Task 2: last=batched after=- review=- pass=- spec=- open=0 round=0 left=5 shas=ok plan=ok needs=- row=batched\n")
	assert.Contains(t, out, "next: Task 1 row=implement\n")
	l.fails(5, "block", "plan.md", "2", "x")
	l.fails(5, "task", "plan.md", "9")
	l.commitMicro(1, 8)
	l.review(l.run("package", "plan.md", "1", "a1"), "Spec: ✅\nOpen: none\nMinor: Task 3: a trailing newline would read better\nNot verifiable: none\nReview: r.md\n")
	out = l.run("close", "plan.md", "1")
	for i := 1; i <= 8; i++ {
		assert.Regexp(t, fmt.Sprintf(`(?m)^recorded Task %d: complete \(commits [0-9a-f]+\.\.[0-9a-f]+, review clean%s\)$`, i, map[bool]string{true: "", false: ", with Task 1"}[i == 1]), out)
	}
	out = l.look()
	assert.Contains(t, out, "next: Task 9 row=start\n")
	assert.NotContains(t, out, "batch?:", "one task left: no batch")
}

func TestLedgerBatchRefused(t *testing.T) {
	t.Parallel()
	l := newMicroRun(t, 11)
	l.run("start", "plan.md")
	out := l.look()
	assert.Contains(t, out, "\nbatch?: Tasks 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 (", "ten at most")
	assert.NotContains(t, out, "batch?: Tasks 11", "one task left over makes no batch")
	assert.Contains(t, l.fails(5, "task", "plan.md", "1", "11"), "a batch holds at most 10")
	assert.Contains(t, l.fails(2, "task", "plan.md", "3", "2"), "does not come after")
	assert.Contains(t, l.fails(2, "task", "plan.md", "1", "99"), "has no Task 99")
	l.run("task", "plan.md", "1")
	assert.Contains(t, l.fails(5, "task", "plan.md", "1", "3"), "row")

	// A task whose text shows it unfit (no Files list naming its files):
	// refused, and never proposed.
	l = newMicroRun(t, 1)
	l.run("start", "plan.md")
	assert.NotContains(t, l.look(), "batch?:")
	assert.Contains(t, l.fails(5, "task", "plan.md", "1", "2"), "Task 2 cannot join a batch: it has no Files list")
}
