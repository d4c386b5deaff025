package opencodehost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// These tests run the real CLI ($SDD_OPENCODE_CLI): each is one session
// of `opencode run` against the scripted model, proving one thing the
// skill will need from the host.

// newRepo makes a git repository with one commit, in a directory whose
// path holds a space and an é, as the Claude Code suite's.
func newRepo(t *testing.T) string {
	t.Helper()
	root := filepath.Join(testutil.RealTempDir(t), "my repo é", "shop")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte("# shop\n"), 0o644))
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "start"},
	} {
		testutil.Git(t, root, args...)
	}
	return root
}

// TestBash: the model runs a command with the bash tool and reads its
// output, which is all the model gets (the exit status only the event
// stream has); the session leaves the repository as it was. The prompt
// holds spaces and quotes: opencode run quotes it before sending it
// (RunMessage), and the script is still found.
func TestBash(t *testing.T) {
	repo := newRepo(t)
	h := New(t, repo)
	// After "--", a message that reads as an option is a message.
	const prompt = `--Run "echo hi" and tell me what it said.`
	s := h.Run(prompt, func(a *Turns) {
		out := a.Bash("echo hi")
		if out != "hi\n" {
			a.Failf("echo hi gave %q", out)
		}
		if out := a.Bash("true"); out != "(no output)" {
			a.Failf("true gave %q", out)
		}
		a.Say("It said " + strings.TrimSpace(out) + ".")
	})
	assert.Equal(t, []string{"echo hi", "true"}, s.Commands())
	assert.Equal(t, "It said hi.", s.Final)
	require.Len(t, s.Uses, 2)
	code, ok := s.Uses[0].Exit()
	assert.True(t, ok && code == 0, "exit status %d, %v", code, ok)
	assert.Empty(t, testutil.Git(t, repo, "status", "--porcelain", "--ignored"), "the session left files in the repository")

	var main []scripted.Request
	for _, r := range h.Server.Requests() {
		if r.Scripted {
			main = append(main, r)
		}
	}
	require.Len(t, main, 3, "one request a turn")
	assert.Equal(t, RunMessage(prompt), main[0].Prompt)
	assert.Contains(t, main[0].ToolNames(), "bash")
	for _, r := range h.Server.Unknown() {
		assert.Contains(t, r.Prompt, "Generate a title", "a side request other than the title's")
	}
	t.Logf("session: %v, %d requests", s.Elapsed, len(h.Server.Requests()))
}

// TestFiles: the model writes a file in the project, reads it (numbered
// lines in opencode's layout) and edits it, with the permissions
// opencode run gives by default.
func TestFiles(t *testing.T) {
	repo := newRepo(t)
	h := New(t, repo)
	notes := filepath.Join(repo, "notes.txt")
	s := h.Run("Keep notes.", func(a *Turns) {
		a.Write(notes, "one\ntwo\n")
		if got := a.Read(notes); !strings.Contains(got, "<content>\n1: one\n2: two\n") {
			a.Failf("read gave %q", got)
		}
		a.Edit(notes, "two", "TWO")
		a.Say("Noted.")
	})
	assert.Equal(t, "Noted.", s.Final)
	b, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "one\nTWO\n", string(b))
	var names []string
	for _, u := range s.Uses {
		names = append(names, u.Name)
	}
	assert.Equal(t, []string{"write", "read", "edit"}, names)
}

