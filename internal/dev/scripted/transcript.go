package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// A conversation as every wire format carries it, once decoded: what the
// replay (Turns), the server and the tests read. A Wire turns a request's
// body into these and an answer's Turn into its own stream.

// Turn is one model turn: a text, or one tool call.
type Turn struct {
	Text string // when Call is nil
	Call *Call
	// Also are the calls made in the same model turn after Call (a
	// message with several tool calls, which the host may run at once);
	// a request's transcript holds each as a turn of its own.
	Also []Call
}

func (t Turn) String() string {
	if t.Call == nil {
		return fmt.Sprintf("text %q", Clip(t.Text, 200))
	}
	return fmt.Sprintf("%s %s %s", t.Call.Qualified(), t.Call.ID, Clip(string(t.Call.Input), 200))
}

// Call is one tool call: its id (made from the conversation and the
// call's number, so that a replay makes it again), the namespace of a
// namespaced function (Codex's multi_agent_v1; "" for most), the tool's
// name and its input, JSON.
type Call struct {
	ID        string
	Namespace string
	Name      string
	Input     json.RawMessage
}

// Qualified is the call's name, after its namespace if it has one.
func (c *Call) Qualified() string {
	if c.Namespace != "" {
		return c.Namespace + "." + c.Name
	}
	return c.Name
}

// Entry is one item of a request's transcript after its system prompt:
// a model turn, a call's result, or a text the host sent (the prompt, a
// subagent's notification, a continued subagent's new message).
type Entry struct {
	Turn   *Turn
	Result *Result
	Role   string // a text's role: user, developer, system
	Text   string // the text the host sent
}

// Result is what came back for one call.
type Result struct {
	CallID  string
	Text    string   // the output as text
	IsError bool     // the host marked it an error (the Messages API's is_error; the other wires have no such mark)
	Notes   []string // Turns.Call's: the texts the host sent after it, before the next turn
}

// Tool is a tool the host offered the model; a namespace's functions are
// listed each with its Namespace.
type Tool struct {
	Namespace   string
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Request is one request the host made, decoded.
type Request struct {
	Seq    int    // 1 for the first request the server got
	Method string // POST
	Path   string
	Header http.Header
	Body   json.RawMessage // as sent

	Model   string
	Stream  bool
	System  []string // the system prompt's texts (the Responses API's developer messages among them)
	Tools   []Tool
	Entries []Entry

	Prompt   string // the conversation's first prompt ("" if none): what names its script
	Scripted bool   // a script answered it
	Answer   *Turn  // what the server answered (the answering path only)
}

// Tool returns the tool the request offered under name (a namespace's
// functions included).
func (r *Request) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// ToolNames are the names of the request's tools, in order.
func (r *Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// HasText reports whether the system prompt or a text the host sent
// contains s.
func (r *Request) HasText(s string) bool {
	for _, t := range r.System {
		if strings.Contains(t, s) {
			return true
		}
	}
	for _, e := range r.Entries {
		if e.Turn == nil && e.Result == nil && strings.Contains(e.Text, s) {
			return true
		}
	}
	return false
}

// Texts are the texts the host sent in the transcript, of role (any when
// "").
func (r *Request) Texts(role string) []string {
	var out []string
	for _, e := range r.Entries {
		if e.Turn == nil && e.Result == nil && (role == "" || e.Role == role) {
			out = append(out, e.Text)
		}
	}
	return out
}

// CallResult is a call of the transcript and what came back for it.
type CallResult struct {
	Call
	Output  string
	IsError bool
	Done    bool // a result came back
}

// Str is the call's input field k, a string.
func (c CallResult) Str(k string) string {
	var in map[string]any
	json.Unmarshal(c.Input, &in)
	s, _ := in[k].(string)
	return s
}

// Calls are the transcript's calls in order, each with its result.
func (r *Request) Calls() []CallResult {
	var out []CallResult
	idx := map[string]int{}
	for _, e := range r.Entries {
		switch {
		case e.Turn != nil && e.Turn.Call != nil:
			idx[e.Turn.Call.ID] = len(out)
			out = append(out, CallResult{Call: *e.Turn.Call})
		case e.Result != nil:
			if i, ok := idx[e.Result.CallID]; ok {
				out[i].Output, out[i].IsError, out[i].Done = e.Result.Text, e.Result.IsError, true
			}
		}
	}
	return out
}
