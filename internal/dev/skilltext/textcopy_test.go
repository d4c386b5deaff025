package skilltext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// textEdit replaces old, which must occur exactly once, by new in one file
// of a copy of skill/.
type textEdit struct{ file, old, new string }

// skillCopy copies skill/ into a temporary directory and applies edits:
// a mutation that must make the walk-through fail, or a workaround for a
// problem of the text (textFixes).
func skillCopy(t *testing.T, edits ...textEdit) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skill")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join(moduleRoot, "skill")
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	for _, e := range edits {
		text, ok := files[e.file]
		require.True(t, ok, "skill/%s", e.file)
		require.Equal(t, 1, strings.Count(text, e.old),
			"skill/%s must hold exactly once: %q\n(the text changed: if it now says what this edit wrote, drop the edit)", e.file, e.old)
		files[e.file] = strings.Replace(text, e.old, e.new, 1)
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

// textFixes are the text's problems this package found, each with the
// wording proposed to the lead, applied to a copy for the tests that meet
// the problem. Each edit's old text must still be in skill/: once the text
// is fixed, the test fails here and the fix is dropped (the test then runs
// on skill/ itself).
var textFixes = map[string][]textEdit{
	// Start the run copies the Global Constraints section up to the next
	// heading of its level or higher; in superpowers' own plan format
	// (writing-plans: `## Global Constraints`, then `### Task N: …`)
	// every task is deeper, so constraints.md is the whole plan.
	"constraints end at a task": {{file: "SKILL.md",
		old: `{ if (on && length($1) <= lvl) on = 0;`,
		new: `{ if (on && (length($1) <= lvl || $2 == "Task")) on = 0;`}},
	// A reader of a package under 256 KB reads it "once, completely"
	// with one Read, which returns at most 2000 lines: a package of
	// more lines (a few thousand lines of diff weigh 100-250 KB) is cut.
	"read in parts": {
		{file: "task-reviewer-prompt.md",
			old: "Read it once, completely. The prompt\n  gives its size: over 256 KB, a single Read is refused, so read it in\n  parts, `offset` and `limit` of 2000 lines at a time, until you have\n  read every line.",
			new: "Read it once, completely, in\n  parts: `offset` and `limit` of 2000 lines at a time, until a part comes\n  back shorter than 2000 lines (Read returns at most 2000 lines, and\n  refuses a file over 256 KB without `offset` and `limit`)."},
		{file: "re-review-prompt.md",
			old: "Read it once, completely (in\n  parts with `offset` and `limit`, 2000 lines at a time, when the prompt\n  says it is over 256 KB).",
			new: "Read it once, completely, in\n  parts: `offset` and `limit` of 2000 lines at a time, until a part comes\n  back shorter than 2000 lines."},
	},
	// A resumed controller that must dispatch a review again needs the
	// package's <bytes>, and Look lists the workspace without sizes.
	"look lists sizes": {{file: "SKILL.md",
		old: `echo 'workspace files:'; ls "$ws"`,
		new: `echo 'workspace files:'; ls -l "$ws"`}},
	// "none, or only its first line" comes before "first line names
	// another plan", so a foreign ledger of one line is taken for this
	// plan's: Start the run keeps its first line and appends this run's.
	"foreign first": {{file: "SKILL.md",
		old: "| none, or only its first line | Setup 4, then **Start the run** |\n| first line names another plan | stop, ask the human |\n",
		new: "| first line names another plan | stop, ask the human |\n| none, or only its first line | Setup 4, then **Start the run** |\n"}},
	// Earlier run, to review records the task's base and skips Start task
	// N, which writes the brief: the reviewer is sent a brief that does
	// not exist.
	"brief for the review": {{file: "resume.md",
		old: "printf 'Task <N>: base=%s\\n' \"$(git rev-parse \"$first^\")\" >> \"$L\"\n",
		new: "printf 'Task <N>: base=%s\\n' \"$(git rev-parse \"$first^\")\" >> \"$L\" && task-brief '<plan file>' <N>\n"}},
	// resume.md's rows for one or two `Final: reviewed_head=` lines do
	// not ask for the last line, so they come before, and take, a
	// ledger that ends `Final: complete` (a second Close appends the
	// final lines twice) or `Final: BLOCKED` (the run finishes anyway).
	"final rows": {
		{file: "resume.md",
			old: "| `Final: complete` | delete the workspace if it is still there; hand over |\n| `Final: BLOCKED` | stop: report to the human |\n",
			new: ""},
		{file: "resume.md",
			old: "| every task complete, no `Final:` line | the final package |\n",
			new: "| `Final: complete` | delete the workspace if it is still there; hand over |\n| `Final: BLOCKED` | stop: report to the human |\n| every task complete, no `Final:` line | the final package |\n"},
	},
	// The Resume table has no row for a first review that is in with
	// findings open and no fix yet, sends a re-review that is in to Close
	// without recording its round, and shadows resume.md's row for a
	// round without commits with "that review not in".
	"resume rows": {
		{file: "SKILL.md",
			old: "| last line `reviewed_head=`, that review not in | dispatch that review or re-review again |\n" +
				"| last line `reviewed_head=`, review in, nothing open | **Close** |\n",
			new: "| last line `reviewed_head=`, the same sha as the `reviewed_head=` before it | a round without commits: **Record the round** with `<X>` = 0 |\n" +
				"| last line `reviewed_head=`, that review not in | dispatch that review or re-review again |\n" +
				"| last line `reviewed_head=` of a re-review (not the task's first), its review in | **Record the round** from it, R being the last recorded round + 1 |\n" +
				"| last line `reviewed_head=`, review in, nothing open | **Close** |\n"},
		{file: "SKILL.md",
			old: "| last line `fix round R`, findings open, no commits after it, R < 5 | dispatch round R+1 |\n",
			new: "| last line `reviewed_head=` or `fix round R` (R = 0 without one), findings open, no commits after it, R < 5 | dispatch round R+1 |\n"},
		{file: "resume.md",
			old: "| last line `reviewed_head=`, the same sha as the `reviewed_head=` before it | a round without commits: record it with `<X>` = 0 |\n",
			new: ""},
	},
}

// fixedSkill is a copy of skill/ with the named textFixes applied.
func fixedSkill(t *testing.T, names ...string) string {
	t.Helper()
	var edits []textEdit
	for _, n := range names {
		e, ok := textFixes[n]
		require.True(t, ok, "no text fix %q", n)
		edits = append(edits, e...)
		t.Logf("on a copy of skill/ with the fix %q (the text's problem; see the report)", n)
	}
	return skillCopy(t, edits...)
}
