package copilothost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

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
