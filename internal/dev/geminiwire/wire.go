package geminiwire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Request is one request the CLI made, decoded.
type Request struct {
	Seq    int    // 1 for the first request the server got
	Method string // POST
	Path   string // /v1beta/models/<model>:<rpc>
	Model  string // <model>: auto routing names the model of each turn
	RPC    string // generateContent or streamGenerateContent
	Stream bool   // streamGenerateContent?alt=sse: the answer is server-sent events
	Header http.Header
	Body   json.RawMessage // as sent

	System   string          // systemInstruction's text
	Contents []Content       // the conversation, oldest first
	Tools    []Declaration   // the function declarations offered
	Schema   json.RawMessage // generationConfig.responseJsonSchema: the answer must be JSON of it

	Prompt   string  // the conversation's key (promptOf)
	Side     bool    // a side request: answered with JSON of Schema
	Scripted bool    // an agent answered it
	Answer   *Answer // what the server answered
}

// Content is one turn of the conversation: role "user" (the prompt, the
// function responses, a note of the CLI's) or "model".
type Content struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one part of a content: a text (a thought when Thought is set),
// a function call or a function response.
type Part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	// ThoughtSignature is what the CLI puts on a call it sends back
	// ("skip_thought_signature_validator" for one the API did not sign).
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

// FunctionCall is a call the model makes. The CLI keeps ID when the
// model gives one and makes one up otherwise; the response carries it.
type FunctionCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

func (c FunctionCall) String() string {
	b, _ := json.Marshal(c.Args)
	return fmt.Sprintf("%s %s %s", c.Name, c.ID, scripted.Clip(string(b), 200))
}

// FunctionResponse is what came back for a call: Response holds "output"
// or "error" (a string each, for the CLI's tools).
type FunctionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

// Declaration is a function the CLI offers the model; its parameters
// are a JSON schema.
type Declaration struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parametersJsonSchema"`
}

// ToolNames are the names of the request's declarations, in order.
func (r Request) ToolNames() []string {
	var out []string
	for _, d := range r.Tools {
		out = append(out, d.Name)
	}
	return out
}

// Tool is the declaration named name, if the request offers it.
func (r Request) Tool(name string) (Declaration, bool) {
	for _, d := range r.Tools {
		if d.Name == name {
			return d, true
		}
	}
	return Declaration{}, false
}

// body is a request body as the CLI sends it (google-genai's REST form).
type body struct {
	Contents          []Content `json:"contents"`
	SystemInstruction *Content  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []Declaration `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

// decode fills r's decoded fields from b.
func (r *Request) decode(b []byte) error {
	var d body
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	r.Contents = d.Contents
	if d.SystemInstruction != nil {
		r.System = texts(d.SystemInstruction.Parts)
	}
	for _, t := range d.Tools {
		r.Tools = append(r.Tools, t.FunctionDeclarations...)
	}
	r.Schema = d.GenerationConfig.ResponseJSONSchema
	r.Prompt = promptOf(r.Contents)
	return nil
}

// texts joins the text parts that are not thoughts.
func texts(parts []Part) string {
	var out []string
	for _, p := range parts {
		if p.Text != "" && !p.Thought {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// sessionContext opens the text the CLI puts before the user's first
// message of a session (date, OS, workspace, its file tree): it differs
// from run to run, so it is no part of the conversation's key.
const sessionContext = "<session_context>"

// promptOf is a conversation's key: the text of its user contents before
// the first model content, the session context left out. For a session
// that is the prompt given with -p; for a subagent, the prompt of the
// invoke_agent call that started it.
func promptOf(contents []Content) string {
	var out []string
	for _, c := range contents {
		if c.Role == "model" {
			break
		}
		for _, p := range c.Parts {
			if p.Text != "" && !p.Thought && !strings.HasPrefix(p.Text, sessionContext) {
				out = append(out, p.Text)
			}
		}
	}
	return strings.Join(out, "\n")
}

// Answer is what the model answers in one turn: a text, function calls,
// or both (the text first).
type Answer struct {
	Text  string
	Calls []FunctionCall
}

func (a Answer) String() string {
	var s []string
	if a.Text != "" {
		s = append(s, fmt.Sprintf("text %q", scripted.Clip(a.Text, 200)))
	}
	for _, c := range a.Calls {
		s = append(s, c.String())
	}
	return strings.Join(s, ", ")
}

// parts are a's parts: the text, then each call.
func (a Answer) parts() []Part {
	var parts []Part
	if a.Text != "" {
		parts = append(parts, Part{Text: a.Text})
	}
	for _, c := range a.Calls {
		c := c
		parts = append(parts, Part{FunctionCall: &c})
	}
	return parts
}

// response is one GenerateContentResponse holding parts; last adds the
// finish reason and the usage, which the CLI takes from the stream's last
// chunk.
func response(model string, parts []Part, last bool) map[string]any {
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": model}
	if last {
		cand["finishReason"] = "STOP"
		r["usageMetadata"] = map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
	}
	return r
}

// write sends a as the answer to req.
func write(w http.ResponseWriter, req *Request, a Answer) {
	writeParts(w, req.Model, req.Stream, a.parts())
}

// writeParts sends parts as the answer of model: one
// GenerateContentResponse as JSON, or for a stream one server-sent event
// a part, the last with the finish reason and the usage.
func writeParts(w http.ResponseWriter, model string, stream bool, parts []Part) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(response(model, parts, true))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for i, p := range parts {
		b, _ := json.Marshal(response(model, []Part{p}, i == len(parts)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
