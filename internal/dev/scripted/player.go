package scripted

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Player plays a host of one wire by hand, in the request and stream
// shapes its CLI uses, for tests that need no CLI: it posts a transcript
// (the neutral one, encoded as the host would send it) and reads the
// answer's one turn, checking the answer's frame (a stream's first and
// last events, its finish reason and usage). The engine's tests run over
// every one; a host package's tests play its calls with its wire's.
type Player struct {
	Name    string
	Wire    Wire
	Streams []bool // the answers the host asks for: streamed, whole
	path    string // where the host posts
	// body is a request of the transcript entries, streamed or not.
	body func(stream bool, entries []Entry) map[string]any
	// read is the answer's turn, from its body.
	read func(t testing.TB, stream bool, b []byte) Turn
}

// Players are the players of every wire.
var Players = []Player{
	{Name: "Messages", Wire: Messages{}, path: MessagesPath + "?beta=true", Streams: []bool{true, false},
		body: messagesBody, read: readMessages},
	{Name: "Responses", Wire: Responses{}, path: ResponsesPath, Streams: []bool{true},
		body: responsesBody, read: readResponses},
	{Name: "Chat", Wire: Chat{}, path: ChatPath, Streams: []bool{true, false},
		body: chatBody, read: readChat},
	{Name: "Gemini", Wire: Gemini{}, path: geminiModels + "gemini-3.8-flash:generateContent", Streams: []bool{true, false},
		body: geminiRequest, read: readGemini},
}

// PlayerOf is the player of wire w.
func PlayerOf(w Wire) Player {
	for _, p := range Players {
		if p.Wire == w {
			return p
		}
	}
	panic(fmt.Sprintf("no player of %T", w))
}

// Ask posts entries as p's host, streamed or not, and returns the
// answer's turn.
func (p Player) Ask(t testing.TB, srv *Server, stream bool, entries ...Entry) Turn {
	t.Helper()
	return p.Post(t, srv, stream, p.Body(stream, entries...))
}

// Fake starts a server of p's wire with the host's promptOf, and returns
// it and a host that plays it (its answers streamed or not): how a host
// package tests its calls with no CLI.
func (p Player) Fake(t testing.TB, promptOf func(string) string, stream bool) (*Server, func(...Entry) Turn) {
	srv := NewServer(t, p.Wire)
	srv.PromptOf = promptOf
	return srv, func(entries ...Entry) Turn {
		t.Helper()
		return p.Ask(t, srv, stream, entries...)
	}
}

// Answer plays a conversation by hand with ask (Fake's host), from
// entries: each call the model makes is answered with the next of
// results, as the host sends a call's result back, until the model ends
// its turn. It returns the calls, in order, and the turn's last words; a
// call past the results fails the test. How a host package tests its
// adapter's calls against the results its tool gives.
func Answer(t testing.TB, ask func(...Entry) Turn, entries []Entry, results ...string) (calls []Call, said string) {
	t.Helper()
	entries = slices.Clone(entries)
	for {
		turn := ask(entries...)
		if turn.Call == nil {
			return calls, turn.Text
		}
		require.Less(t, len(calls), len(results), "a call past the results: %s %s", turn.Call.Qualified(), turn.Call.Input)
		calls = append(calls, *turn.Call)
		entries = append(entries, Said(turn), Returned(turn.Call.ID, results[len(calls)-1], false))
	}
}

// Body is the request p's host makes of entries: what a test changes
// before Post where the neutral transcript says too little (a result's
// content as blocks).
func (p Player) Body(stream bool, entries ...Entry) map[string]any { return p.body(stream, entries) }

// Post posts body (a request, as JSON) and returns the answer's turn.
func (p Player) Post(t testing.TB, srv *Server, stream bool, body any) Turn {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	path := p.path
	if p.Wire == (Gemini{}) && stream {
		path = strings.Replace(path, ":generateContent", ":streamGenerateContent", 1) + "?alt=sse"
	}
	resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(out))
	want := "application/json"
	if stream {
		want = "text/event-stream"
	}
	require.Equal(t, want, resp.Header.Get("Content-Type"))
	return p.read(t, stream, out)
}

// Sent, Said and Returned are the entries of a transcript a test
// writes: a text the host sent (of role), a turn of the model, what came
// back for a call.
func Sent(role, text string) Entry { return Entry{Role: role, Text: text} }
func Said(turn Turn) Entry         { return Entry{Turn: &turn} }
func Returned(callID, text string, isError bool) Entry {
	return Entry{Result: &Result{CallID: callID, Text: text, IsError: isError}}
}

