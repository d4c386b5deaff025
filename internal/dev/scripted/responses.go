package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Responses is OpenAI's Responses API (POST /v1/responses), as Codex CLI
// speaks it. A request's input is a list of items: messages (developer,
// user, assistant; their content input_text or output_text parts),
// function_call (a namespaced function's with its namespace) and
// function_call_output (a string or parts; no error mark). Its tools are
// functions, namespaces of functions (Codex's multi_agent_v1) and hosted
// tools with only a type. An answer is always streamed, one output item:
// response.created, the item's output_item.added, for a message its part
// (content_part.added, its text as one output_text.delta,
// output_text.done, content_part.done), output_item.done, then
// response.completed. Codex makes the turn from the output_item.done
// items alone and needs response.completed before the stream ends
// (0.171.0 without it: "stream closed before response.completed", five
// reconnections, the turn failed); the rest is there as the real API
// sends it, for the CLI's live output.
type Responses struct{}

// ResponsesPath is Responses' one endpoint; a host's base URL is the
// server's /v1.
const ResponsesPath = "/v1/responses"

func (Responses) Answers(method, path string) bool {
	return method == http.MethodPost && path == ResponsesPath
}

func (Responses) CallID(prefix string, n int) string {
	return fmt.Sprintf("call_sdd%s_%03d", prefix, n)
}

// item is one item of a request's input or of an answer's output.
type item struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`      // message
	Content   []part          `json:"content,omitempty"`   // message
	CallID    string          `json:"call_id,omitempty"`   // function_call, function_call_output
	Namespace string          `json:"namespace,omitempty"` // function_call of a namespaced function
	Name      string          `json:"name,omitempty"`      // function_call
	Arguments string          `json:"arguments,omitempty"` // function_call: JSON in a string
	Output    json.RawMessage `json:"output,omitempty"`    // function_call_output: a string or parts
}

// part is one part of a message's content.
type part struct {
	Type string `json:"type"` // input_text, output_text
	Text string `json:"text"`
}

// outputText is a function_call_output's output as text: the string, or
// its text parts joined by newlines.
func (it item) outputText() string {
	var s string
	if len(it.Output) == 0 || json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []part
	if json.Unmarshal(it.Output, &parts) != nil {
		return string(it.Output)
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// responsesTool is a tool as the request offers it.
type responsesTool struct {
	Type        string          `json:"type"` // function, namespace, or a hosted tool's
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Tools       []responsesTool `json:"tools"` // a namespace's
}

func (Responses) Decode(body []byte, req *Request) error {
	var v struct {
		Model        string          `json:"model"`
		Stream       bool            `json:"stream"`
		Instructions string          `json:"instructions"`
		Tools        []responsesTool `json:"tools"`
		Input        []item          `json:"input"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	req.Model, req.Stream = v.Model, v.Stream
	if v.Instructions != "" {
		req.System = append(req.System, v.Instructions)
	}
	for _, t := range v.Tools {
		switch {
		case len(t.Tools) > 0:
			for _, f := range t.Tools {
				req.Tools = append(req.Tools, Tool{Namespace: t.Name, Name: f.Name, Description: f.Description, Parameters: f.Parameters})
			}
		case t.Name != "":
			req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		default: // a hosted tool (web_search): its type is all it has
			req.Tools = append(req.Tools, Tool{Name: t.Type})
		}
	}
	for _, it := range v.Input {
		switch {
		case it.Type == "message" && it.Role == "assistant":
			var texts []string
			for _, p := range it.Content {
				texts = append(texts, p.Text)
			}
			req.Entries = append(req.Entries, Entry{Turn: &Turn{Text: strings.Join(texts, "")}})
		case it.Type == "message":
			// A developer message keeps its place among the turns
			// (Codex's instructions and skills list come first).
			for _, p := range it.Content {
				if p.Type == "input_text" || p.Type == "output_text" {
					req.Entries = append(req.Entries, Entry{Role: it.Role, Text: p.Text})
				}
			}
		case it.Type == "function_call":
			req.Entries = append(req.Entries, Entry{Turn: &Turn{Call: &Call{ID: it.CallID, Namespace: it.Namespace, Name: it.Name, Input: json.RawMessage(it.Arguments)}}})
		case it.Type == "function_call_output":
			req.Entries = append(req.Entries, Entry{Result: &Result{CallID: it.CallID, Text: it.outputText()}})
		}
	}
	return nil
}

func (Responses) Write(w http.ResponseWriter, req *Request, t Turn) {
	id := fmt.Sprintf("resp_sdd_%04d", req.Seq)
	it := item{Type: "message", ID: fmt.Sprintf("msg_%d", req.Seq), Role: "assistant", Content: []part{{Type: "output_text", Text: t.Text}}}
	if t.Call != nil {
		it = item{Type: "function_call", ID: fmt.Sprintf("fc_%d", req.Seq), CallID: t.Call.ID, Namespace: t.Call.Namespace, Name: t.Call.Name, Arguments: string(t.Call.Input)}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	seq := 0
	event := func(name string, v map[string]any) {
		v["type"] = name
		v["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	response := func(status string, output []any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "status": status, "model": req.Model, "output": output}
		if status == "completed" {
			r["usage"] = map[string]any{
				"input_tokens": 1, "input_tokens_details": map[string]int{"cached_tokens": 0},
				"output_tokens": 1, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
				"total_tokens": 2,
			}
		}
		return r
	}
	event("response.created", map[string]any{"response": response("in_progress", []any{})})
	added := it
	if it.Type == "message" {
		added.Content = []part{}
	}
	event("response.output_item.added", map[string]any{"output_index": 0, "item": withStatus(added, "in_progress")})
	for c, p := range it.Content {
		at := map[string]any{"item_id": it.ID, "output_index": 0, "content_index": c}
		with := func(k string, v any) map[string]any {
			m := map[string]any{k: v}
			for k, v := range at {
				m[k] = v
			}
			return m
		}
		event("response.content_part.added", with("part", part{Type: p.Type}))
		event("response.output_text.delta", with("delta", p.Text))
		event("response.output_text.done", with("text", p.Text))
		event("response.content_part.done", with("part", p))
	}
	done := withStatus(it, "completed")
	event("response.output_item.done", map[string]any{"output_index": 0, "item": done})
	event("response.completed", map[string]any{"response": response("completed", []any{done})})
}

// withStatus is it as a JSON object with a status field (a message's
// content kept when empty).
func withStatus(it item, status string) map[string]any {
	b, _ := json.Marshal(it)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["status"] = status
	if it.Type == "message" {
		m["content"] = it.Content
	}
	return m
}
