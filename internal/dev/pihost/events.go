package pihost

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Event is one line of a session's stdout under --mode json (0.73.1):
//
//	session                 id, cwd
//	agent_start, turn_start
//	message_start, message_update, message_end
//	                        message: role (user, assistant, toolResult), content
//	                        (text, toolCall parts), stopReason (stop, toolUse,
//	                        error, aborted), errorMessage
//	tool_execution_start, tool_execution_update, tool_execution_end
//	                        toolCallId, toolName, args; at the end result
//	                        (content) and isError
//	turn_end, agent_end     (agent_end: every message of the run)
//
// A subagent's events go to the extension that ran its pi process, not
// here: its calls are in the server's requests.
type Event struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
	IsError    bool            `json:"isError"`
	Result     *struct {
		Content []part `json:"content"`
	} `json:"result"`
	Message *struct {
		Role         string `json:"role"`
		Content      []part `json:"content"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage"`
	} `json:"message"`

	Line string `json:"-"`
}

type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func texts(ps []part) string {
	var out []string
	for _, p := range ps {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// ReadEvents reads a session's stdout. message_update and
// tool_execution_update lines, which repeat what the next end line
// holds whole, are left out.
func ReadEvents(r io.Reader) ([]Event, error) {
	var events []Event
	err := harness.ReadEvents(r, func(e Event, line json.RawMessage) {
		if strings.HasSuffix(e.Type, "_update") {
			return
		}
		e.Line = string(line)
		events = append(events, e)
	})
	return events, err
}

// Final is the text of the session's last assistant message.
func Final(events []Event) string {
	final := ""
	for _, e := range events {
		if e.Type == "message_end" && e.Message != nil && e.Message.Role == "assistant" {
			if t := texts(e.Message.Content); t != "" {
				final = t
			}
		}
	}
	return final
}

// Problems are what in events says a session went wrong: a tool whose
// execution ended in an error, an assistant message that ended in an
// error or was aborted (the model's request failed), or no agent_end
// (the session was cut short).
func Problems(events []Event) []string {
	var out []string
	done := false
	for _, e := range events {
		switch {
		case e.Type == "tool_execution_end" && e.IsError:
			var result string
			if e.Result != nil {
				result = texts(e.Result.Content)
			}
			out = append(out, fmt.Sprintf("%s %s came back an error: %s", e.ToolName, scripted.Clip(string(e.Args), 300), scripted.Clip(result, 1000)))
		case e.Type == "message_end" && e.Message != nil && e.Message.Role == "assistant" &&
			(e.Message.StopReason == "error" || e.Message.StopReason == "aborted"):
			out = append(out, fmt.Sprintf("the model's turn ended %s: %s", e.Message.StopReason, e.Message.ErrorMessage))
		case e.Type == "agent_end":
			done = true
		}
	}
	if !done {
		out = append(out, "the session printed no agent_end")
	}
	return out
}
