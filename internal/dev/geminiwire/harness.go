package geminiwire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Wire is the Gemini API as a scripted.Wire, the shared harness's model
// (internal/dev/harness) for the Gemini host suite: a request decoded
// into the neutral transcript, a turn written as one part. Two things
// only this wire does, so that a script of the shared scenarios runs as
// it runs on every other host:
//
//   - a side request (a responseJsonSchema: the routing classifier)
//     names no conversation (its texts are of the role "side"), so it
//     gets the unknown answer, which Write replaces with JSON of the
//     schema (Fill);
//   - a subagent ends with complete_task, not with a text: a text turn
//     of a conversation offered complete_task is written as that call,
//     the text its result ({"response": text} for the generalist, the
//     text itself for an agent whose result is a string).
type Wire struct{}

// SideRole is the role of a side request's texts in the transcript.
const SideRole = "side"

// CompleteTask is the tool a subagent ends its run with.
const CompleteTask = "complete_task"

func (Wire) Answers(method, path string) bool {
	model, rpc, ok := strings.Cut(strings.TrimPrefix(path, modelsPath), ":")
	return method == http.MethodPost && strings.HasPrefix(path, modelsPath) && ok && model != "" &&
		(rpc == "generateContent" || rpc == "streamGenerateContent")
}

func (Wire) CallID(prefix string, n int) string { return fmt.Sprintf("sdd-%s-%03d", prefix, n) }

// PromptOf is the prompt a user text is: none for the session context
// the CLI puts before a session's prompt.
func PromptOf(text string) string {
	if strings.HasPrefix(text, sessionContext) {
		return ""
	}
	return text
}

func (Wire) Decode(b []byte, req *scripted.Request) error {
	var d body
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	model, rpc, _ := strings.Cut(strings.TrimPrefix(req.Path, modelsPath), ":")
	req.Model, req.Stream = model, rpc == "streamGenerateContent"
	if d.SystemInstruction != nil {
		if t := texts(d.SystemInstruction.Parts); t != "" {
			req.System = append(req.System, t)
		}
	}
	for _, t := range d.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, scripted.Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters})
		}
	}
	side := len(d.GenerationConfig.ResponseJSONSchema) > 0
	for _, c := range d.Contents {
		for _, p := range c.Parts {
			switch {
			case p.Thought:
			case p.FunctionCall != nil:
				in, err := json.Marshal(p.FunctionCall.Args)
				if err != nil {
					return err
				}
				req.Entries = append(req.Entries, scripted.Entry{Turn: &scripted.Turn{Call: &scripted.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: in}}})
			case p.FunctionResponse != nil:
				r := *p.FunctionResponse
				text, isErr := r.Output(), r.Error() != ""
				if isErr {
					text = r.Error()
				}
				req.Entries = append(req.Entries, scripted.Entry{Result: &scripted.Result{CallID: r.ID, Text: text, IsError: isErr}})
			case c.Role == "model":
				req.Entries = append(req.Entries, scripted.Entry{Turn: &scripted.Turn{Text: p.Text}})
			case p.Text != "":
				role := c.Role
				if side {
					role = SideRole
				}
				req.Entries = append(req.Entries, scripted.Entry{Role: role, Text: p.Text})
			}
		}
	}
	return nil
}

func (Wire) Write(w http.ResponseWriter, req *scripted.Request, t scripted.Turn) {
	var d body
	json.Unmarshal(req.Body, &d)
	if schema := d.GenerationConfig.ResponseJSONSchema; len(schema) > 0 {
		v, err := Fill(schema)
		text := "{}"
		if err == nil {
			text = marshal(v)
		}
		writeParts(w, req.Model, req.Stream, []Part{{Text: text}})
		return
	}
	if t.Call != nil {
		var args map[string]any
		if err := json.Unmarshal(t.Call.Input, &args); err != nil {
			args = map[string]any{}
		}
		writeParts(w, req.Model, req.Stream, []Part{{FunctionCall: &FunctionCall{ID: t.Call.ID, Name: t.Call.Name, Args: args}}})
		return
	}
	if tool, ok := req.Tool(CompleteTask); ok {
		call := FunctionCall{ID: fmt.Sprintf("sdd-end-%04d", req.Seq), Name: CompleteTask, Args: map[string]any{"result": completeResult(tool, t.Text)}}
		writeParts(w, req.Model, req.Stream, []Part{{FunctionCall: &call}})
		return
	}
	writeParts(w, req.Model, req.Stream, []Part{{Text: t.Text}})
}

// completeResult is text as complete_task's result: an object
// {"response": text} where the tool's result is an object (the
// generalist's), else the text.
func completeResult(tool scripted.Tool, text string) any {
	var schema struct {
		Properties struct {
			Result map[string]any `json:"result"`
		} `json:"properties"`
	}
	json.Unmarshal(tool.Parameters, &schema)
	if typeOf(schema.Properties.Result) == "object" {
		return map[string]any{"response": text}
	}
	return text
}
