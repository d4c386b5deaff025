package codexhost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// These tests run the real Codex CLI ($SDD_CODEX_CLI) against the
// scripted model: each proves one round trip the skill will need.

// outputsOf are the function_call_output items of a request's input, as
// sent (raw), in order.
func outputsOf(t *testing.T, r scripted.Request) []map[string]any {
	t.Helper()
	var body struct{ Input []map[string]any }
	require.NoError(t, json.Unmarshal(r.Body, &body))
	var out []map[string]any
	for _, it := range body.Input {
		if it["type"] == "function_call_output" {
			out = append(out, it)
		}
	}
	return out
}

// The model runs a command with exec_command and reads its output and
// exit code from the text the CLI answers with.
func TestExecEcho(t *testing.T) {
	h := New(t, t.TempDir())
	s := h.Run("Say hi through the shell.", func(a *Turns) {
		e := a.Exec("echo hi")
		if e.Output != "hi\n" || e.Code != 0 {
			a.Failf("echo hi gave %+v", e)
		}
		a.Say(fmt.Sprintf("The shell said %q with code %d.", strings.TrimSpace(e.Output), e.Code))
	})
	assert.Equal(t, `The shell said "hi" with code 0.`, s.Final)
	cmds := s.Commands()
	require.Len(t, cmds, 1)
	assert.Contains(t, cmds[0].Command, "echo hi")
	assert.Equal(t, "hi\n", cmds[0].AggregatedOutput)
	require.NotNil(t, cmds[0].ExitCode)
	assert.Equal(t, 0, *cmds[0].ExitCode)

	reqs := h.Server.Requests()
	require.Len(t, reqs, 2, "one request a turn: the call, then the answer")
	_, ok := reqs[0].Tool("exec_command")
	assert.True(t, ok, "exec_command is offered")
	assert.Empty(t, h.Server.Unknown(), "the CLI makes no side request")
}

// A failing command comes back like a passing one, but for its code:
// the output carries no error flag.
func TestExecFailure(t *testing.T) {
	h := New(t, t.TempDir())
	h.AllowError = func(c scripted.CallResult) bool { return c.Name == "exec_command" }
	s := h.Run("Run a failing command.", func(a *Turns) {
		e := a.Exec("echo oops >&2; exit 3")
		if e.Code != 3 || e.Output != "oops\n" {
			a.Failf("the failing command gave %+v", e)
		}
		a.Say(fmt.Sprintf("It failed with code %d.", e.Code))
	})
	assert.Equal(t, "It failed with code 3.", s.Final)
	cmds := s.Commands()
	require.Len(t, cmds, 1)
	require.NotNil(t, cmds[0].ExitCode)
	assert.Equal(t, 3, *cmds[0].ExitCode)
	assert.Equal(t, "failed", cmds[0].Status)

	reqs := h.Server.Requests()
	require.Len(t, reqs, 2)
	outs := outputsOf(t, reqs[1])
	require.Len(t, outs, 1)
	var keys []string
	for k := range outs[0] {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"type", "id", "call_id", "output"}, keys, "no success or error field")
	text, ok := outs[0]["output"].(string)
	require.True(t, ok, "the output is a plain string: %v", outs[0]["output"])
	assert.Contains(t, text, "\nProcess exited with code 3\n")
}

// Each exec_command is a new process in the session's directory: a cd or
// a variable does not carry over. The PATH is the session's, after two
// directories of the CLI's own (its helpers' links and its rg).
func TestExecFreshShell(t *testing.T) {
	repo := t.TempDir()
	h := New(t, repo)
	s := h.Run("Look at the shell.", func(a *Turns) {
		a.Run("cd / && export SDD_X=1")
		a.Say(a.Run(`pwd; echo "${SDD_X-unset}"; echo "$PATH"`))
	})
	lines := strings.Split(strings.TrimSpace(s.Final), "\n")
	require.Len(t, lines, 3, s.Final)
	assert.Equal(t, repo, lines[0])
	assert.Equal(t, "unset", lines[1])
	path := strings.Split(lines[2], ":")
	require.Len(t, path, 2+len(h.Path), lines[2])
	assert.Equal(t, h.Path, path[2:])
	assert.Equal(t, "codex-path", filepath.Base(path[0]))
	assert.True(t, strings.HasPrefix(path[1], filepath.Join(h.CodexHome, "tmp", "arg0")), path[1])
}

// A command still running when the CLI answers (after yield_time_ms) is
// polled with write_stdin until it exits.
func TestExecPolls(t *testing.T) {
	h := New(t, t.TempDir())
	s := h.Run("Wait for a slow command.", func(a *Turns) {
		e := a.ExecWith(Command{Cmd: "sleep 1; echo late", YieldMs: 250})
		if e.Output != "late\n" || e.Code != 0 {
			a.Failf("the slow command gave %+v", e)
		}
		a.Say("late")
	})
	assert.Equal(t, "late", s.Final)
	var names []string
	for _, c := range h.Server.Calls(s.Prompt) {
		names = append(names, c.Name)
	}
	require.GreaterOrEqual(t, len(names), 2, "%v", names)
	assert.Equal(t, "exec_command", names[0])
	assert.Equal(t, "write_stdin", names[1])
}

