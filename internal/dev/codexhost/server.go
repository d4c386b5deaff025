package codexhost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Server is the scripted model: an OpenAI Responses API on 127.0.0.1 that
// answers each request from the script of the conversation it belongs
// to, and records every request it gets.
type Server struct {
	URL string // http://127.0.0.1:PORT; the provider's base_url is URL + "/v1"

	http *httptest.Server

	// Handle, Requests, Failures and Failed come from the book.
	scripted.Book[Script, Request]
	recMu   sync.Mutex
	records map[string]string
}

// NewServer starts a server on a free loopback port; it stops when the
// test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{records: map[string]string{}}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	t.Cleanup(s.http.Close)
	return s
}

// Unknown returns the requests of conversations no script handles (the
// CLI's side requests, if any), which got a short text answer.
func (s *Server) Unknown() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Answer != nil && !r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

// Records returns a copy of what scripts recorded (Turns.Record).
func (s *Server) Records() map[string]string {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	out := map[string]string{}
	for k, v := range s.records {
		out[k] = v
	}
	return out
}

func (s *Server) record(key, value string) {
	s.recMu.Lock()
	old, ok := s.records[key]
	s.records[key] = value
	s.recMu.Unlock()
	if ok && old != value {
		s.Fail(fmt.Sprintf("record %q: %q, then %q in a replay", key, old, value))
	}
}

const responsesPath = "/v1/responses"

// Request is one request the CLI made, decoded.
type Request struct {
	Seq    int    // 1 for the first request the server got
	Method string // POST
	Path   string // /v1/responses, …
	Model  string
	Stream bool
	Tools  []Tool
	Input  []Item
	Body   json.RawMessage // as sent
	Header http.Header

	Prompt   string // the conversation's first prompt text ("" if none)
	Scripted bool   // a script answered it
	Answer   []Item // what the server answered (/v1/responses only)
}

// Tool is a tool the CLI offered the model: a function, or a namespace
// of functions (multi_agent_v1), or a hosted tool (web_search) with only
// a type.
type Tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Tools       []Tool          `json:"tools,omitempty"` // a namespace's
}

