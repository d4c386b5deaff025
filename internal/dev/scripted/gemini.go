package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is the Gemini API, as Gemini CLI speaks it:
// POST /v1beta/models/<model>:generateContent, answered with one JSON
// GenerateContentResponse, and :streamGenerateContent?alt=sse, one
// server-sent event ("data: JSON" and a blank line, CRLF) a part, the
// finish reason and the usage on the last. A request has contents (roles
// user and model; a part is a text, a thought, a functionCall {id, name,
// args} or a functionResponse {id, name, response: {output}|{error}}),
// a systemInstruction, tools[].functionDeclarations
// (parametersJsonSchema) and a generationConfig. A turn is written as one
// part. Two things only this wire does, so that a script runs as it runs
// on every other wire:
//
//   - a side request (a generationConfig.responseJsonSchema: the CLI's
//     routing classifier and loop check) names no conversation (its texts
//     are of the role GeminiSide), so it gets the unknown answer, which
//     Write replaces with JSON of the schema (fillSchema);
//   - a subagent ends with a complete_task call, not with a text: a text
//     turn of a conversation offered complete_task is written as that
//     call, the text its result ({"response": text} where the tool's
//     result is an object, as the generalist's is; else the text).
type Gemini struct{}

// GeminiSide is the role of a side request's texts in the transcript.
const GeminiSide = "side"

// geminiModels opens every path of the API: the model and the method
// follow, "<model>:<rpc>".
const geminiModels = "/v1beta/models/"

// completeTask is the tool a Gemini CLI subagent ends its run with.
const completeTask = "complete_task"

func (Gemini) Answers(method, path string) bool {
	model, rpc, ok := strings.Cut(strings.TrimPrefix(path, geminiModels), ":")
	return method == http.MethodPost && strings.HasPrefix(path, geminiModels) && ok && model != "" &&
		(rpc == "generateContent" || rpc == "streamGenerateContent")
}

func (Gemini) CallID(prefix string, n int) string { return fmt.Sprintf("sdd-%s-%03d", prefix, n) }

// geminiBody is a request body as the CLI sends it (google-genai's REST
// form).
type geminiBody struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []geminiPart `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

// geminiPart is one part of a content.
type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

// geminiCall is a call the model makes. The CLI keeps ID and sends it
// back with the call's response.
type geminiCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// geminiResponse is what came back for a call: "output" or "error", a
// string each for the CLI's tools.
type geminiResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

func (Gemini) Decode(b []byte, req *Request) error {
	var d geminiBody
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	model, rpc, _ := strings.Cut(strings.TrimPrefix(req.Path, geminiModels), ":")
	req.Model, req.Stream = model, rpc == "streamGenerateContent"
	if d.SystemInstruction != nil {
		var texts []string
		for _, p := range d.SystemInstruction.Parts {
			if p.Text != "" && !p.Thought {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			req.System = append(req.System, strings.Join(texts, "\n"))
		}
	}
	for _, t := range d.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters})
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
				req.Entries = append(req.Entries, Entry{Turn: &Turn{Call: &Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: in}}})
			case p.FunctionResponse != nil:
				r := p.FunctionResponse
				text, _ := r.Response["output"].(string)
				failure, _ := r.Response["error"].(string)
				if failure != "" {
					text = failure
				}
				req.Entries = append(req.Entries, Entry{Result: &Result{CallID: r.ID, Text: text, IsError: failure != ""}})
			case c.Role == "model":
				req.Entries = append(req.Entries, Entry{Turn: &Turn{Text: p.Text}})
			case p.Text != "":
				role := c.Role
				if side {
					role = GeminiSide
				}
				req.Entries = append(req.Entries, Entry{Role: role, Text: p.Text})
			}
		}
	}
	return nil
}

func (Gemini) Write(w http.ResponseWriter, req *Request, t Turn) {
	var d geminiBody
	json.Unmarshal(req.Body, &d)
	part := geminiPart{Text: t.Text}
	switch tool, ok := req.Tool(completeTask); {
	case len(d.GenerationConfig.ResponseJSONSchema) > 0:
		part.Text = "{}"
		if v, err := fillSchema(d.GenerationConfig.ResponseJSONSchema); err == nil {
			b, _ := json.Marshal(v)
			part.Text = string(b)
		}
	case t.Call != nil:
		var args map[string]any
		if err := json.Unmarshal(t.Call.Input, &args); err != nil {
			args = map[string]any{}
		}
		part = geminiPart{FunctionCall: &geminiCall{ID: t.Call.ID, Name: t.Call.Name, Args: args}}
	case ok:
		args := map[string]any{"result": completeResult(tool, t.Text)}
		part = geminiPart{FunctionCall: &geminiCall{ID: fmt.Sprintf("sdd-end-%04d", req.Seq), Name: completeTask, Args: args}}
	}
	parts := []geminiPart{part}
	if t.Call != nil && len(d.GenerationConfig.ResponseJSONSchema) == 0 {
		// Several calls in one turn (Turn.Also): a part for each.
		for _, c := range t.Also {
			var args map[string]any
			if err := json.Unmarshal(c.Input, &args); err != nil {
				args = map[string]any{}
			}
			parts = append(parts, geminiPart{FunctionCall: &geminiCall{ID: c.ID, Name: c.Name, Args: args}})
		}
	}
	// The CLI takes the finish reason and the usage from the stream's
	// last chunk; with one chunk, that is the one.
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model,
		"usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	b, _ := json.Marshal(resp)
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

// completeResult is text as complete_task's result: an object
// {"response": text} where the tool's result is an object (the
// generalist's), else the text.
func completeResult(tool Tool, text string) any {
	var schema struct {
		Properties struct {
			Result map[string]any `json:"result"`
		} `json:"properties"`
	}
	json.Unmarshal(tool.Parameters, &schema)
	if schemaType(schema.Properties.Result) == "object" {
		return map[string]any{"response": text}
	}
	return text
}
