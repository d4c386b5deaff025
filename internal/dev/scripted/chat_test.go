package scripted

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests play a host against the server speaking Chat Completions
// by hand, with the request and stream shapes opencode 1.18.33 uses.

type chatHost struct {
	t   *testing.T
	srv *Server
}

// ask posts a chat completion request with msgs and returns the answer
// and its finish reason, decoding the stream when stream is set.
func (h chatHost) ask(stream bool, msgs ...map[string]any) (chatTurn, string) {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "scripted", "stream": stream,
		"stream_options": map[string]any{"include_usage": true}, "tool_choice": "auto", "messages": msgs})
	require.NoError(h.t, err)
	resp, err := http.Post(h.srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	type message struct {
		Role      string     `json:"role"`
		Content   *string    `json:"content"`
		ToolCalls []chatCall `json:"tool_calls"`
	}
	type choice struct {
		Delta, Message message
		FinishReason   *string `json:"finish_reason"`
	}
	var out chatTurn
	take := func(m message) {
		if m.Content != nil {
			out.Text += *m.Content
		}
		for _, tc := range m.ToolCalls {
			tc := tc
			out.Call = &tc
		}
	}
	if !stream {
		var v struct {
			Object  string
			Choices []choice
			Usage   map[string]int
		}
		require.NoError(h.t, json.NewDecoder(resp.Body).Decode(&v))
		assert.Equal(h.t, "chat.completion", v.Object)
		require.Len(h.t, v.Choices, 1)
		take(v.Choices[0].Message)
		return out, *v.Choices[0].FinishReason
	}
	require.Equal(h.t, "text/event-stream", resp.Header.Get("Content-Type"))
	var finish string
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		lines = append(lines, data)
		if data == "[DONE]" {
			continue
		}
		var v struct {
			Object  string
			Choices []choice
			Usage   map[string]int
		}
		require.NoError(h.t, json.Unmarshal([]byte(data), &v))
		assert.Equal(h.t, "chat.completion.chunk", v.Object)
		require.Len(h.t, v.Choices, 1)
		take(v.Choices[0].Delta)
		if v.Choices[0].FinishReason != nil {
			finish = *v.Choices[0].FinishReason
			assert.NotEmpty(h.t, v.Usage, "the last chunk carries the usage")
		}
	}
	require.NotEmpty(h.t, lines)
	assert.Equal(h.t, "[DONE]", lines[len(lines)-1])
	return out, finish
}

// chatTurn is an answer as the host reads it: a text, or one call.
type chatTurn struct {
	Text string
	Call *chatCall
}

func system(s string) map[string]any { return map[string]any{"role": "system", "content": s} }
func user(s string) map[string]any   { return map[string]any{"role": "user", "content": s} }

// assistant is the message opencode sends back for an answer: "" content
// beside a call.
func assistant(t chatTurn) map[string]any {
	if t.Call == nil {
		return map[string]any{"role": "assistant", "content": t.Text}
	}
	return map[string]any{"role": "assistant", "content": "", "tool_calls": []chatCall{*t.Call}}
}
func toolResult(id, content string) map[string]any {
	return map[string]any{"role": "tool", "tool_call_id": id, "content": content}
}

func TestChatReplaysAScript(t *testing.T) {
	h := chatHost{t, NewServer(t, Chat{})}
	h.srv.Handle(`"do it"`, func(a *Turns) {
		out := a.Call("bash", map[string]any{"command": "echo hi"}).Text
		a.Say("it said " + out)
	})
	prompt := user(`"do it"`)

	for _, stream := range []bool{true, false} {
		first, finish := h.ask(stream, system("You are opencode."), prompt)
		assert.Equal(t, "tool_calls", finish)
		require.NotNil(t, first.Call)
		assert.Equal(t, "bash", first.Call.Function.Name)
		assert.Equal(t, "function", first.Call.Type)
		assert.JSONEq(t, `{"command": "echo hi"}`, first.Call.Function.Arguments)
		assert.True(t, strings.HasPrefix(first.Call.ID, "call_sdd"), first.Call.ID)

		second, finish := h.ask(stream, system("You are opencode."), prompt, assistant(first), toolResult(first.Call.ID, "hi\n"))
		assert.Equal(t, "stop", finish)
		assert.Equal(t, chatTurn{Text: "it said hi\n"}, second)

		// Exhausted: the turn ends with a text.
		third, _ := h.ask(stream, prompt, assistant(first), toolResult(first.Call.ID, "hi\n"), assistant(second), user("more?"))
		assert.Equal(t, DoneText, third.Text)
	}
	assert.Empty(t, h.srv.Failures())
}

