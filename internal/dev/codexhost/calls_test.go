package codexhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// These tests play the CLI against the scripted model by hand, with
// Codex's calls (calls.go, skills.go): no CLI needed.

type fakeCLI struct {
	t   *testing.T
	srv *scripted.Server
}

func newFakeCLI(t *testing.T) fakeCLI {
	srv := scripted.NewServer(t, scripted.Responses{})
	srv.PromptOf = promptOf
	return fakeCLI{t, srv}
}

// item is an output item as the CLI reads it.
type item struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// ask posts a /v1/responses request with input and returns the answer's
// one item (its output_item.done).
func (c fakeCLI) ask(input ...map[string]any) item {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "sdd-scripted", "stream": true, "input": input})
	require.NoError(c.t, err)
	resp, err := http.Post(c.srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
	require.NoError(c.t, err)
	defer resp.Body.Close()
	var items []item
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev struct {
				Type string `json:"type"`
				Item item   `json:"item"`
			}
			require.NoError(c.t, json.Unmarshal([]byte(data), &ev))
			if ev.Type == "response.output_item.done" {
				items = append(items, ev.Item)
			}
		}
	}
	require.Len(c.t, items, 1)
	return items[0]
}

func (it item) said() string {
	var s string
	for _, p := range it.Content {
		s += p.Text
	}
	return s
}

func msg(role, text string) map[string]any {
	return map[string]any{"type": "message", "role": role, "content": []map[string]any{{"type": "input_text", "text": text}}}
}

func call(it item) map[string]any {
	m := map[string]any{"type": "function_call", "call_id": it.CallID, "name": it.Name, "arguments": it.Arguments}
	if it.Namespace != "" {
		m["namespace"] = it.Namespace
	}
	return m
}

func output(callID, text string) map[string]any {
	return map[string]any{"type": "function_call_output", "call_id": callID, "output": text}
}

// The context the CLI puts before the prompt (0.171.0).
var cliContext = []map[string]any{
	msg("developer", "You are a coding agent running in the Codex CLI."),
	msg("user", "<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"),
}

func execText(code int, out string) string {
	return "Chunk ID: 1a2b3c\nWall time: 0.0000 seconds\nProcess exited with code " +
		strconv.Itoa(code) + "\nOriginal token count: 1\nOutput:\n" + out
}

// Exec reads the output and the exit code from the text the CLI answers
// with; the environment context is no prompt.
func TestExecReadsTheAnswer(t *testing.T) {
	c := newFakeCLI(t)
	c.srv.Handle("do it", Script(func(a *Turns) {
		e := a.Exec("echo hi")
		a.Say("it said " + strings.TrimSpace(e.Output) + " with code " + strconv.Itoa(e.Code))
	}).play())
	prompt := append(cliContext, msg("user", "do it"))
	first := c.ask(prompt...)
	assert.Equal(t, "exec_command", first.Name)
	assert.JSONEq(t, `{"cmd": "echo hi"}`, first.Arguments)
	second := c.ask(append(prompt, call(first), output(first.CallID, execText(1, "hi\n")))...)
	assert.Equal(t, "it said hi with code 1", second.said())
	assert.Empty(t, c.srv.Failures())
}

// Run fails the script on a non-zero exit; Exec does not.
func TestRunFailsOnAnExitCode(t *testing.T) {
	c := newFakeCLI(t)
	c.srv.Handle("strict", Script(func(a *Turns) { a.Run("false") }).play())
	first := c.ask(msg("user", "strict"))
	c.ask(msg("user", "strict"), call(first), output(first.CallID, execText(1, "")))
	f := c.srv.Failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], `"false" exited with code 1`)
}

// Spawn calls multi_agent_v1's spawn_agent and routes the subagent's
// conversation to its script; Wait calls wait_agent again after a
// timeout, and reads the final status.
func TestSpawnAndWait(t *testing.T) {
	c := newFakeCLI(t)
	c.srv.Handle("main", Script(func(a *Turns) {
		ag := a.Spawn("sub prompt", func(a *Turns) { a.Say("DONE") })
		if ag.ID != "a1" || ag.Nickname != "Fermat" {
			a.Failf("agent %+v", ag)
		}
		st := a.Wait(ag)
		a.Say("got " + st.State + " " + st.Message)
	}).play())
	prompt := msg("user", "main")
	spawn := c.ask(prompt)
	assert.Equal(t, "multi_agent_v1", spawn.Namespace)
	assert.Equal(t, "spawn_agent", spawn.Name)
	assert.JSONEq(t, `{"message":"sub prompt"}`, spawn.Arguments)

	assert.Equal(t, "DONE", c.ask(append(cliContext, msg("user", "sub prompt"))...).said())

	transcript := []map[string]any{prompt, call(spawn), output(spawn.CallID, `{"agent_id":"a1","nickname":"Fermat"}`)}
	wait := c.ask(transcript...)
	assert.Equal(t, "wait_agent", wait.Name)
	assert.JSONEq(t, `{"targets":["a1"],"timeout_ms":60000}`, wait.Arguments)

	transcript = append(transcript, call(wait), output(wait.CallID, `{"status":{},"timed_out":true}`))
	again := c.ask(transcript...)
	assert.Equal(t, "wait_agent", again.Name)
	assert.NotEqual(t, wait.CallID, again.CallID)

	note := msg("user", "<subagent_notification>\n{\"agent_path\":\"a1\",\"status\":{\"completed\":\"DONE\"}}\n</subagent_notification>")
	transcript = append(transcript, call(again), output(again.CallID, `{"status":{"a1":{"completed":"DONE"}},"timed_out":false}`), note)
	assert.Equal(t, "got completed DONE", c.ask(transcript...).said())
	assert.Empty(t, c.srv.Failures())
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
