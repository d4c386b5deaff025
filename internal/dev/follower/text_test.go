package follower

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sdd-go/sdd-go/internal/ledger"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skillDir is the repository's skill/.
func skillDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "skill")
}

func readSkill(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(skillDir(t), name))
	require.NoError(t, err)
	return string(b)
}

// The blocks the controller takes by name: every one must be in the
// text, once.
func TestTheTextHasEveryBlock(t *testing.T) {
	skill, err := ParseText(readSkill(t, "SKILL.md"))
	require.NoError(t, err)
	for _, name := range []string{"Look", "Start the run", "Start task N", "Implementer prompt", "Package",
		"Reviewer prompt", "Close", "Add a finding", "Fix prompt", "Re-reviewer prompt", "Record the round",
		"Final package", "Final reviewer prompt", "Finish"} {
		_, err := skill.Block(name)
		assert.NoError(t, err)
	}
	rare, err := ParseText(readSkill(t, "rare.md"))
	require.NoError(t, err)
	for _, name := range []string{"Earlier run, done", "Earlier run, to review", "Carry over", "Park", "Block"} {
		_, err := rare.Block(name)
		assert.NoError(t, err)
	}
	look, _ := skill.Block("Look")
	assert.Equal(t, "sdd-ledger look '<plan file>' '<start branch>'\n", look.Body)
	assert.Equal(t, "sh", look.Lang)
}

func TestParseSkill(t *testing.T) {
	s, err := ParseSkill("<system-reminder>x</system-reminder>\n" + BaseDirPrefix + "/p/my skill\n\n# T\n\n**Go** now:\n\n```sh\necho '<x>'\n```\n")
	require.NoError(t, err)
	assert.Equal(t, "/p/my skill", s.Dir)
	b, err := s.Block("Go")
	require.NoError(t, err)
	assert.Equal(t, "echo '<x>'\n", b.Body)
	_, err = ParseSkill("# T\n")
	assert.ErrorContains(t, err, "Base directory for this skill:")
}

func TestBlockNames(t *testing.T) {
	text := "Para with **First\nname** and **second**:\n\n```sh\na\n```\n\n" +
		"# Heading\n```text\nno name\n```\n\n" +
		"- **Item** in a list:\n\n  ```sh\n  b\n  ```\n"
	x, err := ParseText(text)
	require.NoError(t, err)
	assert.Equal(t, []string{"First name", "Item"}, x.Names())
	assert.Equal(t, "b\n", x.Blocks["Item"].Body)

	_, err = ParseText("**A**:\n```sh\na\n```\n**A** again:\n```sh\nb\n```\n")
	assert.ErrorContains(t, err, `two blocks are named "A"`)
	_, err = ParseText("**A**:\n```sh\na\n")
	assert.ErrorContains(t, err, "never closes")
}

// Fill replaces placeholders literally, in one pass, and refuses a block
// with a placeholder it has no value for.
func TestFill(t *testing.T) {
	b := Block{Name: "B", Body: "x '<a>' <b c> <a>\n"}
	s, err := b.Fill(Values{"<a>": "<b c>", "<b c>": "2"})
	require.NoError(t, err)
	assert.Equal(t, "x '<b c>' 2 <b c>\n", s, "a value is not read again")
	_, err = b.Fill(Values{"<a>": "1"})
	assert.EqualError(t, err, "block **B** has placeholders no value fills: <b c>")
	s, err = Block{Body: "awk '$1 <= lvl' <f>\n"}.Fill(Values{"<f>": "p"})
	require.NoError(t, err)
	assert.Equal(t, "awk '$1 <= lvl' p\n", s, "a comparison is no placeholder")
}

func TestTables(t *testing.T) {
	skill, err := ParseText(readSkill(t, "SKILL.md"))
	require.NoError(t, err)
	rows := skill.TableWith("Row")
	require.NotEmpty(t, rows)
	// A foreign ledger is told apart before anything else reads it.
	assert.Equal(t, "`ledger=other`", rows[0][1])
	for _, r := range rows {
		assert.Len(t, r, 3, "%q", r)
	}
	assert.NotEmpty(t, skill.TableWith("Dispatch"))
	rare, err := ParseText(readSkill(t, "rare.md"))
	require.NoError(t, err)
	assert.Len(t, rare.TableWith("Ruling"), 2)
}

// TestStateTableIsTheLedgers: SKILL.md's state table names the rows of
// internal/ledger, in its order, with the same conditions, string for
// string: the text and the command are one state machine, and a row
// added, removed, renamed or changed on one side alone fails here.
func TestStateTableIsTheLedgers(t *testing.T) {
	skill, err := ParseText(readSkill(t, "SKILL.md"))
	require.NoError(t, err)
	var text, code []string
	for _, r := range skill.TableWith("Row") {
		text = append(text, r[0]+" "+r[1])
	}
	for _, r := range ledger.Rows() {
		code = append(code, "`"+r.String()+"` `"+r.When()+"`")
	}
	assert.Equal(t, code, text)
}