// A subagent (spawn_agent) runs its own conversation, named by its first
// prompt, with its own shell calls; the parent reads its answer with
// wait_agent, and a send_input to the finished subagent continues its
// conversation (a fix round) and brings a second answer.
func TestSubagent(t *testing.T) {
	h := New(t, t.TempDir())
	const brief = "You are the helper: run echo sub and report what it printed."
	const fix = "Fix round: run echo fixed and report again."
	helper := func(a *Turns) {
		out := a.Run("echo sub")
		more := a.Say("SUB: " + strings.TrimSpace(out))
		if !strings.Contains(strings.Join(more, "\n"), fix) {
			a.Failf("the continued helper got %q", more)
		}
		a.Say("FIXED: " + strings.TrimSpace(a.Run("echo fixed")))
	}
	s := h.Run("Delegate to a helper.", func(a *Turns) {
		ag := a.Spawn(brief, helper)
		st := a.Wait(ag)
		if st.State != "completed" || st.Message != "SUB: sub" {
			a.Failf("the helper's first status: %+v", st)
		}
		a.SendInput(ag, fix)
		st = a.Wait(ag)
		if st.State != "completed" || st.Message != "FIXED: fixed" {
			a.Failf("the helper's second status: %+v", st)
		}
		a.Say("The helper said " + st.Message + ".")
	})
	assert.Equal(t, "The helper said FIXED: fixed.", s.Final)
	assert.Empty(t, s.Commands(), "the subagent's commands are not the session's items")

	var tools []string
	for _, it := range s.ItemsOf("collab_tool_call") {
		tools = append(tools, it.Tool)
	}
	assert.Equal(t, []string{"spawn_agent", "wait", "send_input", "wait"}, tools)

	child := h.Server.Conversation(brief)
	require.NotEmpty(t, child)
	for _, r := range child {
		assert.Equal(t, "collab_spawn", r.Header.Get("X-Openai-Subagent"), "request %d", r.Seq)
	}
	var ran []string
	for _, c := range h.Server.Calls(brief) {
		ran = append(ran, c.Str("cmd"))
	}
	assert.Equal(t, []string{"echo sub", "echo fixed"}, ran)
	for _, r := range h.Server.Conversation(s.Prompt) {
		assert.Empty(t, r.Header.Get("X-Openai-Subagent"), "request %d", r.Seq)
	}
}

// A skill in $CODEX_HOME/skills/<dir>/SKILL.md is listed in the
// instructions with its name, description and path, and the model reads
// it with the shell: there is no skill tool.
func TestSkillListedAndRead(t *testing.T) {
	h := New(t, t.TempDir())
	skillMD := filepath.Join(h.CodexHome, "skills", "x", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skillMD), 0o755))
	const text = "---\nname: probe-skill\ndescription: Use when probing the host.\n---\n\n# Probe\n\nAnswer PROBED.\n"
	require.NoError(t, os.WriteFile(skillMD, []byte(text), 0o644))
	s := h.Run("Use the probe skill.", func(a *Turns) {
		sk, ok := a.Skill("probe-skill")
		if !ok {
			a.Failf("probe-skill is not listed: %+v", a.Skills())
		}
		if sk.Path != skillMD || sk.Description != "Use when probing the host." {
			a.Failf("probe-skill is listed as %+v", sk)
		}
		body := a.Run("cat " + Quote(sk.Path))
		if !strings.Contains(body, "Answer PROBED.") {
			a.Failf("the skill reads %q", body)
		}
		a.Say("PROBED")
	})
	assert.Equal(t, "PROBED", s.Final)
	reqs := h.Server.Requests()
	require.NotEmpty(t, reqs)
	var listed []Skill
	for _, t := range reqs[0].Texts("developer") {
		listed = append(listed, parseSkills(t)...)
	}
	assert.Contains(t, listed, Skill{Name: "probe-skill", Description: "Use when probing the host.", Path: skillMD})
	cmds := s.Commands()
	require.Len(t, cmds, 1)
	assert.Contains(t, cmds[0].AggregatedOutput, "Answer PROBED.")
}

// A session's shell finds none of the commands by name: the CLI puts no
// bin/ of a skill on PATH, and the host's PATH holds no copy; the skill's
// file has them run by their path.
func TestCommandsNotOnPath(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h := New(t, repo)
	dir := h.InstallSkill()
	require.FileExists(t, filepath.Join(dir, "bin", "sdd-ledger"))
	s := h.Run("Look for the commands on PATH.", func(a *Turns) {
		a.Say(a.Exec("for c in " + strings.Join(ship.Commands, " ") + "; do command -v $c || echo \"no $c\"; done").Output)
	})
	for _, name := range ship.Commands {
		assert.Contains(t, s.Final, "no "+name)
	}
}
