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

// These tests play a host against the server speaking the Responses API
// by hand, with the request and stream shapes Codex CLI 0.171.0 uses.

type responsesHost struct {
	t   *testing.T
	srv *Server
}

// ask posts a /v1/responses request with input and returns the items of
// the answer's output_item.done events, checking the stream's frame:
// response.created first, response.completed last (holding the same
// items), each event's name its data's type.
func (h responsesHost) ask(input ...map[string]any) []item {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "sdd-scripted", "stream": true, "input": input,
		"tools": []map[string]any{{"type": "function", "name": "exec_command", "description": "Runs a command."},
			{"type": "namespace", "name": "multi_agent_v1", "tools": []map[string]any{{"type": "function", "name": "spawn_agent", "description": "Spawns."}}},
			{"type": "web_search"}}})
	require.NoError(h.t, err)
	resp, err := http.Post(h.srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	require.Equal(h.t, "text/event-stream", resp.Header.Get("Content-Type"))
	var names []string
	var items []item
	var completed []item
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			Item     item   `json:"item"`
			Response struct {
				Output []item `json:"output"`
			} `json:"response"`
		}
		require.NoError(h.t, json.Unmarshal([]byte(data), &ev))
		require.Equal(h.t, name, ev.Type)
		names = append(names, ev.Type)
		switch ev.Type {
		case "response.output_item.done":
			items = append(items, ev.Item)
		case "response.completed":
			completed = ev.Response.Output
		}
	}
	require.NotEmpty(h.t, names)
	require.Equal(h.t, "response.created", names[0])
	require.Equal(h.t, "response.completed", names[len(names)-1])
	require.Equal(h.t, items, completed)
	return items
}

func msg(role, text string) map[string]any {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return map[string]any{"type": "message", "role": role, "content": []map[string]any{{"type": typ, "text": text}}}
}

func fcall(it item) map[string]any {
	m := map[string]any{"type": "function_call", "call_id": it.CallID, "name": it.Name, "arguments": it.Arguments}
	if it.Namespace != "" {
		m["namespace"] = it.Namespace
	}
	return m
}

func foutput(callID, text string) map[string]any {
	return map[string]any{"type": "function_call_output", "call_id": callID, "output": text}
}

func said(items []item) string {
	if len(items) != 1 || items[0].Type != "message" {
		return ""
	}
	var s string
	for _, p := range items[0].Content {
		s += p.Text
	}
	return s
}

// The context Codex puts before the prompt (0.171.0), which its PromptOf
// skips.
var codexContext = []map[string]any{
	msg("developer", "You are a coding agent running in the Codex CLI."),
	msg("user", "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"),
}

func notContext(text string) string {
	if strings.HasPrefix(text, "<environment_context>") {
		return ""
	}
	return text
}

func TestResponsesReplaysAScript(t *testing.T) {
	h := responsesHost{t, NewServer(t, Responses{})}
	h.srv.PromptOf = notContext
	h.srv.Handle("do it", func(a *Turns) {
		r := a.Call("exec_command", map[string]any{"cmd": "echo hi"})
		a.Say("it said " + r.Text)
	})
	prompt := append(codexContext, msg("user", "do it"))

	first := h.ask(prompt...)
	require.Len(t, first, 1)
	assert.Equal(t, "function_call", first[0].Type)
	assert.Equal(t, "exec_command", first[0].Name)
	assert.Empty(t, first[0].Namespace)
	assert.JSONEq(t, `{"cmd": "echo hi"}`, first[0].Arguments)
	assert.True(t, strings.HasPrefix(first[0].CallID, "call_sdd"), first[0].CallID)

	transcript := append(prompt, fcall(first[0]), foutput(first[0].CallID, "hi"))
	second := h.ask(transcript...)
	assert.Equal(t, "it said hi", said(second))

	// Exhausted: the turn ends with a text.
	third := h.ask(append(transcript, msg("assistant", said(second)), msg("user", "more?"))...)
	assert.Equal(t, DoneText, said(third))
	assert.Empty(t, h.srv.Failures())
	reqs := h.srv.Requests()
	for _, r := range reqs {
		assert.Equal(t, "do it", r.Prompt, "the environment context is not the prompt")
		assert.True(t, r.Scripted)
	}
	assert.Equal(t, []string{"exec_command", "spawn_agent", "web_search"}, reqs[0].ToolNames())
	sp, ok := reqs[0].Tool("spawn_agent")
	assert.True(t, ok)
	assert.Equal(t, Tool{Namespace: "multi_agent_v1", Name: "spawn_agent", Description: "Spawns."}, sp)
	assert.Equal(t, []string{"You are a coding agent running in the Codex CLI."}, reqs[0].Texts("developer"))
}

// A namespaced call goes out with its namespace and comes back matched
// by it; an output in parts is read as text; a message after a call is a
// note of its result.
func TestResponsesNamespaceAndNotes(t *testing.T) {
	h := responsesHost{t, NewServer(t, Responses{})}
	h.srv.Handle("main", func(a *Turns) {
		r := a.CallIn("multi_agent_v1", "spawn_agent", map[string]any{"message": "sub"})
		if r.Text != `{"agent_id":"a1"}`+"\nmore" || len(r.Notes) != 1 || r.Notes[0] != "<subagent_notification/>" {
			a.Failf("the result: %+v", r)
		}
		a.Say("ok")
	})
	spawn := h.ask(msg("user", "main"))
	require.Len(t, spawn, 1)
	assert.Equal(t, "multi_agent_v1", spawn[0].Namespace)
	parts := map[string]any{"type": "function_call_output", "call_id": spawn[0].CallID,
		"output": []map[string]any{{"type": "input_text", "text": `{"agent_id":"a1"}`}, {"type": "input_text", "text": "more"}}}
	got := h.ask(msg("user", "main"), fcall(spawn[0]), parts, msg("user", "<subagent_notification/>"))
	assert.Equal(t, "ok", said(got))
	assert.Empty(t, h.srv.Failures())

	// Without its namespace the call is another.
	other := spawn[0]
	other.Namespace = ""
	got = h.ask(msg("user", "main"), fcall(other), foutput(other.CallID, "{}"))
	assert.Contains(t, said(got), "SCRIPT FAILED")
	require.Len(t, h.srv.Failures(), 1)
	assert.Contains(t, h.srv.Failures()[0], "the transcript does not follow the script")
}

func TestResponsesUnknownAndOtherPaths(t *testing.T) {
	h := responsesHost{t, NewServer(t, Responses{})}
	h.srv.PromptOf = notContext
	got := h.ask(append(codexContext, msg("user", "Generate a title"))...)
	assert.Equal(t, UnknownAnswer, said(got))
	for _, path := range []string{"/v1/models", "/v1/other"} {
		resp, err := http.Get(h.srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	reqs := h.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "Generate a title", reqs[0].Prompt)
	unknown := h.srv.Unknown()
	require.Len(t, unknown, 1)
	assert.Equal(t, 1, unknown[0].Seq)
}
