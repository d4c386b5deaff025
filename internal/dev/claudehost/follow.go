package claudehost

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// The follower (internal/dev/follower) over Claude Code's tools
// (harness.Adapter): the follower's tools are Claude Code's, by name
// (Bash, Read, Write, Skill, Agent), so each follower call is the one
// call of the same name, and what it gave back is what the follower
// reads, but for:
//
//	Skill  the result only says the skill loaded; the text comes beside
//	       it ("Base directory for this skill: DIR" and the body)
//	Agent  in the foreground (run_in_background: false, as the text
//	       asks), the report taken out of the host's hand-back; in the
//	       background, the notification waited for

// adapter is Claude Code as the shared scenarios drive it
// (harness.Host).
type adapter struct{}

// Host is Claude Code: its file of the skill is host-claude-code.md.
func (adapter) Host() string { return "claude-code" }

func (adapter) Facts() harness.Facts {
	return harness.Facts{
		Skill:    follower.DefaultSkill,
		OnPath:   true,
		Tiers:    true,
		AgentIDs: true,
		Reads:    harness.Whole,
		Micro:    true,
		Parallel: true,
		Calls:    harness.OneCallEach("Bash", "Read", "Skill", "Agent"),
	}
}

// Start makes a host for repo with the plugin installed, its sessions
// run with the rules a user gives sc's run (Scenario.UserRules): the
// controller's commands are pre-approved by the skill's allowed-tools
// alone.
func (adapter) Start(t *testing.T, repo string, sc follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	h.Allow = sc.UserRules()
	return &harness.Sessions{Machine: h.Machine, SkillDir: filepath.Join(h.Plugin, "skills", ship.SkillName), BinDir: filepath.Join(h.Plugin, "bin"),
		Session: func(prompt string, s scripted.Script) *harness.Played {
			return h.Run(prompt, scripted.As[Turns](s)).Played
		}}
}

func result(r scripted.Result) follower.Result {
	return follower.Result{Text: r.Text, IsError: r.IsError}
}

func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	return result(a.Call("Bash", map[string]any{"command": command}))
}

func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	return result(a.Call("Read", scripted.DropUnset(map[string]any{"file_path": path, "offset": offset, "limit": limit})))
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	return result(a.Call("Write", map[string]any{"file_path": path, "content": content}))
}

// Skill returns the text the host hands over with the Skill tool's
// result: "Base directory for this skill: <dir>" and the body.
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	r := a.Call("Skill", map[string]any{"skill": name})
	if r.IsError {
		return result(r)
	}
	for _, n := range r.Notes {
		if strings.HasPrefix(n, follower.BaseDirPrefix) {
			return follower.Result{Text: n}
		}
	}
	return follower.Result{Text: "the Skill tool handed over no skill text: " + r.Text, IsError: true}
}

// Agents dispatches the follower's subagents together: several Agent
// calls in one message, in the foreground, which Claude Code runs at
// once (host-claude-code.md, side by side).
func (adapter) Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult {
	t := &Turns{a}
	ds := make([]Dispatch, len(cs))
	for i, c := range cs {
		if c.Continue != "" || c.Background {
			a.Failf("%s: only new foreground dispatches go together", c.Description)
		}
		ds[i] = Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: c.Type, Model: c.Model, Run: RunForeground}
	}
	out := make([]follower.AgentResult, len(cs))
	for i, ag := range t.Agents(ds, subs) {
		out[i] = follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(ag.Report)}
	}
	return out
}

// Agent dispatches the follower's subagent with the Agent tool, on the
// model the dispatch names, in the foreground unless it asks for the
// background; there it waits for the agent's notification.
func (adapter) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	t := &Turns{a}
	if c.Continue != "" {
		a.Failf("%s: a fix round sent to agent %s, which this adapter cannot do: Claude Code continues a subagent only with SendMessage, in the background (host-claude-code.md: a fix round is a new implementer)", c.Description, c.Continue)
	}
	run := RunForeground
	if c.Background {
		run = RunBackground
	}
	ag := t.Agent(Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: c.Type, Model: c.Model, Run: run}, sub)
	if !c.Background {
		return follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(ag.Report)}
	}
	n := t.Wait(ag)
	if n.Status != "completed" {
		a.Failf("%s ended %s: %q", ag.Description, n.Status, scripted.Clip(n.Result, 300))
	}
	return follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(n.Result)}
}
