package opencodehost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Server is the scripted model: an OpenAI Chat Completions API on
// 127.0.0.1 that answers each request from the script of the conversation
// it belongs to, and records every request it gets.
type Server struct {
	URL string // http://127.0.0.1:PORT; the API is under /v1

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
// host's side requests: the session title), which got a short text answer.
func (s *Server) Unknown() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Answer != nil && !r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

// completionsPath is the one endpoint: @ai-sdk/openai-compatible posts
// to <baseURL>/chat/completions, and the configuration's baseURL is the
// server's /v1.
const completionsPath = "/v1/chat/completions"

// Request is one request the host made, decoded.
type Request struct {
	Seq      int    // 1 for the first request the server got
	Method   string // POST
	Path     string // /v1/chat/completions, …
	Model    string
	Stream   bool
	Tools    []Tool
	Messages []Message
	Body     json.RawMessage // as sent

	Prompt   string // the conversation's first user message ("" if none)
	Scripted bool   // a script answered it
	Answer   *Turn  // what the server answered (the completions path only)
}

// Tool is a tool the host offered the model.
type Tool struct {
	Type     string `json:"type"` // function
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ToolNames are the names of the request's tools, in order.
func (r *Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Message is one message of a request: system, user, assistant (its text
// and its tool calls), or tool (one call's result).
type Message struct {
	Role       string     `json:"role"`
	Content    Content    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Content is a message's content: a string, or a list of parts of which
// only the text parts are kept, joined; null is "".
type Content string

func (c *Content) UnmarshalJSON(b []byte) error {
	var s *string
	if json.Unmarshal(b, &s) == nil {
		*c = ""
		if s != nil {
			*c = Content(*s)
		}
		return nil
	}
	var parts []struct{ Type, Text string }
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	*c = Content(strings.Join(texts, "\n"))
	return nil
}

// ToolCall is one call of an assistant message.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // function
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"` // JSON text
	} `json:"function"`
}

// Turn is what the model answers in one turn: a text, or one tool call.
type Turn struct {
	Text string // the text, when Call is nil
	Call *ToolCall
}

func (t Turn) String() string {
	if t.Call == nil {
		return fmt.Sprintf("text %q", scripted.Clip(t.Text, 200))
	}
	return fmt.Sprintf("%s %s %s", t.Call.Function.Name, t.Call.ID, scripted.Clip(t.Call.Function.Arguments, 200))
}

// HasText reports whether any system or user message of the request
// contains s.
func (r *Request) HasText(s string) bool {
	for _, m := range r.Messages {
		if (m.Role == "system" || m.Role == "user") && strings.Contains(string(m.Content), s) {
			return true
		}
	}
	return false
}

// promptOf is the conversation's key: the first user message.
func promptOf(msgs []Message) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return string(m.Content)
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
		Tools    []Tool    `json:"tools"`
		Messages []Message `json:"messages"`
	}
	decodeErr := json.Unmarshal(body, &decoded)
	if decodeErr == nil {
		req.Model, req.Stream, req.Tools, req.Messages = decoded.Model, decoded.Stream, decoded.Tools, decoded.Messages
		req.Prompt = promptOf(req.Messages)
	}
	req.Seq = s.Record(req)

	if r.Method != http.MethodPost || r.URL.Path != completionsPath {
		http.NotFound(w, r)
		return
	}
	if decodeErr != nil {
		http.Error(w, "bad request body: "+decodeErr.Error(), http.StatusBadRequest)
		return
	}
	answer, played := s.answer(req)
	s.Locked(func() { req.Answer, req.Scripted = &answer, played })
	write(w, req, answer)
}

// unknownAnswer is what a conversation without a script gets.
const unknownAnswer = "OK."

func (s *Server) answer(req *Request) (turn Turn, played bool) {
	script, ok := s.Script(req.Prompt)
	if !ok {
		return Turn{Text: unknownAnswer}, false
	}
	turn, err := replay(s, req.Prompt, req.Messages, script)
	if err != nil {
		msg := fmt.Sprintf("request %d, conversation %q: %v", req.Seq, scripted.Clip(req.Prompt, 60), err)
		s.Fail(msg)
		return Turn{Text: "SCRIPT FAILED: " + msg}, true
	}
	return turn, true
}

// write sends the answer as one assistant message: a chat.completion, or
// when the request asked for a stream (opencode always does) server-sent
// chat.completion.chunk events, the whole text or the call in one delta,
// then a delta with the finish reason and the usage (the request asks for
// it with stream_options.include_usage), then [DONE].
func write(w http.ResponseWriter, req *Request, t Turn) {
	id := fmt.Sprintf("chatcmpl-sdd-%04d", req.Seq)
	created := time.Now().Unix()
	finish := "stop"
	msg := map[string]any{"role": "assistant", "content": t.Text}
	if t.Call != nil {
		finish = "tool_calls"
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []ToolCall{*t.Call}}
	}
	usage := map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	chunk := func(choice map[string]any, extra map[string]any) {
		v := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{choice}}
		for k, x := range extra {
			v[k] = x
		}
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := map[string]any{"role": "assistant", "content": t.Text}
	if t.Call != nil {
		// The call whole in one delta, with its index (the SDK merges the
		// deltas of one index, and takes the call as done once its
		// arguments parse).
		delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": t.Call.ID, "type": "function",
			"function": map[string]any{"name": t.Call.Function.Name, "arguments": t.Call.Function.Arguments},
		}}}
	}
	chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
	chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
