package scripted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
)

// A Script is a scripted agent: a function that makes its calls one
// after another, in straight-line Go, as a model following a text would.
// The server runs it again from the start for every request of its
// conversation (see Turns), on the server's goroutines. So it must be
// deterministic (depend only on what its calls return and on values it
// closed over), never block, never write to variables it closed over (a
// test reads what happened from the host's session and the Server), and
// report a failure with Turns.Failf, never through a testing.T.
type Script func(a *Turns)

// For is a script of a host package, written over the host's view V of
// its conversation: a struct whose one field is *Turns, its methods the
// host's calls (claudehost.Turns: Bash, Read, Agent, …). A host declares
// the two once:
//
//	type Turns struct{ *scripted.Turns }
//	type Script = scripted.For[Turns]
type For[V ~struct{ *Turns }] func(a *V)

// Play is s as the server runs it.
func (s For[V]) Play() Script {
	return func(t *Turns) {
		v := V{t}
		s(&v)
	}
}

// As is s over the host's view V: a script of the follower's (a
// subagent's, the controller's) dispatched or run with a host's calls.
// As of nil is nil: the continued subagent's script runs on.
func As[V ~struct{ *Turns }](s Script) For[V] {
	if s == nil {
		return nil
	}
	return func(v *V) { s(struct{ *Turns }(*v).Turns) }
}

// Turns is a script's view of its conversation during one request, the
// same for every wire format. Each call (Call, Say) is one model turn. A
// call whose turn is already in the request's transcript returns what
// came back for it; the first call that is not becomes the server's
// answer, and the script is stopped there (by a panic the server
// recovers). The next request, which carries that call's result, replays
// the script to one call further. Call ids are derived from the
// conversation and the call's number (Wire.CallID), so a replay
// reproduces the transcript exactly; a replay that would make a different
// call than the transcript holds fails.
//
// A host's own calls (Claude Code's Agent and Wait, Codex's Exec and
// Spawn, …) are functions over Turns in the host's package.
type Turns struct {
	srv     *Server
	req     *Request
	prefix  string  // of this conversation's call ids
	entries []Entry // the request's transcript
	turns   []int   // indexes of its model turns
	calls   int     // calls made so far in this replay
	seen    int     // entries[:seen] are what the script has been shown
	taken   map[string]bool
}

type (
	answerNow     struct{ turn Turn } // this call is the server's answer
	scriptFailure struct{ msg string }
)

// DoneText ends the turn of a conversation whose script is exhausted.
const DoneText = "Done."

func replay(s *Server, req *Request, script Script) (turn Turn, err error) {
	sum := sha256.Sum256([]byte(req.Prompt))
	t := &Turns{srv: s, req: req, prefix: hex.EncodeToString(sum[:6]), entries: req.Entries, seen: len(req.Entries), taken: map[string]bool{}}
	for i, e := range req.Entries {
		if e.Turn != nil {
			if len(t.turns) == 0 {
				t.seen = i
			}
			t.turns = append(t.turns, i)
		}
	}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case answerNow:
			turn = r.turn
		case scriptFailure:
			err = errors.New(r.msg)
		default:
			err = fmt.Errorf("script panicked at call %d: %v\n%s", t.calls, r, debug.Stack())
		}
	}()
	script(t)
	return Turn{Text: DoneText}, nil
}

// Failf stops the script and fails the test: the conversation ends its
// turn with a text saying why, and the session is stopped.
func (a *Turns) Failf(format string, args ...any) {
	panic(scriptFailure{fmt.Sprintf("call %d: ", a.calls) + fmt.Sprintf(format, args...)})
}

// turn makes one model turn.
func (a *Turns) turn(t Turn) Result {
	k := a.calls
	a.calls++
	if t.Call != nil {
		c := *t.Call
		c.ID = a.srv.wire.CallID(a.prefix, k+1)
		t.Call = &c
	}
	if k >= len(a.turns) {
		panic(answerNow{t})
	}
	i := a.turns[k]
	if err := sameTurn(*a.entries[i].Turn, t); err != nil {
		a.Failf("the transcript does not follow the script: %v", err)
	}
	end := len(a.entries)
	if k+1 < len(a.turns) {
		end = a.turns[k+1]
	}
	a.seen = end
	var r Result
	found := t.Call == nil
	for _, e := range a.entries[i+1 : end] {
		switch {
		case e.Result != nil && t.Call != nil && e.Result.CallID == t.Call.ID:
			r.CallID, r.Text, r.IsError, found = e.Result.CallID, e.Result.Text, e.Result.IsError, true
		case e.Turn == nil && e.Result == nil:
			r.Notes = append(r.Notes, e.Text)
		}
	}
	if !found {
		a.Failf("no result came back for %s", t)
	}
	return r
}

