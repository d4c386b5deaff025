package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Messages is Anthropic's Messages API (POST /v1/messages), as Claude
// Code speaks it. A request's system prompt is a string or text blocks;
// its messages are user (text blocks, tool_result blocks with an
// is_error mark) and assistant (a text or a tool_use block: one turn a
// message, as the server answers). An answer is one assistant message;
// streamed, it is message_start, the block's start, its text or its
// input as one delta, its stop, message_delta with the stop reason
// (end_turn, tool_use) and message_stop.
type Messages struct{}

// MessagesPath is Messages' one endpoint; a host's base URL is the
// server's own (the CLI adds /v1/messages, count_tokens and a query).
const MessagesPath = "/v1/messages"

func (Messages) Answers(method, path string) bool {
	return method == http.MethodPost && path == MessagesPath
}

func (Messages) CallID(prefix string, n int) string {
	return fmt.Sprintf("toolu_sdd%s_%03d", prefix, n)
}

// Block is one content block of the Messages API (and of Claude Code's
// stream-json events): text, tool_use or tool_result.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`          // tool_use
	Name      string          `json:"name,omitempty"`        // tool_use
	Input     json.RawMessage `json:"input,omitempty"`       // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"` // tool_result
	Content   Blocks          `json:"content,omitempty"`     // tool_result
	IsError   bool            `json:"is_error,omitempty"`    // tool_result
}

// Blocks is a content: a list of blocks, or a string (one text block).
type Blocks []Block

func (bs *Blocks) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*bs = Blocks{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(b, (*[]Block)(bs))
}

// Text is the text blocks joined by newlines: a tool_result's content
// as text.
func (bs Blocks) Text() string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (Messages) Decode(body []byte, req *Request) error {
	var v struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		System Blocks `json:"system"`
		Tools  []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content Blocks `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	req.Model, req.Stream = v.Model, v.Stream
	for _, b := range v.System {
		if b.Type == "text" {
			req.System = append(req.System, b.Text)
		}
	}
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	for _, m := range v.Messages {
		if m.Role == "assistant" {
			// One turn a message, as the server answers: its first text
			// or tool_use block (a thinking block is none); a message of
			// several tool_use blocks (Turn.Also), a turn for each.
			for _, b := range m.Content {
				if b.Type == "text" {
					req.Entries = append(req.Entries, Entry{Turn: &Turn{Text: b.Text}})
					break
				}
				if b.Type == "tool_use" {
					req.Entries = append(req.Entries, Entry{Turn: &Turn{Call: &Call{ID: b.ID, Name: b.Name, Input: b.Input}}})
				}
			}
			continue
		}
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				req.Entries = append(req.Entries, Entry{Role: m.Role, Text: b.Text})
			case "tool_result":
				req.Entries = append(req.Entries, Entry{Result: &Result{CallID: b.ToolUseID, Text: b.Content.Text(), IsError: b.IsError}})
			}
		}
	}
	return nil
}

func (Messages) Write(w http.ResponseWriter, req *Request, t Turn) {
	b := Block{Type: "text", Text: t.Text}
	stop := "end_turn"
	blocks := []Block{b}
	if t.Call != nil {
		b, stop = Block{Type: "tool_use", ID: t.Call.ID, Name: t.Call.Name, Input: t.Call.Input}, "tool_use"
		blocks = []Block{b}
		for _, c := range t.Also {
			blocks = append(blocks, Block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Input})
		}
	}
	id := fmt.Sprintf("msg_sdd_%04d", req.Seq)
	usage := map[string]int{"input_tokens": 1, "output_tokens": 1}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, v map[string]any) {
		v["type"] = name
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	for i, b := range blocks {
		if t.Call == nil {
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b.Text}})
		} else {
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{
				"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 1},
	})
	event("message_stop", map[string]any{})
}
