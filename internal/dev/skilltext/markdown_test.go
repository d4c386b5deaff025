package skilltext

import (
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

func TestInvocationsShellSyntax(t *testing.T) {
	text := "Run `task-brief PLAN_FILE N` and see `sdd-workspace`.\n" +
		"```sh\n" +
		"WS=$(sdd-workspace \"$PLAN_FILE\")   # a comment: review-package X\n" +
		"review-package \"$PLAN_FILE\" \"$BASE\" \"$(git rev-parse HEAD)\" > /dev/null 2>&1\n" +
		"echo task-brief is not called here\n" +
		"git log && task-brief \\\n" +
		"  plan.md 3 | cat\n" +
		"```\n"
	invs := Invocations(text, commandNames)
	type got struct {
		Cmd  string
		Args []string
		Line int
	}
	var gs []got
	for _, i := range invs {
		gs = append(gs, got{i.Cmd, i.Args, i.Line})
	}
	assert.Equal(t, []got{
		{"sdd-workspace", []string{`"$PLAN_FILE"`}, 3},
		{"review-package", []string{`"$PLAN_FILE"`, `"$BASE"`, `"$(git rev-parse HEAD)"`}, 4},
		{"task-brief", []string{"plan.md", "3"}, 6},
		{"task-brief", []string{"PLAN_FILE", "N"}, 1},
	}, gs)
}

// TestInvocationsPlaceholders: the text's one-word placeholders (<N>) are
// arguments, not redirections; quoted ones keep their quotes.
func TestInvocationsPlaceholders(t *testing.T) {
	invs := Invocations("```sh\ntask-brief '<plan file>' <N>\ncat < x | review-package '<plan file>' '<base sha>' '<head sha>' > out\n```\n", commandNames)
	require.Len(t, invs, 2)
	assert.Equal(t, []string{"'<plan file>'", "<N>"}, invs[0].Args)
	assert.Equal(t, []string{"'<plan file>'", "'<base sha>'", "'<head sha>'"}, invs[1].Args, "a real redirection still ends the command")
}

func TestParseUsage(t *testing.T) {
	u, ok := ParseUsage("usage: review-package PLAN_FILE BASE HEAD [OUTFILE]\n")
	require.True(t, ok)
	assert.Equal(t, Usage{Cmd: "review-package", Required: []string{"PLAN_FILE", "BASE", "HEAD"}, Optional: []string{"OUTFILE"}}, u)
	assert.Equal(t, "review-package PLAN_FILE BASE HEAD [OUTFILE]", u.String())
	_, ok = ParseUsage("Usage: x")
	assert.False(t, ok)
	_, ok = ParseUsage("usage: x [A] B")
	assert.False(t, ok, "a required argument after an optional one")
}

func TestFrontMatter(t *testing.T) {
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

func TestTemplatesPairing(t *testing.T) {
	text := "# T\n\n```text\nHello [NAME], see [FILE].\n```\n\nPlaceholders:\n\n- `[NAME]`: who\n- `[OTHER]`: spare\n\n## Next\n\nPlaceholders:\n"
	tpls, orphans := Templates(text)
	require.Len(t, tpls, 1)
	assert.Equal(t, []string{"[FILE]", "[NAME]"}, tpls[0].Used)
	assert.Equal(t, []string{"[NAME]", "[OTHER]"}, tpls[0].Listed)
	assert.Equal(t, []int{14}, orphans)
}
