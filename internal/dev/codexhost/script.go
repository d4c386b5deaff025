package codexhost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// A Script is a scripted agent: a function that makes its calls one
// after another, in straight-line Go, as a model following a text would.
// The server runs it again from the start for every request of its
// conversation (see Turns), on the server's goroutines. So it must be
// deterministic (depend only on what its calls return and on values it
// closed over), never block, never write to variables it closed over (a
// test reads what happened from the Session and the Server), and report a
// failure with Turns.Failf, never through a testing.T.
type Script func(a *Turns)

// Turns is a script's view of its conversation during one request. Each
// call (Exec, Spawn, Wait, Say, …) is one model turn: one response with
// one output item. A call whose item is already in the request's input
// returns what came back for it; the first call that is not becomes the
// server's answer, and the script is stopped there (by a panic the server
// recovers). The next request, which carries that call's output, replays
// the script to one call further. Call ids are derived from the
// conversation and the call's number, so a replay reproduces the
// transcript exactly; a replay that would make a different call than the
// transcript holds fails.
type Turns struct {
	srv    *Server
	prefix string // of this conversation's call ids
	items  []Item // the request's input
	tools  []Tool // the tools the request offers
	turns  []int  // indexes of the model's items in it
	calls  int    // calls made so far in this replay
}

// Result is what came back for one call.
type Result struct {
	Text  string   // the function_call_output's output as text
	Notes []string // the texts of messages that came after it: a subagent's notification, a send_input
}

type (
	answerNow     struct{ item Item } // this call is the server's answer
	scriptFailure struct{ msg string }
)

// doneText ends the turn of a conversation whose script is exhausted.
const doneText = "Done."

// isTurn says whether an input item is one the model made: a call or an
// assistant message.
func isTurn(it Item) bool {
	return it.Type == "function_call" || (it.Type == "message" && it.Role == "assistant")
}

func replay(s *Server, prompt string, items []Item, tools []Tool, script Script) (out []Item, err error) {
	sum := sha256.Sum256([]byte(prompt))
	t := &Turns{srv: s, prefix: hex.EncodeToString(sum[:6]), items: items, tools: tools}
	for i, it := range items {
		if isTurn(it) {
			t.turns = append(t.turns, i)
		}
	}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case answerNow:
			out = []Item{r.item}
		case scriptFailure:
			err = errors.New(r.msg)
		default:
			err = fmt.Errorf("script panicked at call %d: %v\n%s", t.calls, r, debug.Stack())
		}
	}()
	script(t)
	return []Item{assistantText(doneText)}, nil
}

// Failf stops the script and fails the test: the conversation ends its
// turn with a text saying why, and the session is stopped.
func (a *Turns) Failf(format string, args ...any) {
	panic(scriptFailure{fmt.Sprintf("call %d: ", a.calls) + fmt.Sprintf(format, args...)})
}

// turn makes one model turn of it, a function_call or an assistant
// message.
func (a *Turns) turn(it Item) Result {
	k := a.calls
	a.calls++
	if it.Type == "function_call" {
		it.CallID = fmt.Sprintf("call_sdd%s_%03d", a.prefix, k+1)
	}
	if k >= len(a.turns) {
		panic(answerNow{it})
	}
	i := a.turns[k]
	if err := sameTurn(a.items[i], it); err != nil {
		a.Failf("the transcript does not follow the script: %v", err)
	}
	end := len(a.items)
	if k+1 < len(a.turns) {
		end = a.turns[k+1]
	}
	var r Result
	found := it.Type != "function_call"
	for _, c := range a.items[i+1 : end] {
		switch {
		case c.Type == "function_call_output" && c.CallID == it.CallID:
			r.Text, found = c.OutputText(), true
		case c.Type == "message":
			r.Notes = append(r.Notes, c.Texts()...)
		}
	}
	if !found {
		a.Failf("no output came back for %s %s", it.Name, it.CallID)
	}
	return r
}

// sameTurn checks that the transcript's item m is the turn the script
// makes now.
func sameTurn(m, it Item) error {
	if m.Type != it.Type {
		return fmt.Errorf("transcript has a %s turn, the script makes a %s turn", m.Type, it.Type)
	}
	if it.Type == "message" {
		got, want := strings.Join(m.Texts(), ""), strings.Join(it.Texts(), "")
		if strings.TrimSpace(got) != strings.TrimSpace(want) {
			return fmt.Errorf("transcript says %q, the script says %q", scripted.Clip(got, 200), scripted.Clip(want, 200))
		}
		return nil
	}
	var got, want map[string]any
	json.Unmarshal([]byte(m.Arguments), &got)
	json.Unmarshal([]byte(it.Arguments), &want)
	same := m.CallID == it.CallID && m.Name == it.Name && m.Namespace == it.Namespace
	for k, v := range want {
		same = same && reflect.DeepEqual(got[k], v)
	}
	if !same {
		return fmt.Errorf("transcript calls %s %s %s, the script calls %s %s %s",
			qualified(m), m.CallID, scripted.Clip(m.Arguments, 200), qualified(it), it.CallID, scripted.Clip(it.Arguments, 200))
	}
	return nil
}

func qualified(it Item) string {
	if it.Namespace != "" {
		return it.Namespace + "." + it.Name
	}
	return it.Name
}

// Call makes one call of the function name with args (marshalled to
// JSON) and returns what came back.
func (a *Turns) Call(name string, args any) Result {
	return a.CallIn("", name, args)
}

// CallIn calls the function name of a namespace (multi_agent_v1's
// spawn_agent).
func (a *Turns) CallIn(namespace, name string, args any) Result {
	b, err := json.Marshal(args)
	if err != nil {
		a.Failf("%s arguments: %v", name, err)
	}
	return a.turn(Item{Type: "function_call", Namespace: namespace, Name: name, Arguments: string(b)})
}

// Say ends the turn with text. The conversation goes on only when the CLI
// sends something new (a send_input to a subagent); Say returns those
// texts.
func (a *Turns) Say(text string) []string {
	return a.turn(assistantText(text)).Notes
}

// Tool returns the function the request offers under name, looking into
// namespaces too: what the model knows of it (its description, its
// parameters).
func (a *Turns) Tool(name string) (Tool, bool) {
	r := Request{Tools: a.tools}
	return r.Tool(name)
}

// Record keeps a fact about the conversation for the test under key
// (Server.Records): what a script chose that no call carries. A replay
// records it again; the same key must get the same value.
func (a *Turns) Record(key, value string) {
	a.srv.record(key, value)
}
