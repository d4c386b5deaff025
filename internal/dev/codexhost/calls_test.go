package codexhost

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// These tests play the CLI against the scripted model by hand
// (scripted.Player), with Codex's calls (calls.go, skills.go): no CLI
// needed.

// user is the host's text of the user's role.
func user(text string) scripted.Entry { return scripted.Sent("user", text) }

// output is what came back for a call.
func output(t scripted.Turn, text string) scripted.Entry {
	return scripted.Returned(t.Call.ID, text, false)
}

// The context the CLI puts before the prompt (0.171.0).
var cliContext = []scripted.Entry{
	scripted.Sent("developer", "You are a coding agent running in the Codex CLI."),
	user("<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"),
}

func execText(code int, out string) string {
	return "Chunk ID: 1a2b3c\nWall time: 0.0000 seconds\nProcess exited with code " +
		strconv.Itoa(code) + "\nOriginal token count: 1\nOutput:\n" + out
}

// Exec reads the output and the exit code from the text the CLI answers
// with; the environment context is no prompt.
func TestExecReadsTheAnswer(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Responses{}).Fake(t, promptOf, true)
	srv.Handle("do it", Script(func(a *Turns) {
		e := a.Exec("echo hi")
		a.Say("it said " + strings.TrimSpace(e.Output) + " with code " + strconv.Itoa(e.Code))
	}).Play())
	prompt := append(cliContext, user("do it"))
	first := ask(prompt...)
	assert.Equal(t, "exec_command", first.Call.Name)
	assert.JSONEq(t, `{"cmd": "echo hi"}`, string(first.Call.Input))
	second := ask(append(prompt, scripted.Said(first), output(first, execText(1, "hi\n")))...)
	assert.Equal(t, "it said hi with code 1", second.Text)
	assert.Empty(t, srv.Failures())
}

// Run fails the script on a non-zero exit; Exec does not.
func TestRunFailsOnAnExitCode(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Responses{}).Fake(t, promptOf, true)
	srv.Handle("strict", Script(func(a *Turns) { a.Run("false") }).Play())
	first := ask(user("strict"))
	ask(user("strict"), scripted.Said(first), output(first, execText(1, "")))
	f := srv.Failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], `"false" exited with code 1`)
}

// Spawn calls multi_agent_v1's spawn_agent and routes the subagent's
// conversation to its script; Wait calls wait_agent again after a
// timeout, and reads the final status.
func TestSpawnAndWait(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Responses{}).Fake(t, promptOf, true)
	srv.Handle("main", Script(func(a *Turns) {
		ag := a.Spawn("sub prompt", func(a *Turns) { a.Say("DONE") })
		if ag.ID != "a1" || ag.Nickname != "Fermat" {
			a.Failf("agent %+v", ag)
		}
		st := a.Wait(ag)
		a.Say("got " + st.State + " " + st.Message)
	}).Play())
	prompt := user("main")
	spawn := ask(prompt)
	assert.Equal(t, "multi_agent_v1", spawn.Call.Namespace)
	assert.Equal(t, "spawn_agent", spawn.Call.Name)
	assert.JSONEq(t, `{"message":"sub prompt"}`, string(spawn.Call.Input))

	assert.Equal(t, "DONE", ask(append(cliContext, user("sub prompt"))...).Text)

	transcript := []scripted.Entry{prompt, scripted.Said(spawn), output(spawn, `{"agent_id":"a1","nickname":"Fermat"}`)}
	wait := ask(transcript...)
	assert.Equal(t, "wait_agent", wait.Call.Name)
	assert.JSONEq(t, `{"targets":["a1"],"timeout_ms":60000}`, string(wait.Call.Input))

	transcript = append(transcript, scripted.Said(wait), output(wait, `{"status":{},"timed_out":true}`))
	again := ask(transcript...)
	assert.Equal(t, "wait_agent", again.Call.Name)
	assert.NotEqual(t, wait.Call.ID, again.Call.ID)

	note := user("<subagent_notification>\n{\"agent_path\":\"a1\",\"status\":{\"completed\":\"DONE\"}}\n</subagent_notification>")
	transcript = append(transcript, scripted.Said(again), output(again, `{"status":{"a1":{"completed":"DONE"}},"timed_out":false}`), note)
	assert.Equal(t, "got completed DONE", ask(transcript...).Text)
	assert.Empty(t, srv.Failures())
}

func TestParseExec(t *testing.T) {
	out, code, exited, running := parseExec("Chunk ID: 66198b\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 2\nOutput:\noops\n")
	assert.Equal(t, "oops\n", out)
	assert.Equal(t, 3, code)
	assert.True(t, exited)
	assert.Zero(t, running)

	out, _, exited, running = parseExec("Chunk ID: 89040d\nWall time: 0.2505 seconds\nProcess running with session ID 27244\nOriginal token count: 0\nOutput:\n")
	assert.Empty(t, out)
	assert.False(t, exited)
	assert.Equal(t, 27244, running)

	// A line of the output that looks like the header is output.
	out, code, _, _ = parseExec("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nProcess exited with code 7\n")
	assert.Equal(t, 0, code)
	assert.Equal(t, "Process exited with code 7\n", out)
}

func TestParseSkills(t *testing.T) {
	text := "<skills_instructions>\n## Skills\nA skill is a set of local instructions.\n### Skill roots\n" +
		"- `r0` = `/h/.codex/skills`\n- `r1` = `/h/.codex/skills/.system`\n### Available skills\n" +
		"- imagegen: Generate images (bitmaps), not vectors. (file: r1/imagegen/SKILL.md)\n" +
		"- sdd-go:subagent-driven-development: Use when: a plan. (file: r0/sdd/SKILL.md)\n" +
		"</skills_instructions>"
	assert.Equal(t, []Skill{
		{Name: "imagegen", Description: "Generate images (bitmaps), not vectors.", Path: "/h/.codex/skills/.system/imagegen/SKILL.md"},
		{Name: "sdd-go:subagent-driven-development", Description: "Use when: a plan.", Path: "/h/.codex/skills/sdd/SKILL.md"},
	}, parseSkills(text))
	assert.Nil(t, parseSkills("no skills here"))
}

// The config points the CLI at the scripted model and nowhere else.
func TestConfig(t *testing.T) {
	c := Config("http://127.0.0.1:4242")
	for _, want := range []string{
		`model = "sdd-scripted"`, `model_provider = "sdd"`, `base_url = "http://127.0.0.1:4242/v1"`,
		`wire_api = "responses"`, `env_key = "` + KeyEnv + `"`, `approval_policy = "never"`,
		`check_for_update_on_startup = false`, `allow_login_shell = false`, "[analytics]\nenabled = false",
	} {
		assert.Contains(t, c, want)
	}
}
