package claudehost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI, from the installed plugin, with only the permissions a user gives
// (the skill's allowed-tools for its commands; the plan's git and test
// commands for the subagents; no Bash for the controller): every
// dispatch in the foreground, so the whole run is one turn of the
// controller, in which the skill's commands stay pre-approved; every
// state of follower.Resumes a new `claude -p` session.
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }
