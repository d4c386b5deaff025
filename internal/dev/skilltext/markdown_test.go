package skilltext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFencesNestedAndLines(t *testing.T) {
	text := "intro\n" +
		"````text\n" +
		"outer\n" +
		"```sh\n" +
		"echo hi\n" +
		"```\n" +
		"````\n" +
		"after `code`\n" +
		"~~~\n" +
		"tilde\n" +
		"~~~\n"
	fs := Fences(text)
	require.Len(t, fs, 3)
	assert.Equal(t, Fence{Info: "text", Body: "outer\n```sh\necho hi\n```\n", Line: 2, End: 7, Depth: 0}, fs[0])
	assert.Equal(t, Fence{Info: "sh", Body: "echo hi\n", Line: 4, End: 6, Depth: 1}, fs[1])
	assert.Equal(t, "tilde\n", fs[2].Body)
	assert.Equal(t, 9, fs[2].Line)

	spans := InlineCode(text)
	require.Len(t, spans, 1, "code inside fences is not inline code")
	assert.Equal(t, Span{Text: "code", Line: 8}, spans[0])
}

func TestFrontMatterParser(t *testing.T) {
	fm, body, err := FrontMatter("---\nname: x\ndescription: \"Use when: quoted\"\n---\n# Title\n")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"name": "x", "description": "Use when: quoted"}, fm)
	assert.Equal(t, "# Title\n", body)

	for name, bad := range map[string]string{
		"no opening":    "name: x\n---\n",
		"no closing":    "---\nname: x\n",
		"colon space":   "---\ndescription: Use when: unquoted\n---\n",
		"duplicate key": "---\nname: a\nname: b\n---\n",
		"not a pair":    "---\njust text\n---\n",
		"block scalar":  "---\ndescription: >\n  folded\n---\n",
	} {
		_, _, err := FrontMatter(bad)
		assert.Error(t, err, name)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"7. The fix loop (at most 5 rounds)": "7-the-fix-loop-at-most-5-rounds",
		"Without the commands":               "without-the-commands",
		"Setup":                              "setup",
		"`task-brief` and friends":           "task-brief-and-friends",
	} {
		assert.Equal(t, want, Slug(in), in)
	}
}

func TestParseShVariablesAndCommands(t *testing.T) {
	src := "L='<ws>/progress.md'  # a comment: $nope\n" +
		"for m in <minors>; do printf '%s\\n' \"$m\"; done >> \"$L\"\n" +
		"set -- $(sed -n 's/^(x)=//p' \"$L\" | tail -n 2)\n" +
		"case ${f##*/} in \"$root\") a=1 ;; *) cd \"$(dirname \"$p\")\" ;; esac\n" +
		"x=${y:=z} && echo \"${dir#\"$root\"/}\" '$single' \\$escaped $((i + 1)) `echo $bq`\n"
	s, err := parseSh(src)
	require.NoError(t, err)
	var refs []string
	for _, r := range s.refs {
		refs = append(refs, r.name)
	}
	assert.Equal(t, []string{"m", "L", "L", "f", "root", "p", "dir", "root", "i", "bq"}, refs, "${y:=z} sets y")
	for _, n := range []string{"L", "m", "@", "a", "x", "y"} {
		assert.True(t, s.assigned[n], "%s is set", n)
	}
	assert.False(t, s.assigned["root"])
	var cmds []string
	for _, c := range s.cmds {
		cmds = append(cmds, fmt.Sprintf("%s/%d/%d", c.name(), c.line, c.depth))
	}
	assert.Equal(t, []string{"printf/2/0", "sed/3/1", "tail/3/1", "set/3/0", "dirname/4/1", "cd/4/0", "echo/5/1", "echo/5/0"}, cmds,
		"a substitution's commands come before the command that holds it")
	assert.Equal(t, []string{"<minors>"}, rawWords(s.cmds[0].loops["m"]), "the printf runs in the loop over <minors>")
	require.Len(t, s.redirs, 1)
	assert.Equal(t, `"$L"`, s.redirs[0].target.raw)
	assert.Equal(t, 2, s.redirs[0].line)

	v, err := shEval(s.cmds[7].words[1], func(n string) (string, error) { return "<" + n + ">", nil }, nil)
	require.Error(t, err, "an expansion with an operator is not evaluated")
	assert.Empty(t, v)
	w := s.cmds[0].words[2]
	v, err = shEval(w, func(n string) (string, error) { return "[" + n + "]", nil }, nil)
	require.NoError(t, err)
	assert.Equal(t, "[m]", v)

	for _, bad := range []string{"echo 'open", "echo \"open", "x=$(echo", "cat <<EOF\nx\nEOF\n", "echo ${"} {
		_, err := parseSh(bad)
		assert.Error(t, err, bad)
	}
}

func rawWords(ws []shWord) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.raw)
	}
	return out
}

