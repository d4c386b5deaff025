package droidhost

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The round trips the skill needs, side by side, each a real `droid exec` session of
// the pinned CLI against the scripted model, on a host of its own
// (newRoundTrip); the package's doc says what they found.

// newRoundTrip is a host whose HOME holds a space and an é
// (harness.Machine.RoundTripHome), with the user's settings (the
// scripted model), in a repository with one commit.
func newRoundTrip(t *testing.T) *Host {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("start", "README.md", "a project\n")
	h := New(t, repo.Root)
	require.NoError(t, h.RoundTripHome())
	require.NoError(t, h.WriteSettings())
	return h
}

// roundTrip runs a session of prompt at the host's autonomy, script its
// model, and fails the test on a failed script or an unreadable output
// (harness.Events.RoundTrip); how the process ended and the session's
// problems are the test's to read.
func roundTrip(t *testing.T, h *Host, prompt string, script Script) *Session {
	t.Helper()
	t.Logf("--auto %s", h.Auto)
	return events.RoundTrip(t, h.Machine, prompt, script.Play(), h.Env(), h.Droid, Args(prompt, h.Auto)...)
}

// ok is roundTrip of a session that must end well.
func ok(t *testing.T, h *Host, prompt string, script Script) *Session {
	t.Helper()
	s := roundTrip(t, h, prompt, script)
	require.NoError(t, s.Err, "stderr:\n%s", s.Stderr)
	return s
}

// A command's result is its output, stdout and stderr together, and
// "[Process exited with code N]"; a failure starts with "Error: Command
// failed", and the events mark it an error; no output reads "Command
// completed successfully". Each command is a shell of its own in the
// session's folder. Execute refuses a call without riskLevelReason.
func TestExecute(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	const prompt = "Run a few commands."
	s := ok(t, h, prompt, func(m *Turns) {
		for _, c := range harness.ShellCases(h.Repo) {
			if got, want := m.Execute(c.Command, "low"), (Shell{Output: c.Output, Code: c.Code}); got != want {
				m.Failf("%s: %+v, want %+v", c.Command, got, want)
			}
		}
		r := m.Call("Execute", map[string]any{"command": "echo hi", "riskLevel": "low"})
		if !strings.HasPrefix(r.Text, `Error: Execute call rejected: missing required parameter "riskLevelReason"`) {
			m.Failf("without a reason: %q", r.Text)
		}
		m.Say("Done.")
	})
	assert.Equal(t, "Done.", s.Final)
	assert.Len(t, Problems(s.Events), 2, "the failing command and the call without a reason")
}

// toolsAt are the tools a session at autonomy auto is offered.
func toolsAt(t *testing.T, auto string) []string {
	h := newRoundTrip(t)
	h.Auto = auto
	const prompt = "What can you do?"
	ok(t, h, prompt, func(m *Turns) { m.Say("Little.") })
	return h.Server.Conversation(prompt)[0].ToolNames()
}

