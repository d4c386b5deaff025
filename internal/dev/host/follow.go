package host

import (
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Follow is the controller of scenario sc as a session's script: the
// follower's literal reader of the skill text (internal/dev/follower),
// whose tool calls are the host's, and whose dispatches start the
// follower's subagents as the host's own subagents.
func Follow(sc follower.Scenario) Script {
	return func(a *Turns) { follower.Controller(sc)(&tools{a: a, sc: sc}) }
}

// FollowKeeping is Follow that copies the plan's workspace (every one
// under repo's .superpowers/sdd) into keep just before the call that runs
// Finish, which deletes it: what a test reads of the ledger and the files
// at the end. The copy is made once: a replay finds it made.
func FollowKeeping(sc follower.Scenario, repo, keep string) Script {
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, repo: repo, keep: keep})
	}
}

// FollowUntil is Follow cut after the controller's first calls tool calls:
// the session then ends its turn, as a controller whose context is lost
// stops, and a later session resumes from what is on disk.
func FollowUntil(sc follower.Scenario, calls int) Script {
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, left: calls, cut: true})
	}
}

// CutText is what a cut controller says last.
const CutText = "Stopping here: the run is cut."

// tools are the follower's Tools over one replay of a conversation.
type tools struct {
	a    *Turns
	sc   follower.Scenario
	left int // calls before the cut
	cut  bool
	repo string // FollowKeeping's repository and copy
	keep string
}

// call counts one tool call toward the cut; past it the turn ends for
// good (a host that wakes the conversation gets the same words again).
func (t *tools) call() {
	if !t.cut {
		return
	}
	if t.left == 0 {
		for {
			t.a.Say(CutText)
		}
	}
	t.left--
}

func result(r Result) follower.Result { return follower.Result{Text: r.Text, IsError: r.IsError} }

func (t *tools) Bash(command string) follower.Result {
	t.call()
	if t.keep != "" && follower.RunsFinish(command) {
		if err := follower.KeepWorkspaces(t.repo, t.keep); err != nil {
			t.a.Failf("%v", err)
		}
	}
	return result(t.a.Call("Bash", map[string]any{"command": command}))
}

func (t *tools) Read(path string, offset, limit int) follower.Result {
	t.call()
	in := map[string]any{"file_path": path}
	if offset > 0 {
		in["offset"] = offset
	}
	if limit > 0 {
		in["limit"] = limit
	}
	return result(t.a.Call("Read", in))
}

func (t *tools) Write(path, content string) follower.Result {
	t.call()
	return result(t.a.Call("Write", map[string]any{"file_path": path, "content": content}))
}

// Skill returns the text the host hands over with the Skill tool's
// result: "Base directory for this skill: <dir>" and the body.
func (t *tools) Skill(name string) follower.Result {
	t.call()
	r := t.a.Call("Skill", map[string]any{"skill": name})
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

// Agent dispatches the follower's subagent for the prompt, in the
// background (the host's default), and waits for its notification.
func (t *tools) Agent(c follower.AgentCall) follower.AgentResult {
	t.call()
	script, ok := t.sc.Subagent(c.Prompt)
	if !ok {
		t.a.Failf("a dispatch no subagent of the follower answers: %q", scripted.Clip(c.Prompt, 300))
	}
	run := RunForeground
	if c.Background {
		run = RunBackground
	}
	ag := t.a.Agent(Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: c.Type, Model: c.Model, Run: run}, t.subagent(script))
	if !c.Background {
		return follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(ag.Report)}
	}
	return follower.AgentResult{ID: ag.ID, Reply: t.wait(ag)}
}

// wait ends the controller's turns until ag's notification comes, and
// returns the subagent's final text.
func (t *tools) wait(ag Agent) string {
	n := t.a.Wait(ag)
	if n.Status != "completed" {
		t.a.Failf("%s ended %s: %q", ag.Description, n.Status, scripted.Clip(n.Result, 300))
	}
	return strings.TrimSpace(n.Result)
}

// subagent is a dispatched subagent's conversation: the follower's script
// for its prompt, its reply said as its final text.
func (t *tools) subagent(first follower.Script) Script {
	sc := t.sc
	return func(a *Turns) {
		reply := first(&tools{a: a, sc: sc})
		for {
			a.Say(reply)
		}
	}
}

func (t *tools) Say(text string) {
	for {
		t.a.Say(text)
	}
}

// Host is Claude Code: its file of the skill is host-claude-code.md.
func (t *tools) Host() string { return "claude-code" }
