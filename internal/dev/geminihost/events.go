package geminihost

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Args are the arguments of a headless session: prompt as its one
// message (-p), its events as JSON lines on stdout (-o stream-json), and
// extra (--approval-mode, --allowed-tools, …) before them.
func Args(prompt string, extra ...string) []string {
	return append(extra, "-o", "stream-json", "-p", prompt)
}

// Event is one line of a session's stdout under -o stream-json (0.61.0):
//
//	init         session_id, model ("auto" unless -m or settings name one)
//	message      role (user: the prompt; assistant: a text of the model), content
//	tool_use     tool_name, tool_id, parameters (the call's args)
//	tool_result  tool_id, status (success, error), output (what the user
//	             would see, not what the model gets), error {type, message}
//	error        severity (warning, error), message: a loop detected, a
//	             turn limit, an empty or malformed answer of the model
//	result       status (success, error), stats, error {type, message}
//
// A subagent's calls are not among them: they are in the server's
// requests.
type Event struct {
	Type       string         `json:"type"`
	SessionID  string         `json:"session_id"`
	Model      string         `json:"model"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolName   string         `json:"tool_name"`
	ToolID     string         `json:"tool_id"`
	Parameters map[string]any `json:"parameters"`
	Status     string         `json:"status"`
	Output     string         `json:"output"`
	Severity   string         `json:"severity"`
	Message    string         `json:"message"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`

	Line string `json:"-"` // as printed
}

// ReadEvents reads a session's stdout. A line that is no JSON object is
// an error (the CLI printed something else on stdout).
func ReadEvents(r io.Reader) ([]Event, error) {
	var events []Event
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if s := strings.TrimSpace(line); s != "" {
			var e Event
			if jerr := json.Unmarshal([]byte(s), &e); jerr != nil || e.Type == "" {
				return events, fmt.Errorf("not an event of -o stream-json: %q", s)
			}
			e.Line = s
			events = append(events, e)
		}
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
	}
}

// Problems are what in events says a session went wrong: a tool result
// with an error, an error event, a result that is not a success, or no
// result at all (the session was cut short).
func Problems(events []Event) []string {
	var out []string
	done := false
	for _, e := range events {
		switch {
		case e.Type == "tool_result" && (e.Status != "success" || e.Error != nil):
			out = append(out, "a tool failed: "+e.Line)
		case e.Type == "error":
			out = append(out, "an error event: "+e.Line)
		case e.Type == "result":
			done = true
			if e.Status != "success" {
				out = append(out, "the session failed: "+e.Line)
			}
		}
	}
	if !done {
		out = append(out, "the session printed no result")
	}
	return out
}
