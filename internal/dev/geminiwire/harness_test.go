package geminiwire

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Wire under the shared server, played by hand with the recorded bodies
// (testdata): no CLI needed.

// postWire posts body to srv's path for rpc and returns the answer's
// candidate's parts (a stream's one event).
func postWire(t *testing.T, srv *scripted.Server, rpc string, body []byte) []Part {
	t.Helper()
	resp, err := http.Post(srv.URL+modelsPath+"gemini-3.8-flash:"+rpc, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("data: "))) // one part: one event
	var r struct {
		Candidates []struct{ Content Content }
	}
	require.NoError(t, json.Unmarshal(b, &r), string(b))
	require.Len(t, r.Candidates, 1)
	return r.Candidates[0].Content.Parts
}

// A side request names no conversation, even the session's, whose
// script would otherwise answer it: it gets JSON of its schema.
func TestWireSideRequest(t *testing.T) {
	srv := scripted.NewServer(t, Wire{})
	srv.PromptOf = PromptOf
	srv.Handle(sessionPrompt, func(a *scripted.Turns) { a.Say("the session's") })
	parts := postWire(t, srv, "generateContent", recorded(t, "classifier.json"))
	require.Len(t, parts, 1)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(parts[0].Text), &v), parts[0].Text)
	assert.Contains(t, v, "complexity_score")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Prompt)
	assert.False(t, reqs[0].Scripted)
	assert.NotEmpty(t, reqs[0].Texts(SideRole))
}

// A session's turn is decoded into the transcript: the prompt without
// the session context, the calls and their results in order.
func TestWireDecodesATurn(t *testing.T) {
	var req scripted.Request
	req.Path = modelsPath + "gemini-3.8-flash:streamGenerateContent"
	require.NoError(t, Wire{}.Decode(recorded(t, "turn.json"), &req))
	assert.True(t, req.Stream)
	assert.Equal(t, "gemini-3.8-flash", req.Model)
	calls := req.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, "run_shell_command", calls[0].Name)
	assert.Equal(t, "invoke_agent", calls[1].Name)
	for _, c := range calls {
		assert.True(t, c.Done, "%s came back", c.Name)
		assert.False(t, c.IsError)
	}
	assert.Contains(t, calls[0].Output, "Output: hi")
	var prompts []string
	for _, tx := range req.Texts("user") {
		if p := PromptOf(tx); p != "" {
			prompts = append(prompts, p)
		}
	}
	assert.Equal(t, sessionPrompt, prompts[0])
}

// A subagent's last text goes out as its complete_task, the text as the
// generalist's response; a call goes out as it is, with its id.
func TestWireSubagentEndsWithCompleteTask(t *testing.T) {
	srv := scripted.NewServer(t, Wire{})
	srv.PromptOf = PromptOf
	srv.Handle("Say done.", func(a *scripted.Turns) { a.Say("done, all of it") })
	parts := postWire(t, srv, "streamGenerateContent", recorded(t, "subagent.json"))
	require.Len(t, parts, 1)
	require.NotNil(t, parts[0].FunctionCall)
	assert.Equal(t, CompleteTask, parts[0].FunctionCall.Name)
	assert.Equal(t, map[string]any{"response": "done, all of it"}, parts[0].FunctionCall.Args["result"])

	srv = scripted.NewServer(t, Wire{})
	srv.PromptOf = PromptOf
	srv.Handle("Say done.", func(a *scripted.Turns) { a.Call("run_shell_command", map[string]any{"command": "echo done"}) })
	parts = postWire(t, srv, "generateContent", recorded(t, "subagent.json"))
	require.Len(t, parts, 1)
	require.NotNil(t, parts[0].FunctionCall)
	assert.Equal(t, "run_shell_command", parts[0].FunctionCall.Name)
	assert.Equal(t, Wire{}.CallID(parts[0].FunctionCall.ID[4:16], 1), parts[0].FunctionCall.ID)
	assert.Equal(t, "echo done", parts[0].FunctionCall.Args["command"])
}

func TestWireAnswers(t *testing.T) {
	w := Wire{}
	assert.True(t, w.Answers("POST", "/v1beta/models/gemini-3.8-flash:generateContent"))
	assert.True(t, w.Answers("POST", "/v1beta/models/m:streamGenerateContent"))
	assert.False(t, w.Answers("POST", "/v1beta/models/m:countTokens"))
	assert.False(t, w.Answers("GET", "/v1beta/models/m:generateContent"))
	assert.False(t, w.Answers("POST", "/v1beta/models/:generateContent"))
}