// droid exec offers Task, the one tool that dispatches a subagent, only
// with --auto high; Edit and Create from --auto low; with no --auto, the
// read tools, Execute and Skill.
func TestTaskOnlyAtAutoHigh(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		auto      string
		task, has bool
	}{{"low", false, true}, {"medium", false, true}, {"high", true, true}} {
		t.Run(c.auto, func(t *testing.T) {
			t.Parallel()
			tools := toolsAt(t, c.auto)
			t.Logf("--auto %s: %v", c.auto, tools)
			assert.Equal(t, c.task, slicesContains(tools, "Task"))
			assert.True(t, slicesContains(tools, "Create") && slicesContains(tools, "Edit") && slicesContains(tools, "Skill"))
		})
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// The install's commandAllowlist lets the four commands run at any
// autonomy, whatever risk the model gives them, alone or in a && chain
// of them, in the form host-droid.md writes; another command the
// session's autonomy does not cover ends the whole run: exit 1, "Exec
// ended early: insufficient permission to proceed", the model told
// nothing.
func TestAllowlistAtLowAutonomy(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	dir := h.InstallSkill()
	h.Auto = "low"
	cmd := func(c string) string { return "'" + dir + "/bin/" + c + "' --version" }
	const prompt = "Run the skill's commands."
	s := roundTrip(t, h, prompt, func(m *Turns) {
		for _, c := range []string{cmd("sdd-ledger"), cmd("sdd-workspace") + " && " + cmd("task-brief")} {
			if sh := m.Execute(c, "high"); sh.Error != "" || sh.Code != 0 {
				m.Failf("%s: %+v", c, sh)
			}
		}
		m.Execute("touch outside-the-allowlist", "high")
		m.Say("Not reached.")
	})
	require.Error(t, s.Err, "the run ends")
	assert.NotContains(t, s.Final, "Not reached.")
	var ended bool
	for _, e := range s.Events {
		ended = ended || e.Type == "error" && strings.Contains(e.Message, "Exec ended early: insufficient permission to proceed")
	}
	assert.True(t, ended, "an error event says why")
	assert.NoFileExists(t, filepath.Join(h.Repo, "outside-the-allowlist"))
	reqs := h.Server.Conversation(prompt)
	require.Len(t, reqs, 3, "no request after the refused call: its result never reached the model")
	assert.Contains(t, string(reqs[2].Answer.Call.Input), "touch outside-the-allowlist")
}

// A Task with await returns the subagent's session id and its last text;
// its conversation starts with Droid's system reminders and the prompt
// wrapped in a "# Task Tool Invocation"; it runs on the session's model
// with Droid's tools but Task. Task with resume and that id continues it:
// the prompt comes as its next message, in "# Follow-up Instructions",
// after its history. Droid-Shield refuses a command that stages and
// commits at once; the two in separate calls commit.
func TestTaskResume(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	const prompt = "Dispatch and continue."
	const task = "Commit a file."
	require.NoError(t, os.WriteFile(filepath.Join(h.Repo, "f.txt"), []byte("f\n"), 0o644))
	sub := func(m *Turns) {
		both := m.Execute("git add f.txt && git commit -m f", Risk)
		m.Execute("git add f.txt", Risk)
		commit := m.Execute("git commit -m f", Risk)
		m.Record("shield", both.Error)
		m.Say("committed: " + strings.SplitN(commit.Output, "\n", 2)[0])
		m.Say("the second: " + m.Execute("git log --format=%s", Risk).Output)
	}
	s := ok(t, h, prompt, func(m *Turns) {
		first := m.Task(Dispatch{SubagentType: SubagentType, Description: "commit", Prompt: task}, sub)
		if first.Error != "" || first.ID == "" {
			m.Failf("the dispatch: %+v", first)
		}
		again := m.Task(Dispatch{SubagentType: SubagentType, Description: "again", Prompt: "And now?", Resume: first.ID}, nil)
		if again.ID != first.ID || strings.TrimSpace(again.Report) != "the second: f\nstart" {
			m.Failf("the continued dispatch: %+v", again)
		}
		m.Say("Done.")
	})
	assert.Equal(t, "Done.", s.Final)
	assert.Contains(t, h.Server.Records()["shield"], "Droid-Shield cannot scan a commit whose index or base may change earlier in the same command")
	subs := h.Server.Conversation(task)
	require.NotEmpty(t, subs)
	last := subs[len(subs)-1]
	assert.Equal(t, Model, last.Model)
	assert.NotContains(t, last.ToolNames(), "Task")
	assert.Contains(t, last.ToolNames(), "Execute")
	user := last.Texts("user")
	require.GreaterOrEqual(t, len(user), 2)
	assert.True(t, strings.HasPrefix(user[len(user)-2], "# Task Tool Invocation\n"), user[len(user)-2])
	assert.Contains(t, user[len(user)-1], "# Follow-up Instructions\n\nAnd now?\n\n## Reporting")
}

// Read gives the lines as they are, at most 2400 and 60,000 characters;
// a read given an offset or a limit, or cut, ends with a note, and a cut
// one ends in the middle of the last line the note names.
func TestReadCut(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString(strconv.Itoa(i) + strings.Repeat("x", 40) + "\n")
	}
	big := filepath.Join(h.Repo, "big.txt")
	require.NoError(t, os.WriteFile(big, []byte(b.String()), 0o644))
	const prompt = "Read big.txt."
	ok(t, h, prompt, func(m *Turns) {
		whole := m.ReadFile(big, 0, 0)
		part := m.ReadFile(big, 2990, 20)
		lines := strings.Split(whole.Content, "\n")
		m.Record("reads", strings.Join([]string{strconv.Itoa(whole.From), strconv.Itoa(whole.To), strconv.Itoa(whole.Total),
			strconv.FormatBool(whole.Cut), strconv.Itoa(len(lines)), lines[len(lines)-1], strconv.Itoa(len(whole.Content)),
			strconv.Itoa(part.From), strconv.Itoa(part.To), strconv.FormatBool(part.Cut)}, " "))
		m.Say("Done.")
	})
	f := strings.Fields(h.Server.Records()["reads"])
	t.Logf("a whole read: lines %s-%s of %s, cut %s, %s lines, the last %q, %s characters; a part: %s-%s, cut %s", f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9])
	assert.Equal(t, []string{"1", "3001", "true"}, []string{f[0], f[2], f[3]})
	assert.Equal(t, f[1], f[4], "the note names the line it cut as its last")
	assert.Regexp(t, regexp.MustCompile(`^`+f[1]+`x*$`), f[5])
	assert.Less(t, len(f[5]), len(f[1])+40, "that line is cut")
	assert.Equal(t, []string{"2990", "3001", "false"}, f[7:])
}

// A skill of ~/.factory/skills/ or ~/.agents/skills/ is listed in a
// system reminder of the first user message, among Droid's built-in
// skills; the Skill tool hands over its body and its SKILL.md's path.
// A name in both folders is listed once.
func TestSkill(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	for _, c := range [][2]string{{"x", ".factory/skills"}, {"y", ".agents/skills"}, {"z", ".factory/skills"}, {"z", ".agents/skills"}} {
		p := filepath.Join(h.Home, c[1], c[0], "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: "+c[0]+"\ndescription: the "+c[0]+" skill, from "+c[1]+"\nallowed-tools: Execute\n---\n# "+c[0]+"\n"), 0o644))
	}
	const prompt = "Use the x skill."
	ok(t, h, prompt, func(m *Turns) {
		sk := m.ActivateSkill("x")
		if sk.Body != "# x" || sk.Path != filepath.Join(h.Home, ".factory/skills/x/SKILL.md") {
			m.Failf("the skill: %+v", sk)
		}
		m.Say("Done.")
	})
	var listing string
	for _, text := range h.Server.Conversation(prompt)[0].Texts("user") {
		if strings.Contains(text, "Available skills") {
			listing = text
		}
	}
	for _, want := range []string{"x: the x skill, from .factory/skills", "y: the y skill, from .agents/skills"} {
		assert.Contains(t, listing, want)
	}
	assert.Equal(t, 1, strings.Count(listing, "\nz: "), "z is listed once")
}
