// Package geminiwire is a scripted model speaking the Gemini API, the
// wire format of the Gemini CLI (the version pinned in
// internal/dev/geminicli), on 127.0.0.1.
//
// The CLI posts /v1beta/models/<model>:generateContent (answered with one
// JSON GenerateContentResponse) and :streamGenerateContent?alt=sse (one
// server-sent event a part). Server decodes each request (Request: the
// conversation's contents, the function declarations, a response schema)
// and answers it as one of three kinds:
//
//   - a side request, one asking for JSON of a responseJsonSchema (the
//     routing classifier, before the first turn of a session and of each
//     subagent): JSON of the schema (Fill), recorded as Side;
//   - a turn of a conversation with an agent (Handle: an Agent by the
//     conversation's prompt): the agent's Answer, a text and function
//     calls;
//   - a turn of a conversation without one: the text "OK.", recorded as
//     unknown.
//
// An Agent sees the request decoded; Turns (turns.go) reads its
// conversation as the model's turns and what came back for each. Script
// (script.go) is an agent written in straight-line Go and replayed on
// every request; tools.go has the calls of the CLI's tools a script
// makes. The server knows nothing of a session: the tests of the real
// CLI (cli_test.go) run one with internal/dev/geminicli.
package geminiwire

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Agent answers a request of its conversation; an error fails the test
// (Failures) and ends the turn with a text saying why.
type Agent func(r *Request) (Answer, error)

// Server is the scripted model. Handle, Requests, Failures and Failed come
// from the book.
type Server struct {
	URL string // http://127.0.0.1:PORT: GOOGLE_GEMINI_BASE_URL

	http *httptest.Server
	scripted.Book[Agent, Request]
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

// Side returns the side requests, which got JSON of their schema.
func (s *Server) Side() []Request {
	return s.filter(func(r *Request) bool { return r.Side })
}

// Unknown returns the turns of conversations no agent handles, which got
// "OK.".
func (s *Server) Unknown() []Request {
	return s.filter(func(r *Request) bool { return r.Answer != nil && !r.Side && !r.Scripted })
}

// Turns returns the requests an agent answered.
func (s *Server) Turns() []Request {
	return s.filter(func(r *Request) bool { return r.Scripted })
}

func (s *Server) filter(keep func(*Request) bool) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if keep(&r) {
			out = append(out, r)
		}
	}
	return out
}

// modelsPath opens every path the CLI posts to: the model and the method
// follow, "<model>:<rpc>".
const modelsPath = "/v1beta/models/"

// unknownAnswer is what a conversation without an agent gets.
const unknownAnswer = "OK."

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: b}
	model, rpc, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, modelsPath), ":")
	req.Model, req.RPC = model, rpc
	req.Stream = rpc == "streamGenerateContent" && r.URL.Query().Get("alt") == "sse"
	decodeErr := req.decode(b)
	req.Seq = s.Record(req)

	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, modelsPath) ||
		(rpc != "generateContent" && rpc != "streamGenerateContent") {
		s.Fail(fmt.Sprintf("request %d: %s %s is no method of the scripted model", req.Seq, r.Method, r.URL))
		http.NotFound(w, r)
		return
	}
	if decodeErr != nil {
		s.Fail(fmt.Sprintf("request %d: %v", req.Seq, decodeErr))
		http.Error(w, "bad request body: "+decodeErr.Error(), http.StatusBadRequest)
		return
	}
	a := s.answer(req)
	s.Locked(func() { req.Answer = &a })
	write(w, req, a)
}

// answer is the answer to req, and marks its kind.
func (s *Server) answer(req *Request) Answer {
	if len(req.Schema) > 0 {
		s.Locked(func() { req.Side = true })
		v, err := Fill(req.Schema)
		if err != nil {
			s.Fail(fmt.Sprintf("request %d: %v", req.Seq, err))
			return Answer{Text: "{}"}
		}
		return Answer{Text: marshal(v)}
	}
	agent, ok := s.Script(req.Prompt)
	if !ok {
		return Answer{Text: unknownAnswer}
	}
	s.Locked(func() { req.Scripted = true })
	a, err := agent(req)
	if err == nil && a.Text == "" && len(a.Calls) == 0 {
		err = fmt.Errorf("an empty answer")
	}
	if err != nil {
		msg := fmt.Sprintf("request %d, conversation %q: %v", req.Seq, scripted.Clip(req.Prompt, 60), err)
		s.Fail(msg)
		return Answer{Text: "SCRIPT FAILED: " + msg}
	}
	return a
}
