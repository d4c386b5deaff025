package host

import (
	"encoding/json"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// Follow is the controller of scenario sc as a session's script: the
// follower's literal reader of the skill text (internal/dev/follower),
// whose tool calls are the host's, and whose dispatches start the
// follower's subagents as the host's own subagents.
func Follow(sc follower.Scenario) Script {
	return func(a *Turns) { follower.Controller(sc)(&tools{a: a, sc: sc}) }
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
	a      *Turns
	sc     follower.Scenario
	agents map[string]Agent // the subagents this replay dispatched, by agent id
	left   int              // calls before the cut
	cut    bool
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
		t.a.Failf("a dispatch no subagent of the follower answers: %q", clip(c.Prompt, 300))
	}
	ag := t.a.Agent(Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: c.Type, Model: c.Model}, t.subagent(script))
	if t.agents == nil {
		t.agents = map[string]Agent{}
	}
	t.agents[ag.ID] = ag
	return follower.AgentResult{ID: ag.ID, Reply: t.wait(ag)}
}

// wait ends the controller's turns until ag's notification comes, and
// returns the subagent's final text.
func (t *tools) wait(ag Agent) string {
	n := t.a.Wait(ag)
	if n.Status != "completed" {
		t.a.Failf("%s ended %s: %q", ag.Description, n.Status, clip(n.Result, 300))
	}
	return strings.TrimSpace(n.Result)
}

// subagent is a dispatched subagent's conversation: the follower's script
// for its prompt, its reply said as its final text, then, each time the
// controller continues it (SendMessage), the script for the new message.
func (t *tools) subagent(first follower.Script) Script {
	sc := t.sc
	return func(a *Turns) {
		st := &tools{a: a, sc: sc}
		reply := first(st)
		for {
			notes := a.Say(reply)
			msg := dispatchIn(notes)
			s, ok := sc.Subagent(msg)
			if !ok {
				a.Failf("the subagent was continued with a message no script answers: %q", clip(strings.Join(notes, "\n"), 300))
			}
			reply = s(st)
		}
	}
}

// dispatchIn finds a dispatch in what the host delivered to a continued
// subagent: from the first line ParseDispatch takes to the end.
func dispatchIn(notes []string) string {
	for _, n := range notes {
		lines := strings.Split(n, "\n")
		for i := range lines {
			msg := strings.Join(lines[i:], "\n")
			if _, ok := follower.ParseDispatch(msg); ok {
				return msg
			}
		}
	}
	return ""
}

func (t *tools) ToolSearch(query string) follower.Result {
	t.call()
	return result(t.a.Call("ToolSearch", map[string]any{"query": query}))
}

// SendMessage continues a subagent this session dispatched and waits for
// its next notification.
func (t *tools) SendMessage(to, message string) follower.AgentResult {
	t.call()
	first, _, _ := strings.Cut(message, "\n")
	ag, ok := t.agents[to]
	if !ok {
		// An id from an earlier session (a resume): the host is asked all
		// the same, and refuses, not with an error but with a result
		// that says so: {"success":false,"message":"Agent … could not be
		// resumed: No transcript found for agent ID: …"}.
		r := t.a.Call("SendMessage", map[string]any{"to": to, "summary": clip(first, 80), "message": message})
		var answer struct {
			Success bool `json:"success"`
		}
		if !r.IsError && (json.Unmarshal([]byte(r.Text), &answer) != nil || answer.Success) {
			t.a.Failf("SendMessage to %s, which this session did not dispatch, was taken: %q", to, clip(r.Text, 300))
		}
		return follower.AgentResult{ID: to, Refused: true}
	}
	t.a.SendMessage(to, clip(first, 80), message)
	return follower.AgentResult{ID: to, Reply: t.wait(ag)}
}

func (t *tools) Say(text string) {
	for {
		t.a.Say(text)
	}
}
