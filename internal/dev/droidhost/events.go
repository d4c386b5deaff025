package droidhost

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Event is one line of a session's stdout under -o stream-json
// (0.225.2):
//
//	system       subtype init: session_id, cwd, model, tools (every tool of
//	             the build, not the ones the model is offered)
//	message      role (user, assistant), text
//	tool_call    id, toolName, parameters
//	tool_result  id, toolId, isError; value, or error {type, message}
//	error        message ("Exec ended early: insufficient permission to
//	             proceed. …": a call Droid would have asked a person about)
//	completion   finalText, numTurns, durationMs, usage
//
// A subagent's calls are not among them: they are in the server's
// requests.
type Event struct {
	Type       string          `json:"type"`
	Subtype    string          `json:"subtype"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Text       string          `json:"text"`
	ID         string          `json:"id"`
	ToolName   string          `json:"toolName"`
	ToolID     string          `json:"toolId"`
	Parameters json.RawMessage `json:"parameters"`
	IsError    bool            `json:"isError"`
	Value      string          `json:"value"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Message   string `json:"message"`
	FinalText string `json:"finalText"`

	Line string `json:"-"`
}

// ReadEvents reads a session's stdout.
func ReadEvents(r io.Reader) ([]Event, error) {
	var events []Event
	err := harness.ReadEvents(r, func(e Event, line json.RawMessage) {
		e.Line = string(line)
		events = append(events, e)
	})
	return events, err
}

// Final is the session's last words: the completion's final text.
func Final(events []Event) string {
	for _, e := range events {
		if e.Type == "completion" {
			return e.FinalText
		}
	}
	return ""
}

// Problems are what in events says a session went wrong: a tool result
// marked an error, an error event (the run ended early), or no
// completion.
func Problems(events []Event) []string {
	var out []string
	done := false
	for _, e := range events {
		switch e.Type {
		case "tool_result":
			if e.IsError {
				msg := e.Value
				if e.Error != nil {
					msg = e.Error.Message
				}
				out = append(out, fmt.Sprintf("%s %s came back an error: %s", e.ToolID, e.ID, scripted.Clip(msg, 1000)))
			}
		case "error":
			out = append(out, "an error event: "+scripted.Clip(e.Line, 1000))
		case "completion":
			done = true
		}
	}
	if !done {
		out = append(out, "the session printed no completion")
	}
	return out
}
