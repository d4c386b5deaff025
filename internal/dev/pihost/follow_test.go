package pihost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as the agents of Pi's subagent extension (the subagent tool), the
// skill, the extension and its agent installed by the project's
// installer.
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }
