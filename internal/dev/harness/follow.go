package harness

import (
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
	// first prompt is c.Prompt) and returns its id and final text.
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
	ad   Adapter
	a    *scripted.Turns
	sc   follower.Scenario
	left int // calls before the cut
	cut  bool
	repo string // FollowKeeping's repository and copy
	keep string
}

// call counts one follower call toward the cut; past it the turn ends
// for good (a host that wakes the conversation gets the same words
// again).
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

func (t *tools) Bash(command string) follower.Result {
	t.call()
	if t.keep != "" && follower.RunsFinish(command) {
		if err := follower.KeepWorkspaces(t.repo, t.keep); err != nil {
			t.a.Failf("%v", err)
		}
	}
	return t.ad.Bash(t.a, command)
}

func (t *tools) Read(path string, offset, limit int) follower.Result {
	t.call()
	return t.ad.Read(t.a, path, offset, limit)
}

func (t *tools) Write(path, content string) follower.Result {
	t.call()
	return t.ad.Write(t.a, path, content)
}

func (t *tools) Skill(name string) follower.Result {
	t.call()
	return t.ad.Skill(t.a, name)
}

// Agent dispatches the follower's subagent for the prompt.
func (t *tools) Agent(c follower.AgentCall) follower.AgentResult {
	t.call()
	script, ok := t.sc.Subagent(c.Prompt)
	if !ok {
		t.a.Failf("a dispatch no subagent of the follower answers: %q", scripted.Clip(c.Prompt, 300))
	}
	ad, sc := t.ad, t.sc
	sub := func(a *scripted.Turns) {
		reply := script(&tools{ad: ad, a: a, sc: sc})
		for {
			a.Say(reply)
		}
	}
	return t.ad.Agent(t.a, c, sub)
}

func (t *tools) Say(text string) {
	for {
		t.a.Say(text)
	}
}

func (t *tools) Host() string { return t.ad.Host() }
