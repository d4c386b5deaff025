package plantask

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graphTask is a task as writing-plans writes one: its Files list, its
// Interfaces, a step with a git add.
func graphTask(n int, files, interfaces, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Task %d: Part %d\n\n", n, n)
	if files != "" {
		b.WriteString("**Files:**\n" + files + "\n\n")
	}
	if interfaces != "" {
		b.WriteString("**Interfaces:**\n" + interfaces + "\n\n")
	}
	b.WriteString(body + "\n\n- [ ] **Step 1: Commit**\n\n```bash\ngit commit -m \"part\"\n```\n\n")
	return b.String()
}

// TestNeeds: each rule of the waits, one task holding it.
func TestNeeds(t *testing.T) {
	plan := "# Plan\n\n## Global Constraints\n- none\n\n" +
		graphTask(1, "- Create: `src/parse.go`\n- Test: `src/parse_test.go`", "- Consumes: none\n- Produces: `Parse(s string) (int, error)`", "Write the parser.") +
		graphTask(2, "- Create: `src/color.go`", "", "Write the colors.") +
		graphTask(3, "- Modify: `src/parse.go:12-30`", "", "Fix the parser.") +
		graphTask(4, "- Create: `src/cli.go`", "- Consumes: `Parse` from the first task\n- Produces: none", "Call it.") +
		graphTask(5, "- Create: `docs/colors.md`", "", "Document what src/color.go does.") +
		graphTask(6, "- Create: `docs/after.md`", "", "Describe what Task 2 made.") +
		graphTask(7, "", "", "Tidy up whatever is left.") +
		graphTask(8, "- Create: `src/late.go`", "", "Something late.") +
		graphTask(9, "- Modify: `go.mod`", "", "Add a dependency.") +
		graphTask(10, "- Create: `pkg/`", "", "Make the package folder.") +
		graphTask(11, "- Create: `pkg/x.go`", "", "A file in it.") +
		graphTask(12, "- Create: `web/app.js`", "", "**Depends on:** Task 99\n\nThe app.") +
		graphTask(13, "- Create: `web/style.css`", "", "**Depends on:** Task 12\n\nStyle it.") +
		graphTask(14, "- Create: `web/x.css`\n", "", "```bash\ngit add web/x.css docs/plan.md\n```") +
		graphTask(15, "- Create: `docs/more.md`", "", "Say what ./src/parse.go holds. Then read src/color.go.")
	needs, err := Needs(strings.NewReader(plan), "docs/plan.md")
	require.NoError(t, err)
	require.Len(t, needs, 15)
	waits := map[string]string{}
	for _, n := range needs {
		waits[n.Task] = strings.Join(n.Waits, ",")
	}
	all := func(n int) string {
		var s []string
		for i := 1; i < n; i++ {
			s = append(s, fmt.Sprint(i))
		}
		return strings.Join(s, ",")
	}
	for task, want := range map[string]string{
		"1": "", "2": "", // nothing before the first; two files of their own
		"3":  "1",            // a file in common
		"4":  "1",            // consumes what Task 1 produces
		"5":  "2",            // names a path Task 2 writes
		"6":  "2",            // names Task 2
		"7":  all(7),         // no Files list: every earlier task
		"8":  "7",            // an earlier task without a Files list
		"9":  all(9),         // a file every task shares
		"10": "7,9",          // after a wide task
		"11": "7,9,10",       // a folder holding its path
		"12": all(12),        // Depends on a task the plan has not
		"13": "7,9,12",       // its Depends on, and the wide ones
		"14": all(14),        // its git add names the plan itself
		"15": "1,2,3,7,9,14", // paths others write, after ./ and before a full stop
	} {
		assert.Equal(t, want, waits[task], "Task %s", task)
	}
	assert.Equal(t, []string{"its Depends on names Task 99, which is no task before it: it waits for every earlier task"}, needs[11].Notes)
}

// TestNeedsOfAPlanWithoutFilesLists: nothing to tell tasks apart by, each
// waits for every earlier one: the serial run.
func TestNeedsOfAPlanWithoutFilesLists(t *testing.T) {
	needs, err := Needs(strings.NewReader("# P\n\n## Task 1: a\nx\n\n## Task 2: b\ny\n\n## Task 3: c\nz\n"), "p.md")
	require.NoError(t, err)
	assert.Equal(t, []Need{{Task: "1"}, {Task: "2", Waits: []string{"1"}}, {Task: "3", Waits: []string{"1", "2"}}}, needs)
}