// sameTurn checks that the transcript's turn m is the turn the script
// makes now.
func sameTurn(m, t Turn) error {
	if t.Call == nil {
		if m.Call != nil {
			return fmt.Errorf("transcript has a %s call, the script says %q", m.Call.Qualified(), Clip(t.Text, 200))
		}
		if strings.TrimSpace(m.Text) != strings.TrimSpace(t.Text) {
			return fmt.Errorf("transcript says %q, the script says %q", Clip(m.Text, 200), Clip(t.Text, 200))
		}
		return nil
	}
	if m.Call == nil {
		return fmt.Errorf("transcript says %q, the script calls %s", Clip(m.Text, 200), t)
	}
	// The host may fill in defaults (Claude Code's Edit's replace_all):
	// every field the script gave must be there, unchanged.
	var got, want map[string]any
	json.Unmarshal(m.Call.Input, &got)
	json.Unmarshal(t.Call.Input, &want)
	same := m.Call.ID == t.Call.ID && m.Call.Name == t.Call.Name && m.Call.Namespace == t.Call.Namespace
	for k, v := range want {
		same = same && reflect.DeepEqual(got[k], v)
	}
	if !same {
		return fmt.Errorf("transcript calls %s, the script calls %s", m, t)
	}
	return nil
}

// Grouped is one call of a turn that makes several (CallGroup).
type Grouped struct {
	Name  string
	Input any
}

// CallGroup makes several calls in one model turn (a message with a tool
// call for each, which the host may run at once) and returns what came
// back for each, in order. The transcript holds each call as a turn of
// its own, their results after the last of them.
func (a *Turns) CallGroup(calls []Grouped) []Result {
	k := a.calls
	cs := make([]Call, len(calls))
	for j, g := range calls {
		in, err := json.Marshal(g.Input)
		if err != nil {
			a.Failf("%s input: %v", g.Name, err)
		}
		cs[j] = Call{ID: a.srv.wire.CallID(a.prefix, k+j+1), Name: g.Name, Input: in}
	}
	a.calls += len(cs)
	if k >= len(a.turns) {
		panic(answerNow{Turn{Call: &cs[0], Also: cs[1:]}})
	}
	if k+len(cs) > len(a.turns) {
		a.Failf("the transcript holds %d of a turn's %d calls", len(a.turns)-k, len(cs))
	}
	for j := range cs {
		if err := sameTurn(*a.entries[a.turns[k+j]].Turn, Turn{Call: &cs[j]}); err != nil {
			a.Failf("the transcript does not follow the script: %v", err)
		}
	}
	last := a.turns[k+len(cs)-1]
	end := len(a.entries)
	if k+len(cs) < len(a.turns) {
		end = a.turns[k+len(cs)]
	}
	a.seen = end
	out := make([]Result, len(cs))
	found := 0
	var notes []string
	for _, e := range a.entries[last+1 : end] {
		switch {
		case e.Result != nil:
			for j := range cs {
				if e.Result.CallID == cs[j].ID {
					out[j] = Result{CallID: e.Result.CallID, Text: e.Result.Text, IsError: e.Result.IsError}
					found++
				}
			}
		case e.Turn == nil:
			notes = append(notes, e.Text)
		}
	}
	if found != len(cs) {
		a.Failf("%d of %d results came back for a turn of several calls", found, len(cs))
	}
	out[len(out)-1].Notes = notes
	return out
}

// Call makes one call of the tool name with input (marshalled to JSON)
// and returns what came back, error or not.
func (a *Turns) Call(name string, input any) Result {
	return a.CallIn("", name, input)
}

