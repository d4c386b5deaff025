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
)

// These tests play the CLI against the server by hand: no CLI needed.

type fakeCLI struct {
	t   *testing.T
	srv *Server
}

// ask posts a /v1/responses request with input and returns the items of
// the answer's output_item.done events, checking the stream's frame:
// response.created first, response.completed last, each event's name its
// data's type.
func (c fakeCLI) ask(input ...map[string]any) []Item {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"model": "sdd-scripted", "stream": true, "input": input})
	require.NoError(c.t, err)
	resp, err := http.Post(c.srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
	require.NoError(c.t, err)
	defer resp.Body.Close()
	require.Equal(c.t, http.StatusOK, resp.StatusCode)
	require.Equal(c.t, "text/event-stream", resp.Header.Get("Content-Type"))
	var names []string
	var items []Item
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
			Type string `json:"type"`
			Item Item   `json:"item"`
		}
		require.NoError(c.t, json.Unmarshal([]byte(data), &ev))
		require.Equal(c.t, name, ev.Type)
		names = append(names, ev.Type)
		if ev.Type == "response.output_item.done" {
			items = append(items, ev.Item)
		}
	}
	require.NotEmpty(c.t, names)
	require.Equal(c.t, "response.created", names[0])
	require.Equal(c.t, "response.completed", names[len(names)-1])
	return items
}

func msg(role, text string) map[string]any {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return map[string]any{"type": "message", "role": role, "content": []map[string]any{{"type": typ, "text": text}}}
}

func call(it Item) map[string]any {
	m := map[string]any{"type": "function_call", "call_id": it.CallID, "name": it.Name, "arguments": it.Arguments}
	if it.Namespace != "" {
		m["namespace"] = it.Namespace
	}
	return m
}

func output(callID, text string) map[string]any {
	return map[string]any{"type": "function_call_output", "call_id": callID, "output": text}
}

func said(items []Item) string {
	if len(items) != 1 || items[0].Type != "message" {
		return ""
	}
	return strings.Join(items[0].Texts(), "")
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

func TestServerReplaysAScript(t *testing.T) {
	c := fakeCLI{t, NewServer(t)}
	c.srv.Handle("do it", func(a *Turns) {
		e := a.Exec("echo hi")
		a.Say("it said " + strings.TrimSpace(e.Output) + " with code " + strconv.Itoa(e.Code))
	})
	prompt := append(cliContext, msg("user", "do it"))

	first := c.ask(prompt...)
	require.Len(t, first, 1)
	assert.Equal(t, "function_call", first[0].Type)
	assert.Equal(t, "exec_command", first[0].Name)
	assert.Empty(t, first[0].Namespace)
	assert.JSONEq(t, `{"cmd": "echo hi"}`, first[0].Arguments)
	assert.True(t, strings.HasPrefix(first[0].CallID, "call_sdd"), first[0].CallID)

	transcript := append(prompt, call(first[0]), output(first[0].CallID, execText(1, "hi\n")))
	second := c.ask(transcript...)
	assert.Equal(t, "it said hi with code 1", said(second))

	// Exhausted: the turn ends with a text.
	third := c.ask(append(transcript, msg("assistant", said(second)), msg("user", "more?"))...)
	assert.Equal(t, doneText, said(third))
	assert.Empty(t, c.srv.Failures())
	for _, r := range c.srv.Requests() {
		assert.Equal(t, "do it", r.Prompt)
		assert.True(t, r.Scripted)
	}
}

func TestServerFailsADivergingTranscript(t *testing.T) {
	c := fakeCLI{t, NewServer(t)}
	c.srv.Handle("do it", func(a *Turns) { a.Run("echo hi") })
	other := Item{Type: "function_call", CallID: "call_other", Name: "exec_command", Arguments: `{"cmd":"echo ho"}`}
	got := c.ask(msg("user", "do it"), call(other), output("call_other", execText(0, "ho\n")))
	assert.Contains(t, said(got), "SCRIPT FAILED")
	require.Len(t, c.srv.Failures(), 1)
	assert.Contains(t, c.srv.Failures()[0], "the transcript does not follow the script")
	select {
	case <-c.srv.Failed():
	default:
		t.Error("Failed() is not closed after a failure")
	}
}

// Run fails the script on a non-zero exit; Exec does not.
func TestServerRunFailsOnAnExitCode(t *testing.T) {
	c := fakeCLI{t, NewServer(t)}
	c.srv.Handle("strict", func(a *Turns) { a.Run("false") })
	first := c.ask(msg("user", "strict"))
	c.ask(msg("user", "strict"), call(first[0]), output(first[0].CallID, execText(1, "")))
	f := c.srv.Failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], `"false" exited with code 1`)
}

func TestServerUnknownAndOtherPaths(t *testing.T) {
	c := fakeCLI{t, NewServer(t)}
	got := c.ask(append(cliContext, msg("user", "Generate a title"))...)
	assert.Equal(t, unknownAnswer, said(got))
	for _, path := range []string{"/v1/models", "/v1/other"} {
		resp, err := http.Get(c.srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}
	reqs := c.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "Generate a title", reqs[0].Prompt, "the environment context is not the prompt")
	unknown := c.srv.Unknown()
	require.Len(t, unknown, 1)
	assert.Equal(t, 1, unknown[0].Seq)
}

// Spawn calls multi_agent_v1's spawn_agent and routes the subagent's
// conversation to its script; Wait calls wait_agent again after a
// timeout, and reads the final status.
func TestServerSpawnAndWait(t *testing.T) {
	c := fakeCLI{t, NewServer(t)}
	c.srv.Handle("main", func(a *Turns) {
		ag := a.Spawn("sub prompt", func(a *Turns) { a.Say("DONE") })
		if ag.ID != "a1" || ag.Nickname != "Fermat" {
			a.Failf("agent %+v", ag)
		}
		st := a.Wait(ag)
		a.Say("got " + st.State + " " + st.Message)
	})
	prompt := msg("user", "main")
	spawn := c.ask(prompt)
	require.Len(t, spawn, 1)
	assert.Equal(t, "multi_agent_v1", spawn[0].Namespace)
	assert.Equal(t, "spawn_agent", spawn[0].Name)
	assert.JSONEq(t, `{"message":"sub prompt"}`, spawn[0].Arguments)

	assert.Equal(t, "DONE", said(c.ask(append(cliContext, msg("user", "sub prompt"))...)))

	transcript := []map[string]any{prompt, call(spawn[0]), output(spawn[0].CallID, `{"agent_id":"a1","nickname":"Fermat"}`)}
	wait := c.ask(transcript...)
	require.Len(t, wait, 1)
	assert.Equal(t, "wait_agent", wait[0].Name)
	assert.JSONEq(t, `{"targets":["a1"],"timeout_ms":60000}`, wait[0].Arguments)

	transcript = append(transcript, call(wait[0]), output(wait[0].CallID, `{"status":{},"timed_out":true}`))
	again := c.ask(transcript...)
	require.Len(t, again, 1)
	assert.Equal(t, "wait_agent", again[0].Name)
	assert.NotEqual(t, wait[0].CallID, again[0].CallID)

	note := msg("user", "<subagent_notification>\n{\"agent_path\":\"a1\",\"status\":{\"completed\":\"DONE\"}}\n</subagent_notification>")
	transcript = append(transcript, call(again[0]), output(again[0].CallID, `{"status":{"a1":{"completed":"DONE"}},"timed_out":false}`), note)
	assert.Equal(t, "got completed DONE", said(c.ask(transcript...)))
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
