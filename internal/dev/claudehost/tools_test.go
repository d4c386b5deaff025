package claudehost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestTools runs every call a script can make against the real CLI, the
// ones phase 2's scenarios need beyond the smoke run: a partial Read, an
// Edit, a foreground Agent and its report, and a finished subagent
// continued through ToolSearch and SendMessage.
func TestTools(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h := New(t, repo)
	h.Allow = append(h.Allow, "Write", "Edit")
	notes := filepath.Join(repo, "notes.txt")
	const prompt = "Exercise the tools."
	helper := func(a *scripted.Turns) {
		more := a.Say("REPORT 1")
		if !strings.Contains(strings.Join(more, "\n"), "Send the second report.") {
			a.Failf("the continued helper got %q", more)
		}
		a.Say("REPORT 2")
	}
	controller := func(a *Turns) {
		a.Write(notes, "one\ntwo\nthree\n")
		if part := a.ReadPart(notes, 2, 1); !strings.Contains(part, "two") || strings.Contains(part, "one") || strings.Contains(part, "three") {
			a.Failf("Read of line 2 alone gave %q", part)
		}
		a.Edit(notes, "two", "TWO")
		ag := a.Agent(Dispatch{Description: "Helper", Prompt: "You are the helper. Report.", SubagentType: "general-purpose", Model: "haiku", Run: RunForeground}, helper)
		if ag.Report != "REPORT 1" || ag.ID == "" {
			a.Failf("foreground agent: id %q, report %q from %q", ag.ID, ag.Report, ag.Result.Text)
		}
		a.ToolSearch("select:SendMessage")
		a.SendMessage(ag.ID, "ask for the second report", "Send the second report.")
		if n := a.Wait(ag); n.Result != "REPORT 2" {
			a.Failf("the continued helper's notification: %+v", n)
		}
		a.Say("All tools answered.")
	}
	s := h.Run(prompt, controller)
	assert.Equal(t, "All tools answered.", s.Final)
	b, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "one\nTWO\nthree\n", string(b))
}
