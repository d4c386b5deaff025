package scripted

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Wire is a wire format of a model API: what a host CLI sends and how a
// turn is answered in it. The server, the book and the replay are the
// same for every wire; a new wire format is one Wire. This package has
// the Messages API (Claude Code), the Responses API (Codex CLI, and
// Copilot CLI's responses mode), Chat Completions (OpenCode, Copilot
// CLI, Pi, Factory Droid) and the Gemini API (Gemini CLI).
type Wire interface {
	// Answers says whether a request to method and path is a turn of a
	// conversation; any other request is recorded and gets 404.
	Answers(method, path string) bool
	// Decode fills req's Model, Stream, System, Tools and Entries from
	// the request's body.
	Decode(body []byte, req *Request) error
	// Write sends the answer (req says whether to stream it).
	Write(w http.ResponseWriter, req *Request, answer Turn)
	// CallID is the id of call n (from 1) of the conversation whose
	// prompt hashes to prefix.
	CallID(prefix string, n int) string
}

// Server is the scripted model: a model API on 127.0.0.1 that answers
// each request from the script of the conversation it belongs to, and
// records every request it gets. A request belongs to the conversation
// named by its prompt: the first text of the user's role the host sent
// that is no context of its own (PromptOf); a conversation without a
// script gets a short text ("OK.") and is recorded as unknown.
type Server struct {
	URL string // http://127.0.0.1:PORT

	// PromptOf is the prompt a text of the user's role is: "" for a text
	// the host put before the prompt (Claude Code's system reminders,
	// Codex's <environment_context>), which never names a conversation;
	// the text without what the host added to it (Copilot CLI's
	// <current_datetime>). Set it before the first request; nil: every
	// text is a prompt as it is.
	PromptOf func(text string) string

	// Handle, Requests, Failures and Failed come from the book.
	Book[Script, Request]

	wire    Wire
	http    *httptest.Server
	recMu   sync.Mutex
	records map[string]string
	meetMu  sync.Mutex
	meeting *meeting
}

// NewServer starts a server speaking wire on a free loopback port; it
// stops when the test ends.
func NewServer(t testing.TB, wire Wire) *Server {
	s := &Server{wire: wire, records: map[string]string{}}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	t.Cleanup(s.http.Close)
	return s
}

// Unknown returns the requests of conversations no script handles (the
// host's side requests: a session title), which got a short text answer.
func (s *Server) Unknown() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Answer != nil && !r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

// Conversation are the requests of the conversation whose prompt is
// prompt, in order.
func (s *Server) Conversation(prompt string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Prompt == prompt {
			out = append(out, r)
		}
	}
	return out
}

// Calls are the calls of the conversation whose prompt is prompt, from
// its last request, each with its result.
func (s *Server) Calls(prompt string) []CallResult {
	reqs := s.Conversation(prompt)
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1].Calls()
}

// Prompts are the prompts of every conversation, in the order each
// began.
func (s *Server) Prompts() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.Requests() {
		if !seen[r.Prompt] {
			seen[r.Prompt] = true
			out = append(out, r.Prompt)
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

// ClearRecords forgets what scripts recorded: a new session's records
// are its own.
func (s *Server) ClearRecords() {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	s.records = map[string]string{}
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

// promptOf is the conversation's key: the first user text that is no
// context.
func (s *Server) promptOf(entries []Entry) string {
	for _, e := range entries {
		if e.Turn != nil || e.Result != nil || e.Role != "user" {
			continue
		}
		if s.PromptOf == nil {
			return e.Text
		}
		if p := s.PromptOf(e.Text); p != "" {
			return p
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
	decodeErr := s.wire.Decode(body, req)
	if decodeErr == nil {
		req.Prompt = s.promptOf(req.Entries)
	}
	req.Seq = s.Record(req)

	// Everything but the turns' endpoint is 404 (count_tokens, a models
	// list: the host then falls back to its own estimate or catalog).
	if !s.wire.Answers(r.Method, r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	if decodeErr != nil {
		http.Error(w, "bad request body: "+decodeErr.Error(), http.StatusBadRequest)
		return
	}
	s.meet(req.Prompt)
	answer, played := s.answer(req)
	s.Locked(func() { req.Answer, req.Scripted = &answer, played })
	s.wire.Write(w, req, answer)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// UnknownAnswer is what a conversation without a script gets.
const UnknownAnswer = "OK."

func (s *Server) answer(req *Request) (Turn, bool) {
	script, ok := s.Script(req.Prompt)
	if !ok {
		return Turn{Text: UnknownAnswer}, false
	}
	turn, err := replay(s, req, script)
	if err != nil {
		msg := fmt.Sprintf("request %d, conversation %q: %v", req.Seq, Clip(req.Prompt, 60), err)
		s.Fail(msg)
		return Turn{Text: "SCRIPT FAILED: " + msg}, true
	}
	return turn, true
}
