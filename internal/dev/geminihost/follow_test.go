package geminihost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as the CLI's generalist (invoke_agent), the skill and its policy
// installed by the project's installer, with the rules and the setting a
// user gives a headless run (userRules, Settings).
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }
