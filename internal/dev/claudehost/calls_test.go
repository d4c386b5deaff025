package claudehost

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// These tests play the CLI against the scripted model by hand, with
// Claude Code's calls (calls.go): no CLI needed.

type fakeCLI struct {
	t   *testing.T
	srv *scripted.Server
}

func newFakeCLI(t *testing.T) fakeCLI {
	srv := scripted.NewServer(t, scripted.Messages{})
	srv.PromptOf = promptOf
	return fakeCLI{t, srv}
}

// ask posts a /v1/messages request with msgs and returns the answer's
// one block.
func (c fakeCLI) ask(msgs ...map[string]any) scripted.Block {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "claude-test", "messages": msgs})
	require.NoError(c.t, err)
	resp, err := http.Post(c.srv.URL+"/v1/messages", "application/json", bytes.NewReader(body))
	require.NoError(c.t, err)
	defer resp.Body.Close()
	var m struct{ Content []scripted.Block }
	require.NoError(c.t, json.NewDecoder(resp.Body).Decode(&m))
	require.Len(c.t, m.Content, 1)
	return m.Content[0]
}

func user(bs ...map[string]any) map[string]any { return map[string]any{"role": "user", "content": bs} }
func assistant(b scripted.Block) map[string]any {
	return map[string]any{"role": "assistant", "content": []scripted.Block{b}}
}
func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
func toolResult(id, content string, isError bool) map[string]any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}
}

const reminder = "<system-reminder>\ngit status\n</system-reminder>"

// Bash, Read and the others fail the script on an error result.
func TestMustFailsOnAnErrorResult(t *testing.T) {
	c := newFakeCLI(t)
	c.srv.Handle("strict", Script(func(a *Turns) { a.Bash("false") }).play())
	first := c.ask(user(text("strict")))
	c.ask(user(text("strict")), assistant(first), user(toolResult(first.ID, "Exit code 1", true)))
	f := c.srv.Failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], "error result: Exit code 1")
}

// An agent's notification may come as a new turn after the controller
// waited, or with a result it was already given; Wait finds it either
// way, once.
func TestAgentAndWait(t *testing.T) {
	c := newFakeCLI(t)
	sub := func(a *scripted.Turns) { a.Say("DONE") }
	c.srv.Handle("main", Script(func(a *Turns) {
		ag := a.Agent(Dispatch{Description: "Impl", Prompt: "sub prompt", Model: "sonnet"}, sub)
		if ag.ID != "abc123" {
			a.Failf("agent id %q", ag.ID)
		}
		n := a.Wait(ag)
		a.Say("got " + n.Status + " " + n.Result)
	}).play())
	prompt := user(text("main"))
	launch := c.ask(prompt)
	require.Equal(t, "Agent", launch.Name)
	assert.JSONEq(t, `{"description":"Impl","prompt":"sub prompt","model":"sonnet"}`, string(launch.Input))

	// The subagent's conversation is routed to its script.
	assert.Equal(t, "DONE", c.ask(user(text(reminder), text("sub prompt"))).Text)

	launched := toolResult(launch.ID, "Async agent launched successfully.\nagentId: abc123 (internal ID)", false)
	wait := c.ask(prompt, assistant(launch), user(launched))
	assert.Equal(t, "Waiting for Impl.", wait.Text)

	note := "<system-reminder>\n<task-notification>\n<task-id>abc123</task-id>\n<tool-use-id>" + launch.ID +
		"</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Impl\" finished</summary>\n<result>DONE</result>\n</task-notification>\n</system-reminder>"
	assert.Equal(t, "got completed DONE", c.ask(prompt, assistant(launch), user(launched), assistant(wait), user(text(note))).Text)

	// The notification came with the launch's result: no waiting turn.
	assert.Equal(t, "got completed DONE", c.ask(prompt, assistant(launch), user(launched, text(note))).Text)
	assert.Empty(t, c.srv.Failures())
}

func TestHandBackReport(t *testing.T) {
	text := "[Subagent hand-back] The text below is the final report. The report follows:\n  line one\n    indented\n  line three\nagentId: a1 (use SendMessage with to: 'a1')"
	assert.Equal(t, "line one\n  indented\nline three", handBackReport(text))
}
