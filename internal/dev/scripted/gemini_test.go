package scripted

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

// These tests play Gemini CLI against the server speaking the Gemini API
// by hand, with request bodies it sent (0.61.0, in testdata: the system
// prompt cut short, the tools cut to those the conversation uses, the
// test's temporary paths renamed, the call ids those this engine makes):
//
//	gemini-classifier.json  the routing classifier's side request before the session's turn
//	gemini-turn.json        the session's last turn, after a run_shell_command and an invoke_agent
//	gemini-subagent.json    a subagent's first turn

const geminiPrompt = "Run echo hi, then ask the generalist."

// notSessionContext is Gemini CLI's PromptOf: the session context it
// puts before a session's prompt is none.
func notSessionContext(text string) string {
	if strings.HasPrefix(text, "<session_context>") {
		return ""
	}
	return text
}

func geminiServer(t *testing.T) *Server {
	srv := NewServer(t, Gemini{})
	srv.PromptOf = notSessionContext
	return srv
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/gemini-" + name + ".json")
	require.NoError(t, err)
	return b
}

// geminiAnswer is a GenerateContentResponse as the CLI reads it.
type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Role  string
			Parts []geminiPart
		}
		FinishReason string
	}
	UsageMetadata map[string]int
}

// postGemini sends body as the CLI does, for rpc, and returns the
// answer's one part: the one JSON response, or a stream's one event
// ("data: JSON" and a blank line, CRLF).
func postGemini(t *testing.T, srv *Server, rpc string, body []byte) geminiPart {
	t.Helper()
	url := srv.URL + geminiModels + "gemini-3.8-flash:" + rpc
	stream := rpc == "streamGenerateContent"
	if stream {
		url += "?alt=sse"
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	if stream {
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		data, ok := strings.CutPrefix(string(b), "data: ")
		require.True(t, ok, "an event is one data line: %q", b)
		b, ok = bytes.CutSuffix([]byte(data), []byte("\r\n\r\n"))
		require.True(t, ok, "the event ends with a blank line")
	} else {
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	}
	var a geminiAnswer
	require.NoError(t, json.Unmarshal(b, &a), string(b))
	require.Len(t, a.Candidates, 1)
	c := a.Candidates[0]
	assert.Equal(t, "model", c.Content.Role)
	assert.Equal(t, "STOP", c.FinishReason, "the last event has the finish reason")
	assert.NotEmpty(t, a.UsageMetadata, "and the usage")
	require.Len(t, c.Content.Parts, 1)
	return c.Content.Parts[0]
}

// A side request names no conversation, even the session's, whose
// script would otherwise answer it: it gets JSON of its schema.
func TestGeminiSideRequest(t *testing.T) {
	srv := geminiServer(t)
	srv.Handle(geminiPrompt, func(a *Turns) { a.Say("the session's") })
	part := postGemini(t, srv, "generateContent", recorded(t, "classifier"))
	var v struct {
		Reasoning *string  `json:"complexity_reasoning"`
		Score     *float64 `json:"complexity_score"`
	}
	require.NoError(t, json.Unmarshal([]byte(part.Text), &v), part.Text)
	require.NotNil(t, v.Reasoning, "every property of the schema is there")
	require.NotNil(t, v.Score)
	assert.Equal(t, 1.0, *v.Score, "an INTEGER")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Prompt)
	assert.False(t, reqs[0].Scripted)
	assert.Empty(t, reqs[0].Tools)
	assert.Contains(t, reqs[0].System[0], "Task Routing AI")
	assert.Contains(t, reqs[0].Texts(GeminiSide), geminiPrompt)
	assert.Empty(t, srv.Failures())
}

