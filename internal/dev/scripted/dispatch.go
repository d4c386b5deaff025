package scripted

// Dispatcher is how a host's dispatch call goes out and comes back, for a
// host whose every dispatch is one call that returns the subagent's
// answer (Droid's Task, OpenCode's task, Pi's subagent): D is the call as
// the host's scripts write it, R what the script reads of its result, V
// the host's view of a conversation. One and Several are the same steps
// for a call alone and for several in one turn, which each such host
// would otherwise write twice.
type Dispatcher[D, R any, V ~struct{ *Turns }] struct {
	// Trimmed: the host may pass a prompt on trimmed, so a subagent's
	// script is handed to its conversation by HandleTrimmed (else Handle).
	Trimmed bool
	// Call is d as the host's call, and the prompt that names its
	// subagent's conversation.
	Call func(d D) (prompt string, call Grouped)
	// Read is what the script reads of the call's result.
	Read func(Result) R
}

// One makes d's call: its subagent's conversation is played by script
// (nil: a subagent that goes on with the script it has, one continued),
// and the call returns once the subagent has answered.
func (k Dispatcher[D, R, V]) One(a *V, d D, script For[V]) R {
	t := struct{ *Turns }(*a).Turns
	prompt, call := k.Call(d)
	k.handle(t, prompt, script)
	return k.Read(t.Call(call.Name, call.Input))
}

// Several makes the calls of ds in one turn (CallGroup), each
// subagent's conversation played by scripts[i] as One's, and returns
// what came back for each, in order.
func (k Dispatcher[D, R, V]) Several(a *V, ds []D, scripts []For[V]) []R {
	t := struct{ *Turns }(*a).Turns
	calls := make([]Grouped, len(ds))
	for i, d := range ds {
		var prompt string
		prompt, calls[i] = k.Call(d)
		k.handle(t, prompt, scripts[i])
	}
	out := make([]R, len(ds))
	for i, r := range t.CallGroup(calls) {
		out[i] = k.Read(r)
	}
	return out
}

// handle gives script, when there is one, the conversation prompt names.
func (k Dispatcher[D, R, V]) handle(t *Turns, prompt string, script For[V]) {
	switch {
	case script == nil:
	case k.Trimmed:
		t.HandleTrimmed(prompt, script.Play())
	default:
		t.Handle(prompt, script.Play())
	}
}
