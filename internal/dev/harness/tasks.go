package harness

import (
	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Tasks are the Agent and Agents of a host whose every dispatch, a fix
// round's among them, is one call that returns the subagent's answer,
// alone or several in one message (Droid's Task, OpenCode's task): the
// follower's call made the host's D by Dispatch, sent by One or Several
// (the host's calls over its view V), each result R read by Answer. What
// differs between such hosts is those four; how they compose is this.
type Tasks[D, R any, V ~struct{ *scripted.Turns }] struct {
	Dispatch func(follower.AgentCall) D
	One      func(*V, D, scripted.For[V]) R
	Several  func(*V, []D, []scripted.For[V]) []R
	Answer   func(*scripted.Turns, follower.AgentCall, R) follower.AgentResult
}

// Agent is Adapter.Agent: c's call alone, its subagent's conversation
// played by sub (nil for a fix round: the subagent has its script).
func (ts Tasks[D, R, V]) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	return ts.Answer(a, c, ts.One(&V{a}, ts.Dispatch(c), scripted.As[V](sub)))
}

// Agents is GroupAdapter.Agents: the calls of cs in one message
// (Together).
func (ts Tasks[D, R, V]) Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult {
	send := func(ds []D, scripts []scripted.For[V]) []R { return ts.Several(&V{a}, ds, scripts) }
	return Together(a, cs, subs, ts.Dispatch, send, ts.Answer)
}