func TestBoldsAndBlockNames(t *testing.T) {
	text := "Intro **Not a lead**.\n" +
		"\n" +
		"1. **Label.** then **Step one**\n" +
		"   continues **Two\n" +
		"   words**:\n" +
		"\n" +
		"   ```sh\n" +
		"   echo\n" +
		"   ```\n" +
		"\n" +
		"| a | **Cell** |\n" +
		"|---|---|\n" +
		"| **First cell** | x |\n"
	var got []string
	for _, u := range bolds(text) {
		got = append(got, fmt.Sprintf("%s@%d/%v", u.Text, u.Line, u.Leading))
	}
	assert.Equal(t, []string{"Not a lead@1/false", "Label.@3/true", "Step one@3/false", "Two words@4/false", "Cell@11/false", "First cell@13/false"}, got)
	bs := skillText{"f.md": text}.blocks("f.md")
	require.Len(t, bs, 1)
	assert.Equal(t, "Label.", bs[0].Name, "the first bold phrase of the paragraph before the fence")
}

func TestParseLedgerThirdEdition(t *testing.T) {
	sha := func(c byte) string { return strings.Repeat(string(c), 40) }
	short := func(c byte) string { return strings.Repeat(string(c), 7) }
	head := IdentityPrefix + "p.md\n"
	// Task 1: two fix rounds, the second without commits.
	task1 := "Task 1: base=" + sha('a') + "\n" +
		"Task 1: implementer=impl-1\n" +
		"Task 1: reviewed_head=" + sha('b') + "\n" +
		"Task 1: minor (deferred): a - b\n" +
		"Task 1: reviewed_head=" + sha('c') + "\n" +
		"Task 1: fix round 1/5 (0 addressed, 1 open — F1 x; commits " + short('b') + ".." + short('c') + ")\n" +
		"Task 1: reviewed_head=" + sha('c') + "\n" +
		"Task 1: fix round 2/5 (1 addressed, 0 open — none; commits " + short('c') + ".." + short('c') + ")\n" +
		"Task 1: complete (commits " + short('a') + ".." + short('c') + ", review clean)\n"
	final := "Final: base=" + sha('a') + "\n" +
		"Final: reviewed_head=" + sha('c') + "\n" +
		"Final: minor (deferred): naming\n" +
		"Final: reviewed_head=" + sha('d') + "\n" +
		"Final: parked — F1 dup — ruling: harmless\n" +
		"Final: complete (commits " + short('a') + ".." + short('d') + ", 1 parked)\n"
	l, err := ParseLedger(head+task1+final, protocolFormats)
	require.NoError(t, err)
	assert.True(t, l.Done(1))
	assert.Equal(t, []string{sha('b'), sha('c'), sha('c')}, l.Tasks[1].ReviewedHeads)
	assert.Equal(t, sha('c'), l.FixBase(1))
	assert.Equal(t, 3, l.NextRound(1))
	assert.Equal(t, []string{"naming"}, l.Final.Minors)
	assert.True(t, l.Final.Complete)

	earlier := "Task 1: base=" + sha('a') + "\nTask 1: reviewed_head=" + sha('b') + "\n" +
		"Task 1: complete (commits " + short('a') + ".." + short('b') + ", earlier run, human confirmed)\n"
	_, err = ParseLedger(head+earlier, protocolFormats)
	require.NoError(t, err)

	base := head + "Task 1: base=" + sha('a') + "\nTask 1: reviewed_head=" + sha('b') + "\n"
	for name, text := range map[string]string{
		"a third head without a round": base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: reviewed_head=" + sha('d') + "\n",
		"a round without its head":     base + "Task 1: fix round 1/5 (1 addressed, 0 open — none; commits " + short('b') + ".." + short('b') + ")\n",
		"a round from the wrong head":  base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: fix round 1/5 (1 addressed, 0 open — none; commits " + short('a') + ".." + short('c') + ")\n",
		"a round to the wrong head":    base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: fix round 1/5 (1 addressed, 0 open — none; commits " + short('b') + ".." + short('b') + ")\n",
		"complete mid-round":           base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: complete (commits " + short('a') + ".." + short('c') + ", review clean)\n",
		"complete to an old head":      base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: fix round 1/5 (1 addressed, 0 open — none; commits " + short('b') + ".." + short('c') + ")\nTask 1: complete (commits " + short('a') + ".." + short('b') + ", review clean)\n",
		"open findings left":           base + "Task 1: reviewed_head=" + sha('c') + "\nTask 1: fix round 1/5 (0 addressed, 1 open — F1 x; commits " + short('b') + ".." + short('c') + ")\nTask 1: complete (commits " + short('a') + ".." + short('c') + ", review clean)\n",
		"parked before round 5":        base + "Task 1: parked — F1 — ruling: meh\n",
		"a full sha in a range":        base + "Task 1: complete (commits " + sha('a') + ".." + short('b') + ", review clean)\n",
		"a short base":                 head + "Task 1: base=" + short('a') + "\n",
		"a hyphen":                     base + "Task 1: BLOCKED - stuck\n",
		"a line after complete":        head + earlier + "Task 1: minor (deferred): late\n",
		"final before a task is done":  base + "Final: base=" + sha('a') + "\n",
		"a third final head":           head + earlier + "Final: base=" + sha('a') + "\nFinal: reviewed_head=" + sha('b') + "\nFinal: reviewed_head=" + sha('c') + "\nFinal: reviewed_head=" + sha('d') + "\n",
		"a task line after final":      head + earlier + "Final: base=" + sha('a') + "\nTask 2: base=" + sha('b') + "\n",
		"no identity":                  "Task 1: base=" + sha('a') + "\n",
	} {
		_, err := ParseLedger(text, protocolFormats)
		assert.Error(t, err, name)
	}
}
