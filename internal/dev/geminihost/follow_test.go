package geminihost

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as the CLI's generalist (invoke_agent), the skill and its policy
// installed by the project's installer, with the rules and the setting a
// user gives a headless run (userRules, Settings).
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }

// CheckWalkThrough: every dispatch is the generalist.
func (adapter) CheckWalkThrough(t *testing.T, s *harness.Sessions, p *harness.Played) {
	for _, c := range s.Server.Calls(p.Conversation) {
		if c.Name == "invoke_agent" {
			assert.Equal(t, Agent, c.Str("agent_name"))
		}
	}
}
