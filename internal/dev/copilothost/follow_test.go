package copilothost

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as Copilot's own (task), the skill installed by the project's
// installer, with the permissions a user gives a non-interactive run
// (userRules).
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{Completions}) }

// TestFollowResponses runs them with the model on the Responses API
// (COPILOT_PROVIDER_WIRE_API=responses, scripted.Responses), but the
// resumes.
func TestFollowResponses(t *testing.T) { harness.RunScenarios(t, adapter{Responses}) }

// CheckWalkThrough: every dispatch is Copilot's general-purpose agent,
// and names no model (the text's tiers name none here).
func (adapter) CheckWalkThrough(t *testing.T, s *harness.Sessions, p *harness.Played) {
	for _, c := range s.Server.Calls(p.Conversation) {
		if c.Name == "task" {
			assert.Equal(t, AgentType, c.Str("agent_type"))
			assert.Empty(t, c.Str("model"))
		}
	}
}
