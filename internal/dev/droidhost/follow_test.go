package droidhost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as Droid's worker (Task, awaited), the skill and its allowlist
// installed by the project's installer, in droid exec --auto high with
// the subagents at medium (UserSettings).
func TestFollow(t *testing.T) { harness.RunScenarios(t, droid) }