// dataLines are the data of a stream's server-sent events.
func dataLines(b []byte) (out []string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(strings.TrimSuffix(sc.Text(), "\r"), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

// grouped is msgs with part added to the last message's list (key) when
// that message is of role, else to a new message of role: how Messages
// and Gemini put the blocks of one side of a turn together.
func grouped(msgs []map[string]any, key, role string, part map[string]any) []map[string]any {
	if n := len(msgs); n > 0 && msgs[n-1]["role"] == role {
		msgs[n-1][key] = append(msgs[n-1][key].([]map[string]any), part)
		return msgs
	}
	return append(msgs, map[string]any{"role": role, key: []map[string]any{part}})
}

func messagesBody(stream bool, entries []Entry) map[string]any {
	var msgs []map[string]any
	add := func(role string, block map[string]any) { msgs = grouped(msgs, "content", role, block) }
	for _, e := range entries {
		switch {
		case e.Turn != nil && e.Turn.Call != nil:
			add("assistant", map[string]any{"type": "tool_use", "id": e.Turn.Call.ID, "name": e.Turn.Call.Name, "input": e.Turn.Call.Input})
		case e.Turn != nil:
			add("assistant", map[string]any{"type": "text", "text": e.Turn.Text})
		case e.Result != nil:
			add("user", map[string]any{"type": "tool_result", "tool_use_id": e.Result.CallID, "content": e.Result.Text, "is_error": e.Result.IsError})
		default:
			add(e.Role, map[string]any{"type": "text", "text": e.Text})
		}
	}
	return map[string]any{"model": "claude-test", "stream": stream, "messages": msgs,
		"system": []map[string]any{{"type": "text", "text": "You are Claude Code."}}}
}

func readMessages(t testing.TB, stream bool, b []byte) Turn {
	var blocks []Block
	if !stream {
		var m struct{ Content []Block }
		require.NoError(t, json.Unmarshal(b, &m))
		blocks = m.Content
	} else {
		var names []string
		for _, data := range dataLines(b) {
			var ev struct {
				Type         string
				ContentBlock Block `json:"content_block"`
				Delta        struct {
					Text        string
					PartialJSON string `json:"partial_json"`
				}
			}
			require.NoError(t, json.Unmarshal([]byte(data), &ev))
			names = append(names, ev.Type)
			switch ev.Type {
			case "content_block_start":
				ev.ContentBlock.Input = nil
				blocks = append(blocks, ev.ContentBlock)
			case "content_block_delta":
				blocks[len(blocks)-1].Text += ev.Delta.Text
				blocks[len(blocks)-1].Input = append(blocks[len(blocks)-1].Input, ev.Delta.PartialJSON...)
			}
		}
		require.Equal(t, "message_start", names[0])
		require.Equal(t, "message_stop", names[len(names)-1])
	}
	require.Len(t, blocks, 1)
	if bl := blocks[0]; bl.Type == "tool_use" {
		return Turn{Call: &Call{ID: bl.ID, Name: bl.Name, Input: bl.Input}}
	}
	return Turn{Text: blocks[0].Text}
}

func responsesBody(stream bool, entries []Entry) map[string]any {
	input := []map[string]any{}
	for _, e := range entries {
		switch {
		case e.Turn != nil && e.Turn.Call != nil:
			c := e.Turn.Call
			it := map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Name, "arguments": string(c.Input)}
			if c.Namespace != "" {
				it["namespace"] = c.Namespace
			}
			input = append(input, it)
		case e.Turn != nil:
			input = append(input, map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": e.Turn.Text}}})
		case e.Result != nil:
			input = append(input, map[string]any{"type": "function_call_output", "call_id": e.Result.CallID, "output": e.Result.Text})
		default:
			input = append(input, map[string]any{"type": "message", "role": e.Role, "content": []map[string]any{{"type": "input_text", "text": e.Text}}})
		}
	}
	return map[string]any{"model": "sdd-scripted", "stream": stream, "input": input,
		"tools": []map[string]any{{"type": "function", "name": "exec_command", "description": "Runs a command."},
			{"type": "namespace", "name": "multi_agent_v1", "tools": []map[string]any{{"type": "function", "name": "spawn_agent", "description": "Spawns."}}},
			{"type": "web_search"}}}
}

// readResponses reads the items of the output_item.done events, checking
// the frame: response.created first, response.completed last (holding
// the same items), each event's name its data's type.
func readResponses(t testing.TB, _ bool, b []byte) Turn {
	var names []string
	var items, completed []item
	var name string
	for _, l := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(l, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string
			Item     item
			Response struct{ Output []item }
		}
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		require.Equal(t, name, ev.Type)
		names = append(names, ev.Type)
		switch ev.Type {
		case "response.output_item.done":
			items = append(items, ev.Item)
		case "response.completed":
			completed = ev.Response.Output
		}
	}
	require.Equal(t, "response.created", names[0])
	require.Equal(t, "response.completed", names[len(names)-1])
	require.Equal(t, items, completed)
	require.Len(t, items, 1)
	if it := items[0]; it.Type == "function_call" {
		return Turn{Call: &Call{ID: it.CallID, Namespace: it.Namespace, Name: it.Name, Input: json.RawMessage(it.Arguments)}}
	}
	var text string
	for _, p := range items[0].Content {
		text += p.Text
	}
	return Turn{Text: text}
}

func chatBody(stream bool, entries []Entry) map[string]any {
	var msgs []map[string]any
	for _, e := range entries {
		switch {
		case e.Turn != nil && e.Turn.Call != nil:
			c := chatCall{ID: e.Turn.Call.ID, Type: "function"}
			c.Function.Name, c.Function.Arguments = e.Turn.Call.Name, string(e.Turn.Call.Input)
			// As opencode sends a call back: "" content beside it.
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "", "tool_calls": []chatCall{c}})
		case e.Turn != nil:
			msgs = append(msgs, map[string]any{"role": "assistant", "content": e.Turn.Text})
		case e.Result != nil:
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": e.Result.CallID, "content": e.Result.Text})
		default:
			msgs = append(msgs, map[string]any{"role": e.Role, "content": e.Text})
		}
	}
	return map[string]any{"model": "scripted", "stream": stream, "messages": msgs,
		"stream_options": map[string]any{"include_usage": true}, "tool_choice": "auto"}
}

