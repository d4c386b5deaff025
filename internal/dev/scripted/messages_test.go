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

// These tests play a host against the server speaking the Messages API
// by hand, with the request and stream shapes Claude Code 2.1.328 uses.

type messagesHost struct {
	t   *testing.T
	srv *Server
}

// ask posts a /v1/messages request with msgs (each a role and its
// blocks) and returns the answer's blocks and stop reason, decoding the
// stream when stream is set.
func (h messagesHost) ask(stream bool, msgs ...map[string]any) ([]Block, string) {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "claude-test", "stream": stream,
		"system": []map[string]any{{"type": "text", "text": "You are Claude Code."}}, "messages": msgs})
	require.NoError(h.t, err)
	resp, err := http.Post(h.srv.URL+"/v1/messages?beta=true", "application/json", bytes.NewReader(body))
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	if !stream {
		var m struct {
			Content    []Block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		require.NoError(h.t, json.NewDecoder(resp.Body).Decode(&m))
		return m.Content, m.StopReason
	}
	require.Equal(h.t, "text/event-stream", resp.Header.Get("Content-Type"))
	var bs []Block
	var stop string
	var names []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			ContentBlock Block  `json:"content_block"`
			Delta        struct {
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		require.NoError(h.t, json.Unmarshal([]byte(data), &ev))
		names = append(names, ev.Type)
		switch ev.Type {
		case "content_block_start":
			bs = append(bs, ev.ContentBlock)
			bs[len(bs)-1].Input = nil
		case "content_block_delta":
			b := &bs[len(bs)-1]
			b.Text += ev.Delta.Text
			b.Input = append(b.Input, ev.Delta.PartialJSON...)
		case "message_delta":
			stop = ev.Delta.StopReason
		}
	}
	require.Equal(h.t, "message_start", names[0])
	require.Equal(h.t, "message_stop", names[len(names)-1])
	return bs, stop
}

func userBlocks(bs ...map[string]any) map[string]any {
	return map[string]any{"role": "user", "content": bs}
}
func assistantBlocks(bs ...Block) map[string]any {
	return map[string]any{"role": "assistant", "content": bs}
}
func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
func resultBlock(id, content string, isError bool) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}
}

const reminder = "<system-reminder>\ngit status\n</system-reminder>"

// notReminder is Claude Code's PromptOf: its system reminders are no
// prompt.
func notReminder(text string) string {
	if strings.HasPrefix(text, "<system-reminder>") {
		return ""
	}
	return text
}

func TestMessagesReplaysAScript(t *testing.T) {
	h := messagesHost{t, NewServer(t, Messages{})}
	h.srv.PromptOf = notReminder
	h.srv.Handle("do it", func(a *Turns) {
		r := a.Call("Bash", map[string]any{"command": "echo hi"})
		a.Say("it said " + r.Text)
	})
	prompt := userBlocks(textBlock(reminder), textBlock("do it"))

	for _, stream := range []bool{true, false} {
		first, stop := h.ask(stream, prompt)
		require.Len(t, first, 1)
		assert.Equal(t, "tool_use", stop)
		assert.Equal(t, "Bash", first[0].Name)
		assert.JSONEq(t, `{"command": "echo hi"}`, string(first[0].Input))
		assert.True(t, strings.HasPrefix(first[0].ID, "toolu_sdd"), first[0].ID)

		second, stop := h.ask(stream, prompt, assistantBlocks(first[0]), userBlocks(resultBlock(first[0].ID, "hi", false)))
		assert.Equal(t, "end_turn", stop)
		assert.Equal(t, []Block{{Type: "text", Text: "it said hi"}}, second)

		// Exhausted: the turn ends with a text.
		third, _ := h.ask(stream, prompt, assistantBlocks(first[0]), userBlocks(resultBlock(first[0].ID, "hi", false)),
			assistantBlocks(second[0]), userBlocks(textBlock("more?")))
		assert.Equal(t, DoneText, third[0].Text)
	}
	assert.Empty(t, h.srv.Failures())
	for _, r := range h.srv.Requests() {
		assert.Equal(t, "do it", r.Prompt, "a reminder is no prompt")
		assert.Equal(t, []string{"You are Claude Code."}, r.System)
	}
}

// A tool_result's error mark, its content as blocks, and the texts that
// came with it reach the script.
func TestMessagesResultsAndNotes(t *testing.T) {
	h := messagesHost{t, NewServer(t, Messages{})}
	h.srv.Handle("strict", func(a *Turns) {
		r := a.Call("Bash", map[string]any{"command": "false"})
		if !r.IsError || r.Text != "Exit code 1\nsee above" || len(r.Notes) != 1 || r.Notes[0] != reminder {
			a.Failf("the result: %+v", r)
		}
		a.Say("seen")
	})
	first, _ := h.ask(true, userBlocks(textBlock("strict")))
	content := []map[string]any{textBlock("Exit code 1"), textBlock("see above")}
	result := map[string]any{"type": "tool_result", "tool_use_id": first[0].ID, "content": content, "is_error": true}
	got, _ := h.ask(true, userBlocks(textBlock("strict")), assistantBlocks(first[0]), userBlocks(result, textBlock(reminder)))
	assert.Equal(t, "seen", got[0].Text)
	assert.Empty(t, h.srv.Failures())
}

func TestMessagesFailsADivergingTranscript(t *testing.T) {
	h := messagesHost{t, NewServer(t, Messages{})}
	h.srv.Handle("do it", func(a *Turns) { a.Call("Bash", map[string]any{"command": "echo hi"}) })
	other := Block{Type: "tool_use", ID: "toolu_other", Name: "Bash", Input: json.RawMessage(`{"command":"echo ho"}`)}
	got, _ := h.ask(true, userBlocks(textBlock("do it")), assistantBlocks(other), userBlocks(resultBlock("toolu_other", "ho", false)))
	assert.Contains(t, got[0].Text, "SCRIPT FAILED")
	require.Len(t, h.srv.Failures(), 1)
	assert.Contains(t, h.srv.Failures()[0], "the transcript does not follow the script")
}

func TestMessagesUnknownAndOtherPaths(t *testing.T) {
	h := messagesHost{t, NewServer(t, Messages{})}
	h.srv.PromptOf = notReminder
	got, stop := h.ask(true, userBlocks(textBlock(reminder), textBlock("Generate a title")))
	assert.Equal(t, []Block{{Type: "text", Text: UnknownAnswer}}, got)
	assert.Equal(t, "end_turn", stop)
	for _, path := range []string{"/v1/messages/count_tokens", "/v1/other"} {
		resp, err := http.Post(h.srv.URL+path, "application/json", strings.NewReader(`{"messages":[]}`))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	resp, err := http.Get(h.srv.URL + "/v1/messages")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	reqs := h.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "Generate a title", reqs[0].Prompt)
	assert.Equal(t, "/v1/messages/count_tokens", reqs[1].Path)
	unknown := h.srv.Unknown()
	require.Len(t, unknown, 1)
	assert.Equal(t, 1, unknown[0].Seq)
}

// The system prompt may be a string, a message's content too.
func TestMessagesStringContent(t *testing.T) {
	var req Request
	require.NoError(t, Messages{}.Decode([]byte(`{"system":"sys","messages":[{"role":"user","content":"hi"}]}`), &req))
	assert.Equal(t, []string{"sys"}, req.System)
	assert.Equal(t, []Entry{{Role: "user", Text: "hi"}}, req.Entries)
}
