package host

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Server is the scripted model: an Anthropic Messages API on 127.0.0.1
// that answers each request from the script of the conversation it
// belongs to, and records every request it gets.
type Server struct {
	URL string // http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL

	http *httptest.Server

	// Handle, Requests, Failures and Failed come from the book.
	scripted.Book[Script, Request]
}

// NewServer starts a server on a free loopback port; it stops when the
// test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	t.Cleanup(s.http.Close)
	return s
}

// Unknown returns the requests of conversations no script handles (the
// host's side requests, if any), which got a short text answer.
func (s *Server) Unknown() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Answer != nil && !r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

const messagesPath = "/v1/messages"

// Request is one request the host made, decoded.
type Request struct {
	Seq      int    // 1 for the first request the server got
	Method   string // POST
	Path     string // /v1/messages, /v1/messages/count_tokens, …
	Model    string
	Stream   bool
	System   []Block
	Tools    []Tool
	Messages []Message
	Body     json.RawMessage // as sent

	Prompt   string  // the conversation's first prompt text ("" if none)
	Scripted bool    // a script answered it
	Answer   []Block // what the server answered (/v1/messages only)
}

// Tool is a tool the host offered the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Message is one message of a request. Content is always a list of
// blocks; a plain string content becomes one text block.
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block: text, tool_use or tool_result.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`          // tool_use
	Name      string          `json:"name,omitempty"`        // tool_use
	Input     json.RawMessage `json:"input,omitempty"`       // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"` // tool_result
	Content   json.RawMessage `json:"content,omitempty"`     // tool_result: a string or blocks
	IsError   bool            `json:"is_error,omitempty"`    // tool_result
}

// ResultText is a tool_result's content as text: the string, or its text
// blocks joined by newlines.
func (b Block) ResultText() string {
	return contentText(b.Content)
}

func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []Block
	if json.Unmarshal(raw, &bs) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	var s string
	if json.Unmarshal(raw.Content, &s) == nil {
		m.Content = []Block{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Content)
}

// Texts are the message's text blocks.
func (m Message) Texts() []string {
	var out []string
	for _, b := range m.Content {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// HasText reports whether any text the request carries (system prompt,
// tool descriptions aside, or a message's text) contains s.
func (r *Request) HasText(s string) bool {
	for _, b := range r.System {
		if strings.Contains(b.Text, s) {
			return true
		}
	}
	for _, m := range r.Messages {
		for _, t := range m.Texts() {
			if strings.Contains(t, s) {
				return true
			}
		}
	}
	return false
}

// IsSubagent reports whether a subagent made the request: the host marks
// its billing block so.
func (r *Request) IsSubagent() bool {
	for _, b := range r.System {
		if strings.Contains(b.Text, "cc_is_subagent=true") {
			return true
		}
	}
	return false
}

// promptOf is the conversation's key: the first text block of the user
// messages that is not a system reminder.
func promptOf(msgs []Message) string {
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		for _, t := range m.Texts() {
			if !strings.HasPrefix(t, "<system-reminder>") {
				return t
			}
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
	req := &Request{Method: r.Method, Path: r.URL.Path, Body: body}
	var decoded struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		System   []Block   `json:"system"`
		Tools    []Tool    `json:"tools"`
		Messages []Message `json:"messages"`
	}
	decodeErr := json.Unmarshal(body, &decoded)
	if decodeErr == nil {
		req.Model, req.Stream, req.System, req.Tools, req.Messages =
			decoded.Model, decoded.Stream, decoded.System, decoded.Tools, decoded.Messages
		req.Prompt = promptOf(req.Messages)
	}
	req.Seq = s.Record(req)

	// Everything but the messages endpoint is 404, count_tokens included:
	// `claude plugin details` then falls back to its local estimate.
	if r.Method != http.MethodPost || r.URL.Path != messagesPath {
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

func (s *Server) answer(req *Request) (blocks []Block, played bool) {
	script, ok := s.Script(req.Prompt)
	if !ok {
		return []Block{{Type: "text", Text: unknownAnswer}}, false
	}
	blocks, err := replay(s, req.Prompt, req.Messages, script)
	if err != nil {
		msg := fmt.Sprintf("request %d, conversation %q: %v", req.Seq, scripted.Clip(req.Prompt, 60), err)
		s.Fail(msg)
		return []Block{{Type: "text", Text: "SCRIPT FAILED: " + msg}}, true
	}
	return blocks, true
}

// write sends the answer as one assistant message, streamed as server-sent
// events when the request asked for a stream.
func write(w http.ResponseWriter, req *Request, blocks []Block) {
	stop := "end_turn"
	for _, b := range blocks {
		if b.Type == "tool_use" {
			stop = "tool_use"
		}
	}
	id := fmt.Sprintf("msg_sdd_%04d", req.Seq)
	usage := map[string]int{"input_tokens": 1, "output_tokens": 1}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{
				"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 1},
	})
	event("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
