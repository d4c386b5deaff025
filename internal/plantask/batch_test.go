package plantask

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// microTask is a task as superpowers' writing-plans writes one: its files
// listed, the change spelled out, a commit.
func microTask(n int, extra string) string {
	return fmt.Sprintf("### Task %d: Spell color in f%d\n\n**Files:**\n- Modify: `src/f%d.txt:1`\n\n**Interfaces:**\n- Consumes: none\n- Produces: none\n\n"+
		"- [ ] **Step 1: Replace the word**\n\n```text\ncolor\n```\n%s\n- [ ] **Step 2: Commit**\n\n```bash\ngit commit -am \"f%d: color\"\n```\n\n", n, n, n, extra, n)
}

func TestTexts(t *testing.T) {
	plan := "# P\n\n## Global Constraints\n- x\n\n" + microTask(1, "") + microTask(2, "") + "### Task 3: Big\n" + strings.Repeat("line\n", 1000)
	texts, cut, err := Texts(strings.NewReader(plan), []string{"2", "3", "9"}, 4096)
	require.NoError(t, err)
	assert.Equal(t, microTask(2, ""), texts["2"])
	assert.True(t, cut["3"], "task 3 is over 4096 bytes")
	assert.False(t, cut["2"])
	_, ok := texts["9"]
	assert.False(t, ok, "no task 9")
	// The same text task-brief extracts.
	var b strings.Builder
	_, err = Extract(strings.NewReader(plan), &b, "2")
	require.NoError(t, err)
	assert.Equal(t, b.String(), texts["2"])
}

// TestUnbatchable: the mechanical signals, each refusing on its own.
func TestUnbatchable(t *testing.T) {
	assert.Equal(t, "", Unbatchable(microTask(1, ""), false))
	for want, text := range map[string]string{
		"over 40 lines":        microTask(1, strings.Repeat("more\n", 40)),
		"no Files list":        "## Task 2: Farewell\nCreate bye.txt containing `bye`.\n",
		"a test of its own":    strings.Replace(microTask(1, ""), "- Modify: `src/f1.txt:1`", "- Modify: `src/f1.txt:1`\n- Test: `src/f1_test.go`", 1),
		"a step of it":         microTask(1, "\n- [ ] **Step 3: Write the failing test**\n"),
		"later tasks build on": strings.Replace(microTask(1, ""), "- Produces: none", "- Produces: `Color() string`", 1),
		"names 3 files":        strings.Replace(microTask(1, ""), "- Modify: `src/f1.txt:1`", "- Modify: `a`\n- Modify: `b`\n- Create: `c`", 1),
		// A Files entry of tests, however the plan spells its role.
		"a test of its own, Tests": strings.Replace(microTask(1, ""), "- Modify: `src/f1.txt:1`", "- Modify: `src/f1.txt:1`\n- Tests: `src/f1_test.go`", 1),
		// A Produces whose items are a nested list (issue 36, item 6).
		"later tasks build on, nested":   strings.Replace(microTask(1, ""), "- Produces: none", "- Produces:\n  - `Color() string`\n  - `Palette`", 1),
		"its text is over 40 lines, cut": microTask(1, ""),
	} {
		cut := strings.HasSuffix(want, ", cut")
		want := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(want, ", cut"), ", Tests"), ", nested")
		assert.Contains(t, Unbatchable(text, cut), want, text)
	}
	// A bare Produces: with nothing under it produces nothing.
	assert.Equal(t, "", Unbatchable(strings.Replace(microTask(1, ""), "- Produces: none", "- Produces:\n  - none", 1), false))
}