// A session's turn is decoded into the transcript: the prompt after the
// session context, the calls and their results in order, the ids kept.
func TestGeminiDecodesATurn(t *testing.T) {
	req := Request{Path: geminiModels + "gemini-3.8-flash:streamGenerateContent"}
	require.NoError(t, Gemini{}.Decode(recorded(t, "turn"), &req))
	assert.True(t, req.Stream)
	assert.Equal(t, "gemini-3.8-flash", req.Model)
	assert.Equal(t, []string{"run_shell_command", "invoke_agent"}, req.ToolNames())
	shell, ok := req.Tool("run_shell_command")
	require.True(t, ok)
	assert.Contains(t, string(shell.Parameters), `"command"`)
	calls := req.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, Call{ID: "sdd-e2107695da48-001", Name: "run_shell_command", Input: json.RawMessage(`{"command":"echo hi"}`)}, calls[0].Call)
	assert.Equal(t, "invoke_agent", calls[1].Name)
	for _, c := range calls {
		assert.True(t, c.Done, "%s came back: the response carries the call's id", c.Name)
		assert.False(t, c.IsError)
	}
	assert.Contains(t, calls[0].Output, "Output: hi")
	assert.Contains(t, calls[1].Output, "Termination Reason: GOAL")
	users := req.Texts("user")
	require.Len(t, users, 2)
	assert.True(t, strings.HasPrefix(users[0], "<session_context>"))
	assert.Equal(t, geminiPrompt, users[1])

	sub := Request{Path: geminiModels + "m:generateContent"}
	require.NoError(t, Gemini{}.Decode(recorded(t, "subagent"), &sub))
	assert.Equal(t, []Entry{{Role: "user", Text: "Say done."}}, sub.Entries, "a subagent's conversation starts with its prompt alone")
	assert.Equal(t, []string{"run_shell_command", "complete_task"}, sub.ToolNames())

	var failed Request
	require.NoError(t, Gemini{}.Decode([]byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c","name":"read_file","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"c","name":"read_file","response":{"error":"Path not in workspace"}}}]}]}`), &failed))
	assert.Equal(t, &Result{CallID: "c", Text: "Path not in workspace", IsError: true}, failed.Entries[1].Result, "an error response is an error")
}

// The script of gemini-turn.json replays over it, with its subagent of
// gemini-subagent.json: a subagent's last text goes out as its
// complete_task, the text the generalist's response; a call goes out as
// it is, with its id.
func TestGeminiReplaysAScript(t *testing.T) {
	srv := geminiServer(t)
	srv.Handle(geminiPrompt, func(a *Turns) {
		a.Call("run_shell_command", map[string]any{"command": "echo hi"})
		a.Handle("Say done.", func(a *Turns) { a.Say("done") })
		a.Call("invoke_agent", map[string]any{"agent_name": "generalist", "prompt": "Say done."})
		a.Say("All done.")
	})
	assert.Equal(t, geminiPart{Text: "All done."}, postGemini(t, srv, "streamGenerateContent", recorded(t, "turn")))

	end := postGemini(t, srv, "generateContent", recorded(t, "subagent"))
	require.NotNil(t, end.FunctionCall)
	assert.Equal(t, completeTask, end.FunctionCall.Name)
	assert.Equal(t, map[string]any{"result": map[string]any{"response": "done"}}, end.FunctionCall.Args)
	assert.Empty(t, srv.Failures())

	srv.Handle("Say done.", func(a *Turns) { a.Call("run_shell_command", map[string]any{"command": "echo done"}) })
	call := postGemini(t, srv, "streamGenerateContent", recorded(t, "subagent"))
	require.NotNil(t, call.FunctionCall)
	assert.Equal(t, "run_shell_command", call.FunctionCall.Name)
	assert.Regexp(t, `^sdd-[0-9a-f]{12}-001$`, call.FunctionCall.ID)
	assert.Equal(t, map[string]any{"command": "echo done"}, call.FunctionCall.Args)
	assert.Empty(t, srv.Failures())
}

// A text for a subagent whose complete_task takes a string (an agent of
// ~/.gemini/agents) is that string.
func TestGeminiCompleteTaskOfAString(t *testing.T) {
	srv := geminiServer(t)
	srv.Handle("p", func(a *Turns) { a.Say("DONE task 2") })
	body := `{"contents":[{"role":"user","parts":[{"text":"p"}]}],"tools":[{"functionDeclarations":[{"name":"complete_task",
		"parametersJsonSchema":{"type":"object","properties":{"result":{"type":"string"}}}}]}]}`
	end := postGemini(t, srv, "generateContent", []byte(body))
	require.NotNil(t, end.FunctionCall)
	assert.Equal(t, map[string]any{"result": "DONE task 2"}, end.FunctionCall.Args)
}

func TestGeminiAnswers(t *testing.T) {
	w := Gemini{}
	assert.True(t, w.Answers("POST", "/v1beta/models/gemini-3.8-flash:generateContent"))
	assert.True(t, w.Answers("POST", "/v1beta/models/m:streamGenerateContent"))
	assert.False(t, w.Answers("POST", "/v1beta/models/m:countTokens"))
	assert.False(t, w.Answers("GET", "/v1beta/models/m:generateContent"))
	assert.False(t, w.Answers("POST", "/v1beta/models/:generateContent"))
}

func TestFillSchema(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"type":"OBJECT","properties":{"a":{"type":"STRING"},"n":{"type":"INTEGER"}},"required":["a","n"]}`, `{"a":"scripted","n":1}`},
		{`{"type":"object","properties":{"choice":{"type":"string","enum":["flash","pro"]},"ok":{"type":"boolean"}}}`, `{"choice":"flash","ok":false}`},
		{`{"type":"number","minimum":5}`, `5`},
		{`{"type":"integer","maximum":0}`, `0`},
		{`{"type":"array","items":{"type":"string"},"minItems":2}`, `["scripted","scripted"]`},
		{`{"type":"array","items":{"type":"string"}}`, `[]`},
		{`{"type":["null","string"]}`, `"scripted"`},
		{`{"anyOf":[{"type":"integer"},{"type":"string"}]}`, `1`},
		{`{"type":"string","default":"given"}`, `"given"`},
		{`{"properties":{"nested":{"type":"OBJECT","properties":{"x":{"type":"NUMBER"}}}}}`, `{"nested":{"x":0}}`},
		// Gemini CLI's loop check: a confidence of 0, no loop.
		{`{"type":"object","properties":{"unproductive_state_analysis":{"type":"string"},"unproductive_state_confidence":{"type":"number"}}}`, `{"unproductive_state_analysis":"scripted","unproductive_state_confidence":0}`},
	} {
		v, err := fillSchema(json.RawMessage(c.schema))
		require.NoError(t, err, c.schema)
		b, _ := json.Marshal(v)
		assert.JSONEq(t, c.want, string(b), c.schema)
	}
	_, err := fillSchema(json.RawMessage(`{"description":"no type"}`))
	assert.ErrorContains(t, err, "no value for the schema")
	_, err = fillSchema(json.RawMessage(`[`))
	assert.Error(t, err)
}
