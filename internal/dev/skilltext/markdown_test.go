package skilltext

import (
	"fmt"
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