// Item is one item of a request's input or of an answer's output: a
// message (role developer, user or assistant, its content input_text or
// output_text parts), a function_call, or a function_call_output.
type Item struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`      // message
	Content   []Part          `json:"content,omitempty"`   // message
	CallID    string          `json:"call_id,omitempty"`   // function_call, function_call_output
	Namespace string          `json:"namespace,omitempty"` // function_call of a namespaced tool
	Name      string          `json:"name,omitempty"`      // function_call
	Arguments string          `json:"arguments,omitempty"` // function_call: JSON in a string
	Output    json.RawMessage `json:"output,omitempty"`    // function_call_output: a string or parts
}

// Part is one part of a message's content.
type Part struct {
	Type string `json:"type"` // input_text, output_text
	Text string `json:"text"`
}

// Texts are a message's text parts.
func (it Item) Texts() []string {
	var out []string
	for _, p := range it.Content {
		if p.Type == "input_text" || p.Type == "output_text" {
			out = append(out, p.Text)
		}
	}
	return out
}

// OutputText is a function_call_output's output as text: the string, or
// its text parts joined by newlines.
func (it Item) OutputText() string {
	if len(it.Output) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []Part
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

// HasText reports whether any message text of the request (developer,
// user or assistant) contains s.
func (r *Request) HasText(s string) bool {
	for _, it := range r.Input {
		for _, t := range it.Texts() {
			if strings.Contains(t, s) {
				return true
			}
		}
	}
	return false
}

// Tool returns the function the request offered under name, looking into
// namespaces too.
func (r *Request) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name && t.Type == "function" {
			return t, true
		}
		for _, n := range t.Tools {
			if n.Name == name {
				return n, true
			}
		}
	}
	return Tool{}, false
}

// contextTags open the user-role texts the CLI itself puts in a
// conversation before the prompt (0.171.0): they are never its prompt.
var contextTags = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"}

// promptOf is the conversation's key: the first text of a user message
// that is not context the CLI put there.
func promptOf(items []Item) string {
	for _, it := range items {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
	texts:
		for _, t := range it.Texts() {
			for _, tag := range contextTags {
				if strings.HasPrefix(t, tag) {
					continue texts
				}
			}
			return t
		}
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Method: r.Method, Path: r.URL.Path, Body: body, Header: r.Header.Clone()}
	var decoded struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []Tool `json:"tools"`
		Input  []Item `json:"input"`
	}
	decodeErr := json.Unmarshal(body, &decoded)
	if decodeErr == nil {
		req.Model, req.Stream, req.Tools, req.Input = decoded.Model, decoded.Stream, decoded.Tools, decoded.Input
		req.Prompt = promptOf(req.Input)
	}
	req.Seq = s.Record(req)

	// Everything but the responses endpoint is 404 (the models list
	// included: the CLI then keeps to its built-in catalog).
	if r.Method != http.MethodPost || r.URL.Path != responsesPath {
		http.NotFound(w, r)
		return
	}
	if decodeErr != nil {
		http.Error(w, "bad request body: "+decodeErr.Error(), http.StatusBadRequest)
		return
	}
	answer, played := s.answer(req)
	s.Locked(func() { req.Answer, req.Scripted = answer, played })
	write(w, req, answer)
}

// unknownAnswer is what a conversation without a script gets.
const unknownAnswer = "OK."

func (s *Server) answer(req *Request) (items []Item, played bool) {
	script, ok := s.Script(req.Prompt)
	if !ok {
		return []Item{assistantText(unknownAnswer)}, false
	}
	items, err := replay(s, req.Prompt, req.Input, req.Tools, script)
	if err != nil {
		msg := fmt.Sprintf("request %d, conversation %q: %v", req.Seq, scripted.Clip(req.Prompt, 60), err)
		s.Fail(msg)
		return []Item{assistantText("SCRIPT FAILED: " + msg)}, true
	}
	return items, true
}

func assistantText(text string) Item {
	return Item{Type: "message", Role: "assistant", Content: []Part{{Type: "output_text", Text: text}}}
}

// write streams the answer as the Responses API's server-sent events:
// response.created, then for each item output_item.added, for a message
// its part (content_part.added, its text as one output_text.delta,
// output_text.done, content_part.done), and output_item.done, then
// response.completed. The CLI makes the turn from the output_item.done
// items alone and needs response.completed before the stream ends
// (without it, 0.171.0 reconnects five times, "stream closed before
// response.completed", and fails the turn); the rest is there as the
// real API sends it, for the CLI's live output.
func write(w http.ResponseWriter, req *Request, items []Item) {
	id := fmt.Sprintf("resp_sdd_%04d", req.Seq)
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
	response := func(status string, output []Item) map[string]any {
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
	event("response.created", map[string]any{"response": response("in_progress", []Item{})})
	var done []Item
	for i, it := range items {
		it.ID = fmt.Sprintf("%s_%d", itemPrefix(it.Type), req.Seq*100+i)
		added := it
		if it.Type == "message" {
			added.Content = []Part{}
		}
		event("response.output_item.added", map[string]any{"output_index": i, "item": withStatus(added, "in_progress")})
		if it.Type == "message" {
			for c, p := range it.Content {
				event("response.content_part.added", map[string]any{"item_id": it.ID, "output_index": i, "content_index": c,
					"part": map[string]any{"type": p.Type, "text": ""}})
				event("response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": i, "content_index": c, "delta": p.Text})
				event("response.output_text.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": c, "text": p.Text})
				event("response.content_part.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": c, "part": p})
			}
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": withStatus(it, "completed")})
		done = append(done, it)
	}
	event("response.completed", map[string]any{"response": response("completed", done)})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func itemPrefix(typ string) string {
	if typ == "function_call" {
		return "fc"
	}
	return "msg"
}

// withStatus is it as a JSON object with a status field.
func withStatus(it Item, status string) map[string]any {
	b, _ := json.Marshal(it)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["status"] = status
	if it.Type == "message" {
		m["content"] = it.Content // kept when empty
	}
	return m
}
