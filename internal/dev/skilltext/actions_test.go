package skilltext

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// actions are the controller's calls as the text's steps (follower.Steps).
func actions(t *testing.T, skillDir string, calls []directCall) []string {
	t.Helper()
	if skillDir == "" {
		skillDir = filepath.Join(moduleRoot, "skill")
	}
	steps, err := follower.NewSteps(skillDir)
	require.NoError(t, err)
	var out []string
	for _, c := range calls {
		if c.Actor == "controller" {
			out = append(out, steps.Name(follower.Call{Tool: c.Tool, Input: c.Input, Model: c.Model}))
		}
	}
	return out
}

// TestActionsNameTheBlocks: the walk-through's calls by name, which is
// also skill/example.md's list of calls.
func TestActionsNameTheBlocks(t *testing.T) {
	t.Parallel()
	p, r := walk(t, "")
	require.Empty(t, p)
	require.Equal(t, []string{
		"Skill " + follower.DefaultSkill,
		"Read " + follower.HostFile("claude-code"),
		"Bash Look",
		"Read greet.md",
		"Bash Start the run+Start task N",
		"Agent implementer 1 (sonnet)",
		"Bash Package",
		"Agent reviewer 1 (sonnet)",
		"Bash ? sh check1.sh+Close+Start task N",
		"Agent implementer 2 (sonnet)",
		"Bash Package",
		"Agent reviewer 2 (sonnet)",
		"Agent fix 2 (sonnet)",
		"Bash Package",
		"Agent re-reviewer 2 (sonnet)",
		"Bash Record the round+Close+Start task N",
		"Agent implementer 3 (sonnet)",
		"Bash Package",
		"Agent reviewer 3 (sonnet)",
		"Bash Close+Final package",
		"Agent final reviewer 0 (opus)",
		"Bash Close+Finish",
		"Say",
	}, actions(t, "", r.calls))
}
