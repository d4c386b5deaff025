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
	"github.com/sdd-go/sdd-go/internal/dev/ship"
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

// The skill's token budgets, as `claude plugin details` estimates them.
const (
	alwaysOnBudget = ship.AlwaysOnBudget
	onInvokeBudget = ship.OnInvokeBudget
)

// TestPluginTokenCost measures the installed plugin's skill with the
// host's own estimate (the server answers count_tokens with 404).
func TestPluginTokenCost(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h := New(t, repo)
	d, err := h.PluginCost("sdd-go")
	require.NoError(t, err)
	c, ok := d.Components["subagent-driven-development"]
	require.True(t, ok, "the skill is a component of the plugin:\n%s", d.Output)
	t.Logf("sdd-go plugin: always-on %d tokens (skill %d), on-invoke %d tokens; budgets %d and %d", d.AlwaysOn, c.AlwaysOn, c.OnInvoke, alwaysOnBudget, onInvokeBudget)
	require.Positive(t, c.OnInvoke)
	for _, r := range h.Server.Requests() {
		assert.NotEqual(t, scripted.MessagesPath, r.Path, "plugin details asks no model")
	}
	assert.LessOrEqual(t, d.AlwaysOn, alwaysOnBudget, "always-on tokens of the whole plugin")
	assert.LessOrEqual(t, c.AlwaysOn, alwaysOnBudget, "always-on tokens of the skill")
	assert.LessOrEqual(t, c.OnInvoke, onInvokeBudget, "on-invoke tokens")
}

func TestParseDetails(t *testing.T) {
	out := `sdd-go 0.0.0-test
  Description: SDD helpers
  Source: sdd-go@skills-dir

Component inventory
  Skills (2)  subagent-driven-development, other
  Agents (0)

Projected token cost
  Always-on:   < 20 tok   added to every session

Per-component (rounded)
  component                    always-on  on-invoke
  subagent-driven-development        ~30      ~6.9k
  other                             < 20       ~110

  On-invoke cost is paid each time a skill or agent fires.
`
	d, err := ParseDetails(out)
	require.NoError(t, err)
	assert.Equal(t, 20, d.AlwaysOn)
	assert.Equal(t, map[string]Cost{
		"subagent-driven-development": {AlwaysOn: 30, OnInvoke: 6900},
		"other":                       {AlwaysOn: 20, OnInvoke: 110},
	}, d.Components)

	_, err = ParseDetails("sdd-go\n  Skills (1)\n")
	assert.Error(t, err)
	for cell, want := range map[string]int{"~8.4k": 8400, "< 20": 20, "~75": 75, "12": 12, "~1.2M": 1200000} {
		got, err := Tokens(cell)
		require.NoError(t, err, cell)
		assert.Equal(t, want, got, cell)
	}
	_, err = Tokens("many")
	assert.Error(t, err)
}
