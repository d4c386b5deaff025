package claudehost

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// These tests play the CLI against the scripted model by hand
// (scripted.Player), with Claude Code's calls (calls.go): no CLI needed.

// user is the host's text of the user's role.
func user(text string) scripted.Entry { return scripted.Sent("user", text) }

const reminder = "<system-reminder>\ngit status\n</system-reminder>"

// Bash, Read and the others fail the script on an error result.
func TestMustFailsOnAnErrorResult(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Messages{}).Fake(t, promptOf, false)
	srv.Handle("strict", Script(func(a *Turns) { a.Bash("false") }).Play())
	first := ask(user("strict"))
	ask(user("strict"), scripted.Said(first), scripted.Returned(first.Call.ID, "Exit code 1", true))
	f := srv.Failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], "error result: Exit code 1")
}

// An agent's notification may come as a new turn after the controller
// waited, or with a result it was already given; Wait finds it either
// way, once.
func TestAgentAndWait(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Messages{}).Fake(t, promptOf, false)
	sub := func(a *scripted.Turns) { a.Say("DONE") }
	srv.Handle("main", Script(func(a *Turns) {
		ag := a.Agent(Dispatch{Description: "Impl", Prompt: "sub prompt", Model: "sonnet"}, sub)
		if ag.ID != "abc123" {
			a.Failf("agent id %q", ag.ID)
		}
		n := a.Wait(ag)
		a.Say("got " + n.Status + " " + n.Result)
	}).Play())
	prompt := user("main")
	launch := ask(prompt)
	require.Equal(t, "Agent", launch.Call.Name)
	assert.JSONEq(t, `{"description":"Impl","prompt":"sub prompt","model":"sonnet"}`, string(launch.Call.Input))

	// The subagent's conversation is routed to its script.
	assert.Equal(t, "DONE", ask(user(reminder), user("sub prompt")).Text)

	launched := scripted.Returned(launch.Call.ID, "Async agent launched successfully.\nagentId: abc123 (internal ID)", false)
	wait := ask(prompt, scripted.Said(launch), launched)
	assert.Equal(t, "Waiting for Impl.", wait.Text)

	note := "<system-reminder>\n<task-notification>\n<task-id>abc123</task-id>\n<tool-use-id>" + launch.Call.ID +
		"</tool-use-id>\n<status>completed</status>\n<summary>Agent \"Impl\" finished</summary>\n<result>DONE</result>\n</task-notification>\n</system-reminder>"
	assert.Equal(t, "got completed DONE", ask(prompt, scripted.Said(launch), launched, scripted.Said(wait), user(note)).Text)

	// The notification came with the launch's result: no waiting turn.
	assert.Equal(t, "got completed DONE", ask(prompt, scripted.Said(launch), launched, user(note)).Text)
	assert.Empty(t, srv.Failures())
}

func TestHandBackReport(t *testing.T) {
	text := "[Subagent hand-back] The text below is the final report. The report follows:\n  line one\n    indented\n  line three\nagentId: a1 (use SendMessage with to: 'a1')"
	assert.Equal(t, "line one\n  indented\nline three", handBackReport(text))
}