// TestTask: the model starts a subagent with the task tool; the
// subagent's conversation, named by its prompt, runs its own script,
// which runs a command and answers; the parent reads the answer. Then the
// parent continues the same subagent with the task_id (a fix round): the
// subagent's script gets the new prompt as a user message after its
// answer, and answers again, in the same child session.
func TestTask(t *testing.T) {
	h := New(t, newRepo(t))
	const subPrompt = "You are the implementer. Run the check and report."
	sub := func(a *Turns) {
		out := a.Bash("echo check-passed")
		more := a.Say("REPORT 1: " + strings.TrimSpace(out))
		if len(more) != 1 || more[0] != "Fix round: report again." {
			a.Failf("the continued subagent got %q", more)
		}
		a.Bash("echo fixed")
		a.Say("REPORT 2")
	}
	s := h.Run("Dispatch the implementer.", func(a *Turns) {
		first := a.Task(Dispatch{Description: "Implement task", Prompt: subPrompt, SubagentType: "general"}, sub)
		if first.Report != "REPORT 1: check-passed" || first.ID == "" || first.State != "completed" {
			a.Failf("first task: %+v", first)
		}
		again := a.Task(Dispatch{Description: "Fix round", Prompt: "Fix round: report again.", SubagentType: "general", TaskID: first.ID}, nil)
		if again.Report != "REPORT 2" || again.ID != first.ID {
			a.Failf("continued task: %+v (first %s)", again, first.ID)
		}
		a.Say("Both reports in.")
	})
	assert.Equal(t, "Both reports in.", s.Final)
	tasks := s.Tasks()
	require.Len(t, tasks, 1, "the continuation runs in the first task's session")

	// The parent's stream has only its own calls; the export has the
	// subagent's.
	x := h.Export(tasks[0])
	var cmds []string
	for _, u := range x.Uses() {
		require.Equal(t, "completed", u.Status, "%s %s: %s", u.Name, u.Input, u.Error)
		code, _ := u.Exit()
		assert.Equal(t, 0, code, u.Command())
		cmds = append(cmds, u.Command())
	}
	assert.Equal(t, []string{"echo check-passed", "echo fixed"}, cmds)
	assert.Equal(t, []string{"REPORT 1: check-passed", "REPORT 2"}, x.Texts())

	var subTools []string
	for _, r := range h.Server.Requests() {
		if r.Prompt == subPrompt {
			subTools = r.ToolNames()
		}
	}
	assert.NotContains(t, subTools, "task", "a subagent cannot start one")
}

// TestSkill: a skill in ~/.config/opencode/skills/x/SKILL.md is listed
// to the model and loaded with the skill tool, which hands over its body
// and its directory; a file there can be read, and a script there run by
// its path (both outside the project, which opencode otherwise refuses).
func TestSkill(t *testing.T) {
	h := New(t, newRepo(t))
	dir := filepath.Join(h.ConfigDir(), "skills", "x")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	skill := "---\nname: x\ndescription: The x skill, for the host tests.\n---\n\n# X\n\nRun helper.sh beside this file.\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helper.sh"), []byte("echo helper-ran\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("the notes\n"), 0o644))

	s := h.Run("Use the x skill.", func(a *Turns) {
		sk := a.Skill("x")
		if sk.Name != "x" || sk.Dir != dir || !strings.Contains(sk.Content, "Run helper.sh beside this file.") {
			a.Failf("the skill tool gave name %q, dir %q:\n%s", sk.Name, sk.Dir, sk.Content)
		}
		if notes := a.Read(sk.Dir + "/notes.md"); !strings.Contains(notes, "1: the notes") {
			a.Failf("read of the skill's notes: %q", notes)
		}
		if out := a.Bash("sh '" + sk.Dir + "/helper.sh'"); out != "helper-ran\n" {
			a.Failf("the skill's helper: %q", out)
		}
		a.Say("The x skill is in " + sk.Dir + ".")
	})
	assert.Equal(t, "The x skill is in "+dir+".", s.Final)
	first := h.Server.Requests()
	listed := false
	for _, r := range first {
		listed = listed || (r.Scripted && r.HasText("<location>"+filepath.Join(dir, "SKILL.md")+"</location>"))
	}
	assert.True(t, listed, "the system prompt lists the skill with its SKILL.md")
}

// TestOutsideTheProjectEndsTheRun: a command naming a path outside the
// project (and outside every skill's directory) asks for the
// external_directory permission, which opencode run refuses on the
// user's behalf; the refusal ends the run at once, in the middle of the
// step, with exit status 0. What the skill runs must stay inside the
// repository or a skill's directory.
func TestOutsideTheProjectEndsTheRun(t *testing.T) {
	h := New(t, newRepo(t))
	h.AllowError = func(u ToolUse) bool { return u.Name == "bash" }
	s := h.Run("Read the host name.", func(a *Turns) {
		a.Bash("cat /etc/hostname")
		a.Say("never said")
	})
	require.Len(t, s.Uses, 1)
	assert.Equal(t, "error", s.Uses[0].Status)
	assert.Contains(t, s.Uses[0].Error, "rejected permission")
	assert.Contains(t, s.Stderr, "permission requested: external_directory (/etc/*); auto-rejecting")
	assert.Equal(t, "tool-calls", s.Reason)
	assert.NoError(t, s.Err)
	scripted := 0
	for _, r := range h.Server.Requests() {
		if r.Scripted {
			scripted++
		}
	}
	assert.Equal(t, 1, scripted, "no request after the refusal")
}
