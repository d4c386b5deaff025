package plantask

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTasks(t *testing.T) {
	plan := "# P\n\n## Task 2: Second\nx\n```\n## Task 9: in a fence\n```\n### Task 1. First one  \r\n## Task 2: again\n#### Task\t3\n# Tasks 4\n## task 5\n"
	got, err := Tasks(strings.NewReader(plan))
	require.NoError(t, err)
	assert.Equal(t, []Heading{{"2", "Second"}, {"1", "First one"}, {"3", ""}}, got)
}

// constraintsPlan has a Global Constraints section with a subsection and
// a fenced block whose shell comment looks like a heading, and a task
// whose fenced comment mentions constraints.
const constraintsPlan = "# Plan\n\n## Global Constraints\n- Use Go 1.22.\n```sh\n# build everything\ngo build ./...\n```\n- Never log secrets.\n\n### Limits\n- 1 MB.\n\n## Task 1: One\nDo one.\n```sh\n# check the constraints hold\nmake lint\n```\n"

const constraintsWant = "## Global Constraints\n- Use Go 1.22.\n```sh\n# build everything\ngo build ./...\n```\n- Never log secrets.\n\n### Limits\n- 1 MB.\n\n"

// TestConstraints: a constraints section is kept whole, fenced blocks and
// subsections included, and ends at a task heading or a heading of its
// level; a # line inside a fence is code, not a heading.
func TestConstraints(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Constraints(strings.NewReader(constraintsPlan), &b))
	assert.Equal(t, constraintsWant, b.String())

	// superpowers' writing-plans format: every task is deeper than the
	// constraints' heading, so only the task heading ends the section; the
	// rule that closes the plan's header ends it too, and is no constraint
	// (a rule inside the section, more of it after, stays).
	b.Reset()
	require.NoError(t, Constraints(strings.NewReader("# P\n\n## Global Constraints\n- a\n\n---\n\n### Task 1: X\nx\n## Other constraints\n- b\n- - -\n- c\n***\n"), &b))
	assert.Equal(t, "## Global Constraints\n- a\n\n\n## Other constraints\n- b\n- - -\n- c\n", b.String())
}
