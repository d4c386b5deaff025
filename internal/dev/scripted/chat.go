package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Chat is the OpenAI Chat Completions API (POST /v1/chat/completions), as
// OpenCode's @ai-sdk/openai-compatible, Copilot CLI's BYOK provider, Pi's
// openai-completions and Droid's generic-chat-completion-api provider
// speak it. A request's messages are system, user, assistant (its text
// or its tool calls) and tool (one call's result, by tool_call_id; no
// error mark). An answer is one assistant message; streamed (the hosts
// always ask), it is one chat.completion.chunk with the whole text or
// the one call (its index, id, type, name and arguments whole), one with
// the finish reason (stop, tool_calls) and the usage, then [DONE].
type Chat struct{}

// ChatPath is Chat's one endpoint; a host's base URL is the server's /v1.
const ChatPath = "/v1/chat/completions"

func (Chat) Answers(method, path string) bool {
	return method == http.MethodPost && path == ChatPath
}

func (Chat) CallID(prefix string, n int) string { return fmt.Sprintf("call_sdd%s_%03d", prefix, n) }

// chatCall is a tool call as Chat Completions carries it.
type chatCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"` // JSON text
	} `json:"function"`
}

// chatContent is a message's content: a string, or a list of parts of
// which the text parts are kept, joined; null is "".
type chatContent string

func (c *chatContent) UnmarshalJSON(b []byte) error {
	var s *string
	if json.Unmarshal(b, &s) == nil {
		*c = ""
		if s != nil {
			*c = chatContent(*s)
		}
		return nil
	}
	var parts []struct{ Type, Text string }
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	*c = chatContent(strings.Join(texts, "\n"))
	return nil
}

func (Chat) Decode(body []byte, req *Request) error {
	var v struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string      `json:"role"`
			Content    chatContent `json:"content"`
			ToolCalls  []chatCall  `json:"tool_calls"`
			ToolCallID string      `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	req.Model, req.Stream = v.Model, v.Stream
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	for _, m := range v.Messages {
		switch m.Role {
		case "system", "developer":
			req.System = append(req.System, string(m.Content))
		case "assistant":
			// One turn a message, as the server answers: its text, or a
			// turn for each of its calls (Turn.Also: several in one
			// message).
			if len(m.ToolCalls) == 0 {
				req.Entries = append(req.Entries, Entry{Turn: &Turn{Text: string(m.Content)}})
			}
			for _, c := range m.ToolCalls {
				req.Entries = append(req.Entries, Entry{Turn: &Turn{Call: &Call{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(c.Function.Arguments)}}})
			}
		case "tool":
			req.Entries = append(req.Entries, Entry{Result: &Result{CallID: m.ToolCallID, Text: string(m.Content)}})
		default:
			req.Entries = append(req.Entries, Entry{Role: m.Role, Text: string(m.Content)})
		}
	}
	return nil
}

func (Chat) Write(w http.ResponseWriter, req *Request, t Turn) {
	id := fmt.Sprintf("chatcmpl-sdd-%04d", req.Seq)
	created := time.Now().Unix()
	finish := "stop"
	msg := map[string]any{"role": "assistant", "content": t.Text}
	delta := map[string]any{"role": "assistant", "content": t.Text}
	if t.Call != nil {
		finish = "tool_calls"
		var calls, indexed []any
		for i, c := range append([]Call{*t.Call}, t.Also...) {
			call := map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(c.Input)}}
			calls = append(calls, call)
			// Each call whole in one delta, with its index (the SDKs
			// merge the deltas of one index, and take the call as done
			// once its arguments parse).
			d := map[string]any{"index": i}
			for k, v := range call {
				d[k] = v
			}
			indexed = append(indexed, d)
		}
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
		delta = map[string]any{"role": "assistant", "tool_calls": indexed}
	}
	usage := map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	chunk := func(choice map[string]any, extra map[string]any) {
		v := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{choice}}
		for k, x := range extra {
			v[k] = x
		}
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
	chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