// DropUnset is a call's input in without its int values that are not
// positive: the counts a tool takes as optional (a read's offset and
// limit), which a caller leaves at 0 for the tool's own default, are left
// out of the call rather than sent as 0, which a tool may take as a count.
func DropUnset(in map[string]any) map[string]any {
	for k, v := range in {
		if n, ok := v.(int); ok && n <= 0 {
			delete(in, k)
		}
	}
	return in
}

// CallIn calls the function name of a namespace (Codex's multi_agent_v1).
func (a *Turns) CallIn(namespace, name string, input any) Result {
	in, err := json.Marshal(input)
	if err != nil {
		a.Failf("%s input: %v", name, err)
	}
	return a.turn(Turn{Call: &Call{Namespace: namespace, Name: name, Input: in}})
}

// Say ends the turn with text. The conversation goes on only when the
// host sends something new (a notification, a message to a finished
// subagent); Say returns those texts.
func (a *Turns) Say(text string) []string {
	return a.turn(Turn{Text: text}).Notes
}

// AsPrompt is a text the host sent without what the host added to it
// (Server.PromptOf): a message to a subagent that has answered, as its
// sender wrote it.
func (a *Turns) AsPrompt(text string) string {
	if a.srv.PromptOf == nil {
		return text
	}
	return a.srv.PromptOf(text)
}

// LastID is the id of the script's last call.
func (a *Turns) LastID() string { return a.srv.wire.CallID(a.prefix, a.calls) }

// Handle makes script the agent of the conversation whose first prompt
// is prompt: how a dispatch gives its subagent a script.
func (a *Turns) Handle(prompt string, script Script) { a.srv.Handle(prompt, script) }

// HandleTrimmed is Handle for prompt and for prompt without the white
// space around it: how a dispatch gives its subagent a script where the
// host may pass the prompt on trimmed (Gemini CLI, Pi, Droid), so that
// the subagent's conversation is named either way.
func (a *Turns) HandleTrimmed(prompt string, script Script) {
	a.Handle(prompt, script)
	if p := strings.TrimSpace(prompt); p != prompt {
		a.Handle(p, script)
	}
}

// Tool returns the tool the request offers under name: what the model
// knows of it (its description, its parameters).
func (a *Turns) Tool(name string) (Tool, bool) { return a.req.Tool(name) }

// System are the request's system texts.
func (a *Turns) System() []string { return a.req.System }

// Seen are the texts the host sent that the script has been shown so
// far, each with a key that stays the same across replays.
func (a *Turns) Seen() []Seen {
	var out []Seen
	for i, e := range a.entries[:a.seen] {
		if e.Turn == nil && e.Result == nil {
			out = append(out, Seen{Key: fmt.Sprint(i), Role: e.Role, Text: e.Text})
		}
	}
	return out
}

// Seen is a text of the transcript the script has been shown.
type Seen struct{ Key, Role, Text string }

// Take marks key taken in this replay and reports whether it was not
// already: how a script hands each notification over once.
func (a *Turns) Take(key string) bool {
	if a.taken[key] {
		return false
	}
	a.taken[key] = true
	return true
}

// Record keeps a fact about the conversation for the test under key
// (Server.Records): what a script chose that no call carries. A replay
// records it again; the same key must get the same value.
func (a *Turns) Record(key, value string) { a.srv.record(key, value) }

// Made are the calls this replay has made so far, each with what came
// back: what a model of the conversation has seen of its own calls.
func (a *Turns) Made() []CallResult {
	r := Request{Entries: a.entries[:a.seen]}
	return r.Calls()
}

// Prompt is the prompt that names the conversation.
func (a *Turns) Prompt() string { return a.req.Prompt }

// Count is the number of turns (calls and texts) the script has made so
// far in this replay.
func (a *Turns) Count() int { return a.calls }

// CallNames are the qualified names of the calls among the script's
// turns from turn from on that the transcript holds: the host's calls
// one step of a script took.
func (a *Turns) CallNames(from int) []string {
	var out []string
	for k := from; k < a.calls && k < len(a.turns); k++ {
		if c := a.entries[a.turns[k]].Turn.Call; c != nil {
			out = append(out, c.Qualified())
		}
	}
	return out
}