func TestAnswerLabels(t *testing.T) {
	for file, want := range map[string][]string{
		"implementer-prompt.md":   {"Status", "Commits", "Tests", "Notes"},
		"task-reviewer-prompt.md": {"Spec", "Open", "Minor", "Not verifiable", "Review"},
		"re-review-prompt.md":     {"F<k>", "New", "Out of scope", "Review"},
	} {
		got, err := Answer(readSkill(t, file))
		require.NoError(t, err, file)
		assert.Equal(t, want, got, file)
	}
}

func TestFileText(t *testing.T) {
	// Claude Code 2.1.328 shows "a\n\tb\n" as three numbered pieces.
	assert.Equal(t, "a\n\tb\n", FileText("1\ta\n2\t\tb\n3\t"))
	assert.Equal(t, "a\nb", FileText("     1→a\r\n     2→b\n<system-reminder>x</system-reminder>"))
	assert.Equal(t, "", FileText("<system-reminder>empty</system-reminder>"))
}

func TestParseDispatch(t *testing.T) {
	d, ok := ParseDispatch("Fix round 2 of 5 for Task 3. Read /s/implementer-prompt.md, section \"Fix round\", and follow it.\nFix: F1 x\nReview: /w/r.md\n")
	require.True(t, ok)
	assert.Equal(t, Dispatch{Role: RoleFix, RoleFile: "/s/implementer-prompt.md", N: 3, R: 2,
		Fields: map[string]string{"Fix": "F1 x", "Review": "/w/r.md"}}, d)
	d, ok = ParseDispatch("You do the final review of the branch that carried out the plan p.md. Read /s/task-reviewer-prompt.md, section \"Final review\", and follow it.\n")
	require.True(t, ok)
	assert.Equal(t, RoleFinal, d.Role)
	// A skill under a folder whose name has a space (a home folder's):
	// the role file's path runs to its ".md".
	d, ok = ParseDispatch("You implement Task 1 of the plan docs/Read me.md. Read /home/A B/skill/implementer-prompt.md and follow it.\nBrief: /r/b.md\n")
	require.True(t, ok)
	assert.Equal(t, "/home/A B/skill/implementer-prompt.md", d.RoleFile)
	assert.Equal(t, RoleImplementer, d.Role)
	_, ok = ParseDispatch("Please implement the plan.")
	assert.False(t, ok)
}

func TestFindings(t *testing.T) {
	fs, err := parseFindings("F1 [Important] a.go:1 x; y; F12 [Spec] b missing")
	require.NoError(t, err)
	assert.Equal(t, []finding{{"F1", "Important", "a.go:1 x; y"}, {"F12", "Spec", "b missing"}}, fs)
	assert.Equal(t, "F1 a.go:1 x; y; F12 b missing", joinFindings(fs))
	fs, err = parseFindings("none")
	assert.NoError(t, err)
	assert.Empty(t, fs)
	_, err = parseFindings("a problem")
	assert.Error(t, err)
}

func TestParseOutput(t *testing.T) {
	out := "workspace: /r/.s/x-e\nbranch: f\nledger: none\n" +
		"moved?: /r/.s/x belongs to d/x.md, which no longer exists\n" +
		"old flat ledger: /r/.s/progress.md\n  | old line\ncommits since main, oldest first: 1\n  1 abc1234 one\n" +
		"Ledger: ledger=none row=new\n" +
		"Task 1: last=reviewed_head after=0 review=in pass=first spec=❌ open=1 round=0 row=fix\n" +
		"  implementer: a1\n  review: /r/.s/x-e/review-a..b.md\n  open: F1 a.go:1 x\n" +
		"Final: last=none after=- review=- pass=- spec=- open=0 round=0 row=final\nnext: Ledger row=new\n"
	o, err := parseOutput(out)
	require.NoError(t, err)
	assert.Equal(t, "/r/.s/x-e", o.workspace)
	assert.Equal(t, []moved{{"/r/.s/x", "d/x.md"}}, o.moved)
	assert.Equal(t, []string{"old line"}, o.flat)
	assert.Equal(t, []string{"1 abc1234 one"}, o.since)
	assert.Equal(t, "none", o.ledger)
	assert.Equal(t, "new", o.ledgerRow)
	require.Len(t, o.units, 2)
	u := o.units[0]
	assert.Equal(t, "Task 1", u.name)
	assert.Equal(t, "fix", u.row)
	assert.Equal(t, "1", u.facts["open"])
	assert.Equal(t, []string{"implementer: a1", "review: /r/.s/x-e/review-a..b.md", "open: F1 a.go:1 x"}, u.details)
	assert.Equal(t, []finding{{"F1", "", "a.go:1 x"}}, u.open)
	assert.Equal(t, "Ledger row=new", o.next)
}
