package geminiwire

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

// A Script is an agent written in straight-line Go: it makes its calls one
// after another, as a model following a text would. The server replays it
// from the start on every request of its conversation, on the server's
// goroutines, so it must be deterministic (depend only on what its calls
// return and on values it closed over), never block, never write to
// variables it closed over, and report a failure with Model.Failf, never
// through a testing.T.
type Script func(m *Model)

// Model is a script's side of its conversation during one request. Each
// call (Call, Calls, Say and the tools of tools.go) is one model turn. A
// turn already in the request's conversation returns what came back for
// it; the first that is not becomes the server's answer, and the script
// is stopped there (by a panic the agent recovers). Call ids are made
// from the conversation's prompt and the turn's number, so a replay
// makes the conversation's calls again exactly; a replay that makes
// another call than the conversation holds fails.
type Model struct {
	srv    *Server
	prefix string // of this conversation's call ids
	turns  []Turn // the request's conversation
	k      int    // turns made so far in this replay
}

type (
	answerNow     struct{ a Answer } // this turn is the server's answer
	scriptFailure struct{ msg string }
)

// doneText ends the turn of a conversation whose script has run out.
const doneText = "Done."

// Play makes script the agent of the conversation whose prompt is prompt.
func (s *Server) Play(prompt string, script Script) {
	s.Handle(prompt, s.replay(script))
}

func (s *Server) replay(script Script) Agent {
	return func(r *Request) (a Answer, err error) {
		sum := sha256.Sum256([]byte(r.Prompt))
		m := &Model{srv: s, prefix: hex.EncodeToString(sum[:4]), turns: r.Turns()}
		defer func() {
			switch x := recover().(type) {
			case nil:
			case answerNow:
				a = x.a
			case scriptFailure:
				err = errors.New(x.msg)
			default:
				err = fmt.Errorf("script panicked at turn %d: %v\n%s", m.k, x, debug.Stack())
			}
		}()
		script(m)
		return Answer{Text: doneText}, nil
	}
}

// Failf stops the script and fails the test: the conversation's turn ends
// with a text saying why, and the session is stopped (Server.Failed).
func (m *Model) Failf(format string, args ...any) {
	panic(scriptFailure{fmt.Sprintf("turn %d: ", m.k) + fmt.Sprintf(format, args...)})
}

// turn makes one model turn and returns what came after it.
func (m *Model) turn(a Answer) Turn {
	k := m.k
	m.k++
	for i := range a.Calls {
		a.Calls[i].ID = fmt.Sprintf("sdd-%s-%03d-%d", m.prefix, k+1, i)
	}
	if k >= len(m.turns) {
		panic(answerNow{a})
	}
	t := m.turns[k]
	if err := sameAnswer(t.Answer, a); err != nil {
		m.Failf("the conversation does not follow the script: %v", err)
	}
	for _, c := range a.Calls {
		if _, ok := t.Result(c.ID); !ok {
			m.Failf("no response came back for %s", c)
		}
	}
	return t
}

// sameAnswer checks that the conversation's turn got is the turn the
// script makes now, want: the same text and the same calls, each with
// every argument the script gave.
func sameAnswer(got, want Answer) error {
	if strings.TrimSpace(got.Text) != strings.TrimSpace(want.Text) || len(got.Calls) != len(want.Calls) {
		return fmt.Errorf("the conversation has %s, the script says %s", got, want)
	}
	for i, w := range want.Calls {
		g := got.Calls[i]
		same := g.ID == w.ID && g.Name == w.Name
		for k, v := range w.Args {
			same = same && reflect.DeepEqual(g.Args[k], roundTrip(v))
		}
		if !same {
			return fmt.Errorf("the conversation calls %s, the script calls %s", g, w)
		}
	}
	return nil
}

// Calls makes one turn of calls, which the CLI runs (in parallel, unless
// a call asks to wait for the previous ones), and returns their
// responses in the same order.
func (m *Model) Calls(calls ...FunctionCall) []FunctionResponse {
	t := m.turn(Answer{Calls: calls})
	out := make([]FunctionResponse, len(t.Calls))
	for i, c := range t.Calls {
		out[i], _ = t.Result(c.ID)
	}
	return out
}

// Call makes a turn of one call of the function name with args and
// returns its response.
func (m *Model) Call(name string, args map[string]any) FunctionResponse {
	return m.Calls(FunctionCall{Name: name, Args: args})[0]
}

// Say makes a turn of text alone. That ends a session's turn; a
// subagent's conversation goes on only when the CLI writes to it (its
// last-chance warning), and Say returns what it wrote.
func (m *Model) Say(text string) []string {
	return m.turn(Answer{Text: text}).Notes
}

// Output is the response's "output", the text a tool returned.
func (f FunctionResponse) Output() string {
	s, _ := f.Response["output"].(string)
	return s
}

// Error is the response's "error": why the CLI did not run the call, or
// why the tool failed.
func (f FunctionResponse) Error() string {
	s, _ := f.Response["error"].(string)
	return s
}

// roundTrip is v as it comes back from JSON (numbers as float64, structs
// as maps), to compare a script's argument with the conversation's.
func roundTrip(v any) any {
	var out any
	if err := json.Unmarshal([]byte(marshal(v)), &out); err != nil {
		return v
	}
	return out
}
