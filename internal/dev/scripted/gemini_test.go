package scripted

import (
	"encoding/json"
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
	t.Helper()
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

// postGemini sends body as Gemini CLI does, streamed or not, and returns
// the answer's turn.
func postGemini(t *testing.T, srv *Server, stream bool, body []byte) Turn {
	t.Helper()
	return PlayerOf(Gemini{}).Post(t, srv, stream, json.RawMessage(body))
}

// A side request names no conversation, even the session's, whose
// script would otherwise answer it: it gets JSON of its schema.
func TestGeminiSideRequest(t *testing.T) {
	srv := geminiServer(t)
	srv.Handle(geminiPrompt, func(a *Turns) { a.Say("the session's") })
	answer := postGemini(t, srv, false, recorded(t, "classifier"))
	var v struct {
		Reasoning *string  `json:"complexity_reasoning"`
		Score     *float64 `json:"complexity_score"`
	}
	require.NoError(t, json.Unmarshal([]byte(answer.Text), &v), answer.Text)
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
	assert.Equal(t, Turn{Text: "All done."}, postGemini(t, srv, true, recorded(t, "turn")))

	end := postGemini(t, srv, false, recorded(t, "subagent"))
	require.NotNil(t, end.Call)
	assert.Equal(t, completeTask, end.Call.Name)
	assert.JSONEq(t, `{"result": {"response": "done"}}`, string(end.Call.Input))
	assert.Empty(t, srv.Failures())

	srv.Handle("Say done.", func(a *Turns) { a.Call("run_shell_command", map[string]any{"command": "echo done"}) })
	call := postGemini(t, srv, true, recorded(t, "subagent"))
	require.NotNil(t, call.Call)
	assert.Equal(t, "run_shell_command", call.Call.Name)
	assert.Regexp(t, `^sdd-[0-9a-f]{12}-001$`, call.Call.ID)
	assert.JSONEq(t, `{"command": "echo done"}`, string(call.Call.Input))
	assert.Empty(t, srv.Failures())
}

// A text for a subagent whose complete_task takes a string (an agent of
// ~/.gemini/agents) is that string.
func TestGeminiCompleteTaskOfAString(t *testing.T) {
	srv := geminiServer(t)
	srv.Handle("p", func(a *Turns) { a.Say("DONE task 2") })
	body := `{"contents":[{"role":"user","parts":[{"text":"p"}]}],"tools":[{"functionDeclarations":[{"name":"complete_task",
		"parametersJsonSchema":{"type":"object","properties":{"result":{"type":"string"}}}}]}]}`
	end := postGemini(t, srv, false, []byte(body))
	require.NotNil(t, end.Call)
	assert.JSONEq(t, `{"result": "DONE task 2"}`, string(end.Call.Input))
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
