package host

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

// These tests play the host against the server by hand: no CLI needed.

type fakeHost struct {
	t   *testing.T
	srv *Server
}

// ask posts a /v1/messages request with msgs (each a role and its blocks)
// and returns the answer's blocks and stop reason, decoding the stream
// when stream is set.
func (h fakeHost) ask(stream bool, msgs ...map[string]any) ([]Block, string) {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "claude-test", "stream": stream, "messages": msgs})
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
	var blocks []Block
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
				Type, Text, PartialJSON, StopReason string
			} `json:"delta"`
		}
		require.NoError(h.t, json.Unmarshal([]byte(data), &ev))
		var raw map[string]any
		json.Unmarshal([]byte(data), &raw)
		if d, ok := raw["delta"].(map[string]any); ok {
			ev.Delta.PartialJSON, _ = d["partial_json"].(string)
			ev.Delta.StopReason, _ = d["stop_reason"].(string)
		}
		names = append(names, ev.Type)
		switch ev.Type {
		case "content_block_start":
			blocks = append(blocks, ev.ContentBlock)
			blocks[len(blocks)-1].Input = nil
		case "content_block_delta":
			b := &blocks[len(blocks)-1]
			b.Text += ev.Delta.Text
			b.Input = append(b.Input, ev.Delta.PartialJSON...)
		case "message_delta":
			stop = ev.Delta.StopReason
		}
	}
	require.Equal(h.t, "message_start", names[0])
	require.Equal(h.t, "message_stop", names[len(names)-1])
	return blocks, stop
}

func user(blocks ...map[string]any) map[string]any {
	return map[string]any{"role": "user", "content": blocks}
}
func assistant(blocks ...Block) map[string]any {
	return map[string]any{"role": "assistant", "content": blocks}
}
func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
func toolResult(id, content string, isError bool) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}
}

const reminder = "<system-reminder>\ngit status\n</system-reminder>"

func TestServerReplaysAScript(t *testing.T) {
	h := fakeHost{t, NewServer(t)}
	h.srv.Handle("do it", func(a *Turns) {
		out := a.Bash("echo hi")
		a.Say("it said " + out)
	})
	prompt := user(text(reminder), text("do it"))

	for _, stream := range []bool{true, false} {
		first, stop := h.ask(stream, prompt)
		require.Len(t, first, 1)
		assert.Equal(t, "tool_use", stop)
		assert.Equal(t, "Bash", first[0].Name)
		assert.JSONEq(t, `{"command": "echo hi"}`, string(first[0].Input))
		assert.True(t, strings.HasPrefix(first[0].ID, "toolu_"), first[0].ID)

		second, stop := h.ask(stream, prompt, assistant(first[0]), user(toolResult(first[0].ID, "hi", false)))
		assert.Equal(t, "end_turn", stop)
		assert.Equal(t, []Block{{Type: "text", Text: "it said hi"}}, second)

		// Exhausted: the turn ends with a text.
		third, _ := h.ask(stream, prompt, assistant(first[0]), user(toolResult(first[0].ID, "hi", false)),
			assistant(second[0]), user(text("more?")))
		assert.Equal(t, doneText, third[0].Text)
	}
	assert.Empty(t, h.srv.Failures())
}

func TestServerFailsADivergingTranscript(t *testing.T) {
	h := fakeHost{t, NewServer(t)}
	h.srv.Handle("do it", func(a *Turns) { a.Bash("echo hi") })
	other := Block{Type: "tool_use", ID: "toolu_other", Name: "Bash", Input: json.RawMessage(`{"command":"echo ho"}`)}
	got, _ := h.ask(true, user(text("do it")), assistant(other), user(toolResult("toolu_other", "ho", false)))
	assert.Contains(t, got[0].Text, "SCRIPT FAILED")
	require.Len(t, h.srv.Failures(), 1)
	assert.Contains(t, h.srv.Failures()[0], "the transcript does not follow the script")
	select {
	case <-h.srv.Failed():
	default:
		t.Error("Failed() is not closed after a failure")
	}
}

func TestServerFailsOnAnErrorResultAndAPanic(t *testing.T) {
	h := fakeHost{t, NewServer(t)}
	h.srv.Handle("strict", func(a *Turns) { a.Bash("false") })
	h.srv.Handle("buggy", func(a *Turns) {
		var m map[string]int
		m["x"] = 1
	})
	first, _ := h.ask(true, user(text("strict")))
	h.ask(true, user(text("strict")), assistant(first[0]), user(toolResult(first[0].ID, "Exit code 1", true)))
	h.ask(true, user(text("buggy")))
	f := h.srv.Failures()
	require.Len(t, f, 2)
	assert.Contains(t, f[0], "error result: Exit code 1")
	assert.Contains(t, f[1], "script panicked")
}

func TestServerUnknownAndOtherPaths(t *testing.T) {
	h := fakeHost{t, NewServer(t)}
	got, stop := h.ask(true, user(text(reminder), text("Generate a title")))
	assert.Equal(t, []Block{{Type: "text", Text: unknownAnswer}}, got)
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

// An agent's notification may come as a new turn after the controller
// waited, or with a result it was already given; Wait finds it either
// way, once.
func TestServerAgentAndWait(t *testing.T) {
	h := fakeHost{t, NewServer(t)}
	sub := func(a *Turns) { a.Say("DONE") }
	h.srv.Handle("main", func(a *Turns) {
		ag := a.Agent(Dispatch{Description: "Impl", Prompt: "sub prompt", Model: "sonnet"}, sub)
		if ag.ID != "abc123" {
			a.Failf("agent id %q", ag.ID)
		}
		n := a.Wait(ag)
		a.Say("got " + n.Status + " " + n.Result)
	})
	prompt := user(text("main"))
	launch, _ := h.ask(true, prompt)
	require.Equal(t, "Agent", launch[0].Name)
	assert.JSONEq(t, `{"description":"Impl","prompt":"sub prompt","model":"sonnet"}`, string(launch[0].Input))

	// The subagent's conversation is routed to its script.
	got, _ := h.ask(true, user(text(reminder), text("sub prompt")))
	assert.Equal(t, "DONE", got[0].Text)

	launched := toolResult(launch[0].ID, "Async agent launched successfully.\nagentId: abc123 (internal ID)", false)
	wait, _ := h.ask(true, prompt, assistant(launch[0]), user(launched))
	assert.Equal(t, "Waiting for Impl.", wait[0].Text)

	note := "<system-reminder>\n<task-notification>\n<task-id>abc123</task-id>\n<tool-use-id>" + launch[0].ID +
		"</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Impl\" finished</summary>\n<result>DONE</result>\n</task-notification>\n</system-reminder>"
	end, _ := h.ask(true, prompt, assistant(launch[0]), user(launched), assistant(wait[0]), user(text(note)))
	assert.Equal(t, "got completed DONE", end[0].Text)

	// The notification came with the launch's result: no waiting turn.
	early, _ := h.ask(true, prompt, assistant(launch[0]), user(launched, text(note)))
	assert.Equal(t, "got completed DONE", early[0].Text)
	assert.Empty(t, h.srv.Failures())
}

func TestHandBackReport(t *testing.T) {
	text := "[Subagent hand-back] The text below is the final report. The report follows:\n  line one\n    indented\n  line three\nagentId: a1 (use SendMessage with to: 'a1')"
	assert.Equal(t, "line one\n  indented\nline three", handBackReport(text))
}
