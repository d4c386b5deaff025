package geminiwire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests play the CLI by hand, with request bodies it sent (0.61.0,
// in testdata: the system prompt cut short, the tools cut to those the
// conversation uses, the test's temporary paths renamed): no CLI needed.
//
//	classifier.json  the routing classifier's side request before the session's turn
//	turn.json        the session's last turn, after a run_shell_command and an invoke_agent
//	subagent.json    a subagent's first turn

const sessionPrompt = "Run echo hi, then ask the generalist."

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

func decoded(t *testing.T, name string) Request {
	t.Helper()
	var r Request
	require.NoError(t, r.decode(recorded(t, name)))
	return r
}

func TestDecodeRecorded(t *testing.T) {
	c := decoded(t, "classifier.json")
	assert.Equal(t, sessionPrompt, c.Prompt, "the session context is no part of the key")
	assert.Empty(t, c.Tools)
	assert.Contains(t, string(c.Schema), `"complexity_score"`)
	assert.Contains(t, c.System, "Task Routing AI")

	s := decoded(t, "subagent.json")
	assert.Equal(t, "Say done.", s.Prompt, "a subagent's conversation is named by its prompt")
	assert.Empty(t, s.Turns())
	assert.Equal(t, []string{"run_shell_command", "complete_task"}, s.ToolNames())
	assert.Empty(t, s.Schema)

	r := decoded(t, "turn.json")
	assert.Equal(t, sessionPrompt, r.Prompt)
	assert.Equal(t, []string{"run_shell_command", "invoke_agent"}, r.ToolNames())
	shell, ok := r.Tool("run_shell_command")
	require.True(t, ok)
	assert.Contains(t, string(shell.Parameters), `"command"`)
	turns := r.Turns()
	require.Len(t, turns, 2)
	require.Len(t, turns[0].Calls, 1)
	assert.Equal(t, FunctionCall{ID: "sdd-e2107695-001-0", Name: "run_shell_command", Args: map[string]any{"command": "echo hi"}}, turns[0].Calls[0])
	res, ok := turns[0].Result("sdd-e2107695-001-0")
	require.True(t, ok, "the response carries the call's id")
	assert.Equal(t, Shell{Output: "hi", Response: res}, ParseShell(res))
	res, ok = turns[1].Result("sdd-e2107695-002-0")
	require.True(t, ok)
	assert.Equal(t, Subagent{Name: "generalist", Reason: "GOAL", Result: "{\n  \"response\": \"done\"\n}"}, ParseSubagent(res))
}

// post sends body to the server as the CLI does, and returns the
// GenerateContentResponses of the answer: the one JSON object, or the
// server-sent events of a stream ("data: JSON" and a blank line each).
func post(t *testing.T, s *Server, rpc string, body []byte) []map[string]any {
	t.Helper()
	url := s.URL + "/v1beta/models/gemini-3.8-flash:" + rpc
	stream := rpc == "streamGenerateContent"
	if stream {
		url += "?alt=sse"
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out []map[string]any
	if !stream {
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var r map[string]any
		require.NoError(t, json.Unmarshal(b, &r))
		return append(out, r)
	}
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := strings.Split(string(b), "\r\n\r\n")
	require.Equal(t, "", events[len(events)-1], "each event ends with a blank line")
	for _, e := range events[:len(events)-1] {
		data, ok := strings.CutPrefix(e, "data: ")
		require.True(t, ok, "an event is one data line: %q", e)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &r))
		out = append(out, r)
	}
	return out
}

// candidate is the first candidate of a response: its parts, its finish
// reason.
func candidate(t *testing.T, r map[string]any) (parts []any, finish any) {
	t.Helper()
	cands, _ := r["candidates"].([]any)
	require.Len(t, cands, 1)
	c := cands[0].(map[string]any)
	content := c["content"].(map[string]any)
	assert.Equal(t, "model", content["role"])
	return content["parts"].([]any), c["finishReason"]
}

func TestSideRequestGetsJSONOfItsSchema(t *testing.T) {
	s := NewServer(t)
	resps := post(t, s, "generateContent", recorded(t, "classifier.json"))
	require.Len(t, resps, 1)
	parts, finish := candidate(t, resps[0])
	assert.Equal(t, "STOP", finish)
	require.Len(t, parts, 1)
	var v struct {
		Reasoning *string  `json:"complexity_reasoning"`
		Score     *float64 `json:"complexity_score"`
	}
	require.NoError(t, json.Unmarshal([]byte(parts[0].(map[string]any)["text"].(string)), &v))
	require.NotNil(t, v.Reasoning, "every property of the schema is there")
	require.NotNil(t, v.Score)
	assert.Equal(t, 1.0, *v.Score, "an INTEGER")
	assert.Len(t, s.Side(), 1)
	assert.Empty(t, s.Unknown())
	assert.Empty(t, s.Failures())
	assert.NotNil(t, resps[0]["usageMetadata"])
}