// A continued task is a new user message after the subagent's answer:
// its Say returns it.
func TestChatContinuedConversation(t *testing.T) {
	h := chatHost{t, NewServer(t, Chat{})}
	h.srv.Handle("sub prompt", func(a *Turns) {
		more := a.Say("REPORT 1")
		a.Say("REPORT 2 after " + strings.Join(more, "|"))
	})
	first, _ := h.ask(true, user("sub prompt"))
	assert.Equal(t, "REPORT 1", first.Text)
	second, _ := h.ask(true, user("sub prompt"), assistant(first), user("Fix round."))
	assert.Equal(t, "REPORT 2 after Fix round.", second.Text)
	assert.Empty(t, h.srv.Failures())
}

func TestChatFailsADivergingTranscript(t *testing.T) {
	h := chatHost{t, NewServer(t, Chat{})}
	h.srv.Handle("do it", func(a *Turns) { a.Call("bash", map[string]any{"command": "echo hi"}) })
	// What opencode makes of a call of a tool it does not have.
	other := chatTurn{Call: &chatCall{ID: "call_sdd_other", Type: "function"}}
	other.Call.Function.Name, other.Call.Function.Arguments = "invalid", `{"tool":"nosuchtool","error":"unavailable"}`
	got, _ := h.ask(true, user("do it"), assistant(other), toolResult("call_sdd_other", "The arguments provided to the tool are invalid"))
	assert.Contains(t, got.Text, "SCRIPT FAILED")
	require.Len(t, h.srv.Failures(), 1)
	assert.Contains(t, h.srv.Failures()[0], "the transcript does not follow the script")
	select {
	case <-h.srv.Failed():
	default:
		t.Error("Failed() is not closed after a failure")
	}
}

func TestChatFailsOnAPanicAndAMissingResult(t *testing.T) {
	h := chatHost{t, NewServer(t, Chat{})}
	h.srv.Handle("buggy", func(a *Turns) {
		var m map[string]int
		m["x"] = 1
	})
	h.srv.Handle("lost", func(a *Turns) { a.Call("bash", map[string]any{"command": "echo hi"}); a.Say("end") })
	h.ask(true, user("buggy"))
	first, _ := h.ask(true, user("lost"))
	h.ask(true, user("lost"), assistant(first), user("no result"), assistant(chatTurn{Text: "x"}))
	f := h.srv.Failures()
	require.Len(t, f, 2)
	assert.Contains(t, f[0], "script panicked")
	assert.Contains(t, f[1], "no result came back for bash")
}

func TestChatUnknownAndOtherPaths(t *testing.T) {
	h := chatHost{t, NewServer(t, Chat{})}
	// opencode's title request: the title agent's system prompt, then two
	// user messages.
	got, finish := h.ask(true, system("You are a title generator."), user("Generate a title for this conversation:\n"), user(`"do it"`))
	assert.Equal(t, chatTurn{Text: UnknownAnswer}, got)
	assert.Equal(t, "stop", finish)
	for _, path := range []string{"/v1/models", "/v1/completions"} {
		resp, err := http.Post(h.srv.URL+path, "application/json", strings.NewReader(`{"messages":[]}`))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	resp, err := http.Get(h.srv.URL + "/v1/chat/completions")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	reqs := h.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "Generate a title for this conversation:\n", reqs[0].Prompt)
	assert.Equal(t, "/v1/models", reqs[1].Path)
	unknown := h.srv.Unknown()
	require.Len(t, unknown, 1)
	assert.Equal(t, 1, unknown[0].Seq)
}

func TestChatContentParts(t *testing.T) {
	var c chatContent
	require.NoError(t, json.Unmarshal([]byte(`[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]`), &c))
	assert.Equal(t, chatContent("a\nb"), c)
	require.NoError(t, json.Unmarshal([]byte(`null`), &c))
	assert.Equal(t, chatContent(""), c)
}