// readChat reads a chat.completion, or the chunks of a stream: the last
// with the finish reason and the usage, then [DONE].
func readChat(t testing.TB, stream bool, b []byte) Turn {
	type message struct {
		Content   *string
		ToolCalls []chatCall `json:"tool_calls"`
	}
	type answer struct {
		Object  string
		Choices []struct {
			Delta, Message message
			FinishReason   *string `json:"finish_reason"`
		}
		Usage map[string]int
	}
	var out Turn
	take := func(m message) {
		if m.Content != nil {
			out.Text += *m.Content
		}
		for _, c := range m.ToolCalls {
			out.Call = &Call{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(c.Function.Arguments)}
		}
	}
	if !stream {
		var v answer
		require.NoError(t, json.Unmarshal(b, &v))
		assert.Equal(t, "chat.completion", v.Object)
		take(v.Choices[0].Message)
		require.NotNil(t, v.Choices[0].FinishReason)
		return out
	}
	lines := dataLines(b)
	require.Equal(t, "[DONE]", lines[len(lines)-1])
	for i, data := range lines[:len(lines)-1] {
		var v answer
		require.NoError(t, json.Unmarshal([]byte(data), &v))
		assert.Equal(t, "chat.completion.chunk", v.Object)
		take(v.Choices[0].Delta)
		if last := i == len(lines)-2; last {
			require.NotNil(t, v.Choices[0].FinishReason, "the last chunk finishes")
			assert.NotEmpty(t, v.Usage, "and carries the usage")
		}
	}
	return out
}

func geminiRequest(_ bool, entries []Entry) map[string]any {
	var contents []map[string]any
	add := func(role string, part map[string]any) { contents = grouped(contents, "parts", role, part) }
	for _, e := range entries {
		switch {
		case e.Turn != nil && e.Turn.Call != nil:
			var args map[string]any
			json.Unmarshal(e.Turn.Call.Input, &args)
			add("model", map[string]any{"functionCall": map[string]any{"id": e.Turn.Call.ID, "name": e.Turn.Call.Name, "args": args},
				"thoughtSignature": "skip_thought_signature_validator"})
		case e.Turn != nil:
			add("model", map[string]any{"text": e.Turn.Text})
		case e.Result != nil:
			add("user", map[string]any{"functionResponse": map[string]any{"id": e.Result.CallID, "name": "f", "response": map[string]any{"output": e.Result.Text}}})
		default:
			add("user", map[string]any{"text": e.Text})
		}
	}
	return map[string]any{"contents": contents}
}

// readGemini reads a GenerateContentResponse, or a stream's one event
// ("data: JSON" and a blank line, CRLF): one candidate of one part,
// finished, with the usage.
func readGemini(t testing.TB, stream bool, b []byte) Turn {
	if stream {
		data, ok := bytes.CutPrefix(b, []byte("data: "))
		require.True(t, ok, "an event is one data line: %q", b)
		b, ok = bytes.CutSuffix(data, []byte("\r\n\r\n"))
		require.True(t, ok, "the event ends with a blank line")
	}
	var a struct {
		Candidates []struct {
			Content struct {
				Role  string
				Parts []geminiPart
			}
			FinishReason string
		}
		UsageMetadata map[string]int
	}
	require.NoError(t, json.Unmarshal(b, &a), string(b))
	require.Len(t, a.Candidates, 1)
	c := a.Candidates[0]
	assert.Equal(t, "model", c.Content.Role)
	assert.Equal(t, "STOP", c.FinishReason)
	assert.NotEmpty(t, a.UsageMetadata)
	require.Len(t, c.Content.Parts, 1)
	if f := c.Content.Parts[0].FunctionCall; f != nil {
		in, _ := json.Marshal(f.Args)
		return Turn{Call: &Call{ID: f.ID, Name: f.Name, Input: in}}
	}
	return Turn{Text: c.Content.Parts[0].Text}
}
