package harness

import (
	"encoding/json"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Adapter is how one host does the follower's tools (follower.Tools),
// with the host's own calls over a conversation's Turns: what a model of
// that host does for a Bash, a Read, a Write, a Skill and a dispatch, and
// what the follower is shown of it. The cut, the copy before Finish, the
// subagents' conversations and the last words are the same for every
// host (Follow).
type Adapter interface {
	// Host is the host's name as its file of the skill is named
	// (host-<name>.md).
	Host() string
	Bash(a *scripted.Turns, command string) follower.Result
	Read(a *scripted.Turns, path string, offset, limit int) follower.Result
	Write(a *scripted.Turns, path, content string) follower.Result
	Skill(a *scripted.Turns, name string) follower.Result
	// Agent dispatches the subagent whose conversation sub plays (its
	// first prompt is c.Prompt) and returns its id and final text; with
	// c.Continue (sub nil) it sends c.Prompt to that subagent instead, as
	// the host's file says a fix round does.
	Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult
}

// Follow is the controller of scenario sc as a session's script: the
// follower's literal reader of the skill text, whose tool calls are the
// host's (ad), and whose dispatches start the follower's subagents as the
// host's own subagents.
func Follow(ad Adapter, sc follower.Scenario) scripted.Script {
	return func(a *scripted.Turns) { follower.Controller(sc)(&tools{ad: ad, a: a, sc: sc}) }
}

// FollowKeeping is Follow that copies the plan's workspace (every one
// under repo's .superpowers/sdd) into keep just before the call that runs
// Finish, which deletes it: what a test reads of the ledger and the files
// at the end. The copy is made once: a replay finds it made.
func FollowKeeping(ad Adapter, sc follower.Scenario, repo, keep string) scripted.Script {
	return func(a *scripted.Turns) {
		follower.Controller(sc)(&tools{ad: ad, a: a, sc: sc, repo: repo, keep: keep})
	}
}

// FollowUntil is Follow cut after the controller's first calls follower
// calls (a Read or a dispatch of several tool calls counts once): the
// session then ends its turn, as a controller whose context is lost
// stops, and a later session resumes from what is on disk.
func FollowUntil(ad Adapter, sc follower.Scenario, calls int) scripted.Script {
	return func(a *scripted.Turns) {
		follower.Controller(sc)(&tools{ad: ad, a: a, sc: sc, left: calls, cut: true})
	}
}

// CutText is what a cut controller says last.
const CutText = "Stopping here: the run is cut."

// tools are the follower's Tools over one replay of a conversation.
type tools struct {
	ad    Adapter
	a     *scripted.Turns
	sc    follower.Scenario
	left  int // calls before the cut
	cut   bool
	repo  string // FollowKeeping's repository and copy
	keep  string
	steps int // the follower calls made so far
}

// call counts one follower call toward the cut; past it the turn ends
// for good (a host that wakes the conversation gets the same words
// again). It returns the count of turns before the call, for step.
func (t *tools) call() int {
	if t.cut {
		if t.left == 0 {
			for {
				t.a.Say(CutText)
			}
		}
		t.left--
	}
	return t.a.Count()
}

// step records a follower call that came back, as Step, with the host's
// calls it took since turn from (Played.Steps reads them).
func (t *tools) step(s Step, from int) {
	if s.Calls == nil {
		s.Calls = t.a.CallNames(from)
	}
	t.steps++
	b, err := json.Marshal(s)
	if err != nil {
		t.a.Failf("%v", err)
	}
	t.a.Record(stepKey(t.a.Prompt(), t.steps), string(b))
}

// errorText is what a failed call gave back; a step keeps the text of a
// Bash alone otherwise (a read's text would be kept again on every
// replay).
func errorText(r follower.Result) string {
	if r.IsError {
		return r.Text
	}
	return ""
}

func (t *tools) Bash(command string) follower.Result {
	from := t.call()
	if t.keep != "" && follower.RunsFinish(command) {
		if err := follower.KeepWorkspaces(t.repo, t.keep); err != nil {
			t.a.Failf("%v", err)
		}
	}
	r := t.ad.Bash(t.a, command)
	t.step(Step{Call: follower.Call{Tool: "Bash", Input: command}, Text: r.Text, IsError: r.IsError}, from)
	return r
}

func (t *tools) Read(path string, offset, limit int) follower.Result {
	from := t.call()
	r := t.ad.Read(t.a, path, offset, limit)
	t.step(Step{Call: follower.Call{Tool: "Read", Input: path}, Offset: offset, Limit: limit, Next: r.Next, IsError: r.IsError, Text: errorText(r)}, from)
	return r
}

func (t *tools) Write(path, content string) follower.Result {
	from := t.call()
	r := t.ad.Write(t.a, path, content)
	t.step(Step{Call: follower.Call{Tool: "Write", Input: path}, IsError: r.IsError, Text: errorText(r)}, from)
	return r
}

func (t *tools) Skill(name string) follower.Result {
	from := t.call()
	r := t.ad.Skill(t.a, name)
	t.step(Step{Call: follower.Call{Tool: "Skill", Input: name}, IsError: r.IsError, Text: errorText(r)}, from)
	return r
}

// Agent dispatches the follower's subagent for the prompt, or sends the
// prompt to the subagent c.Continue names: its conversation goes on from
// its answer with the script of the prompt's role (a fix round).
func (t *tools) Agent(c follower.AgentCall) follower.AgentResult {
	from := t.call()
	sub := t.subScript(c)
	if c.Continue != "" {
		sub = nil // the subagent's conversation has its script
	}
	r := t.ad.Agent(t.a, c, sub)
	t.step(Step{Call: follower.Call{Tool: "Agent", Input: c.Prompt, Model: c.Model}, ID: r.ID, Continued: c.Continue}, from)
	return r
}

// subScript is the conversation of the follower's subagent for c's
// prompt, with the host's tools.
func (t *tools) subScript(c follower.AgentCall) scripted.Script {
	script, ok := t.sc.Subagent(c.Prompt)
	if !ok {
		t.a.Failf("a dispatch no subagent of the follower answers: %q", scripted.Clip(c.Prompt, 300))
	}
	ad, sc := t.ad, t.sc
	return func(a *scripted.Turns) {
		st := &tools{ad: ad, a: a, sc: sc}
		reply := script(st)
		for {
			reply = continued(st, a.Say(reply), reply)
		}
	}
}

// GroupAdapter is a host that takes several dispatches in one message
// (follower.OneMessage): Agents dispatches cs together, each subagent's
// conversation played by subs[i].
type GroupAdapter interface {
	Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult
}

// Together is GroupAdapter.Agents for a host that sends the new
// dispatches cs as calls of one message: each the call dispatch makes of
// it, its subagent's script subs[i] over the host's view V, all of them
// sent by send, each result read by answer. A fix round (c.Continue)
// fails the script: it goes alone.
func Together[D, R any, V ~struct{ *scripted.Turns }](a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script,
	dispatch func(follower.AgentCall) D, send func([]D, []scripted.For[V]) []R,
	answer func(*scripted.Turns, follower.AgentCall, R) follower.AgentResult) []follower.AgentResult {
	ds := make([]D, len(cs))
	scripts := make([]scripted.For[V], len(cs))
	for i, c := range cs {
		if c.Continue != "" {
			a.Failf("%s: only new dispatches go together", c.Description)
		}
		ds[i], scripts[i] = dispatch(c), scripted.As[V](subs[i])
	}
	out := make([]follower.AgentResult, len(cs))
	for i, r := range send(ds, scripts) {
		out[i] = answer(a, cs[i], r)
	}
	return out
}

// Agents dispatches the follower's subagents for calls in one message,
// where the host's adapter can (else one after the other, each in a
// message of its own).
func (t *tools) Agents(calls []follower.AgentCall) []follower.AgentResult {
	ga, ok := t.ad.(GroupAdapter)
	if !ok {
		out := make([]follower.AgentResult, len(calls))
		for i, c := range calls {
			out[i] = t.Agent(c)
		}
		return out
	}
	from := t.call()
	subs := make([]scripted.Script, len(calls))
	for i, c := range calls {
		subs[i] = t.subScript(c)
	}
	rs := ga.Agents(t.a, calls, subs)
	for i, c := range calls {
		t.step(Step{Call: follower.Call{Tool: "Agent", Input: c.Prompt, Model: c.Model}, ID: rs[i].ID, Together: true}, from)
		from = t.a.Count() // the host's calls go with the first step
	}
	return rs
}

// continued is a subagent's next answer after the texts the host sent it
// once it had answered: where one is a prompt of the follower's (a fix
// round sent to the implementer), that prompt's script goes on in the
// same conversation, with the same tools (its steps numbered on); else
// (a notification) the answer stands.
func continued(st *tools, sent []string, answer string) string {
	for _, text := range sent {
		if script, ok := st.sc.Subagent(st.a.AsPrompt(text)); ok {
			return script(st)
		}
	}
	return answer
}

func (t *tools) Say(text string) {
	t.step(Step{Call: follower.Call{Tool: "Say", Input: text}}, t.a.Count())
	for {
		t.a.Say(text)
	}
}

func (t *tools) Host() string { return t.ad.Host() }
