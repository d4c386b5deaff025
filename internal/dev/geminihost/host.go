package geminihost

import (
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Host is one machine for sessions of the real CLI (harness.Machine), its
// model the API at GOOGLE_GEMINI_BASE_URL.
type Host struct {
	*harness.Machine
	Gemini string // the CLI's bundle, gemini.js
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_GEMINI_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	bin := hostcli.Gemini.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Gemini{}, harness.SystemPath(t, "node")), Gemini: bin}
	h.Server.PromptOf = promptOf
	return h
}

// promptOf is the prompt a user text is: none for the session context
// the CLI puts before a session's prompt (date, OS, the workspace and
// its tree), which differs from run to run.
func promptOf(text string) string {
	if strings.HasPrefix(text, "<session_context>") {
		return ""
	}
	return text
}

// Session is what one `gemini -p` run did: the process, the follower's
// steps and the controller's last words (Played), and its events.
type Session = harness.EventSession[Event]

// events is how a session's -o stream-json output reads (events.go).
var events = harness.Events[Event]{CLI: "gemini", Read: ReadEvents, Line: func(e Event) string { return e.Line }, Final: final}

// final is the session's last words: the assistant's texts, which
// stream in pieces.
func final(events []Event) string {
	var s string
	for _, e := range events {
		if e.Type == "message" && e.Role == "assistant" {
			s += e.Content
		}
	}
	return s
}

// Run runs `gemini -o stream-json -p prompt` in the repository, the
// scripted controller answering for the session, and checks what every
// run must hold: the process ended well, no script failed, the events
// show no failed call, no error and a successful result, every side
// request was answered in its schema, and no call of any conversation
// (the subagents' among them) came back an error. Failures are the
// test's (t.Errorf), with the transcript logged.
//
// Run is not harness.Events.Run: the CLI's side requests (its routing
// classifier, its loop check) name no conversation and get the wire's
// answer, not a script's, and a call's failure is the error mark the
// Gemini API carries, held in every conversation.
func (h *Host) Run(prompt string, controller scripted.Script) *Session {
	h.T.Helper()
	s, readErr := events.Play(h.Machine, prompt, controller, h.Env(), h.Gemini, Args(prompt)...)
	p := s.Played
	p.Ended("gemini", readErr)
	p.Problems = append(p.Problems, Problems(s.Events)...)
	if strings.Contains(p.Stderr, "[Routing]") {
		p.Problems = append(p.Problems, "the routing classifier could not read its answer: "+scripted.Clip(p.Stderr, 1000))
	}
	for _, conv := range h.Server.Prompts() {
		for _, c := range h.Server.Calls(conv) {
			if c.IsError {
				p.Problems = append(p.Problems, harness.Problem("an error: "+c.Output, c))
			}
		}
	}
	p.Report(h.Machine, s.Transcript)
	return s
}