// script is the session's model of turn.json, with the subagent of
// subagent.json.
func script(m *Model) {
	m.Shell("echo hi")
	sub := m.Invoke("generalist", "Say done.", func(m *Model) {
		m.CompleteTask(map[string]any{"response": "done"})
	})
	if sub.Reason != "GOAL" {
		m.Failf("the subagent ended with %q", sub.Reason)
	}
	m.Say("All done.")
}

func TestScriptedTurnsStream(t *testing.T) {
	s := NewServer(t)
	s.Play(sessionPrompt, script)

	// The conversation as it stands after the two calls: the script has
	// made them (the same ids, the same arguments) and says its text.
	resps := post(t, s, "streamGenerateContent", recorded(t, "turn.json"))
	require.Len(t, resps, 1)
	parts, finish := candidate(t, resps[0])
	assert.Equal(t, "STOP", finish, "the last event has the finish reason")
	assert.Equal(t, []any{map[string]any{"text": "All done."}}, parts)

	// The subagent's first turn: its script's first call, with its id.
	resps = post(t, s, "streamGenerateContent", recorded(t, "subagent.json"))
	parts, _ = candidate(t, resps[len(resps)-1])
	require.Len(t, parts, 1)
	call := parts[0].(map[string]any)["functionCall"].(map[string]any)
	assert.Equal(t, "complete_task", call["name"])
	assert.Equal(t, map[string]any{"result": map[string]any{"response": "done"}}, call["args"])
	assert.Regexp(t, `^sdd-[0-9a-f]{8}-001-0$`, call["id"])

	assert.Len(t, s.Turns(), 2)
	assert.Empty(t, s.Failures())
}

func TestAnswerOfTextAndCallsIsOneEventAPart(t *testing.T) {
	s := NewServer(t)
	s.Handle("p", func(*Request) (Answer, error) {
		return Answer{Text: "Looking.", Calls: []FunctionCall{
			{ID: "a", Name: "read_file", Args: map[string]any{"file_path": "/x"}},
			{ID: "b", Name: "read_file", Args: map[string]any{"file_path": "/y"}},
		}}, nil
	})
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"p"}]}]}`)
	resps := post(t, s, "streamGenerateContent", body)
	require.Len(t, resps, 3)
	for i, r := range resps {
		parts, finish := candidate(t, r)
		require.Len(t, parts, 1)
		if i < 2 {
			assert.Nil(t, finish, "only the last event finishes")
			assert.Nil(t, r["usageMetadata"])
		} else {
			assert.Equal(t, "STOP", finish)
		}
	}
	parts, _ := candidate(t, resps[0])
	assert.Equal(t, "Looking.", parts[0].(map[string]any)["text"])

	// The same answer without a stream: one response, every part.
	resps = post(t, s, "generateContent", body)
	require.Len(t, resps, 1)
	parts, _ = candidate(t, resps[0])
	assert.Len(t, parts, 3)
}

func TestConversationWithoutAnAgentGetsOK(t *testing.T) {
	s := NewServer(t)
	resps := post(t, s, "generateContent", []byte(`{"contents":[{"role":"user","parts":[{"text":"who?"}]}]}`))
	parts, _ := candidate(t, resps[0])
	assert.Equal(t, []any{map[string]any{"text": "OK."}}, parts)
	require.Len(t, s.Unknown(), 1)
	assert.Equal(t, "who?", s.Unknown()[0].Prompt)
	assert.Empty(t, s.Failures())
}

func TestScriptThatTheConversationDoesNotFollowFails(t *testing.T) {
	s := NewServer(t)
	s.Play(sessionPrompt, func(m *Model) {
		m.Shell("echo bye") // turn.json's first call is echo hi
		m.Say("never")
	})
	resps := post(t, s, "streamGenerateContent", recorded(t, "turn.json"))
	parts, _ := candidate(t, resps[0])
	assert.Contains(t, parts[0].(map[string]any)["text"], "SCRIPT FAILED")
	require.Len(t, s.Failures(), 1)
	assert.Contains(t, s.Failures()[0], "echo bye")
	select {
	case <-s.Failed():
	default:
		t.Fatal("Failed is not closed")
	}
}

func TestUnknownMethodFails(t *testing.T) {
	s := NewServer(t)
	resp, err := http.Post(s.URL+"/v1beta/models/x:countTokens", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Len(t, s.Failures(), 1)
	assert.Contains(t, s.Failures()[0], "countTokens")
	require.Len(t, s.Requests(), 1, "recorded all the same")
}
