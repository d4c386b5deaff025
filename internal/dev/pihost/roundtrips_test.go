package pihost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The round trips the skill needs, side by side, each a real `pi -p` session of the
// pinned CLI against the scripted model, on a host of its own
// (newRoundTrip); the package's doc says what they found.

// newRoundTrip is a host whose HOME holds a space and an é
// (harness.Machine.RoundTripHome), with the scripted model configured,
// in a repository with one commit.
func newRoundTrip(t *testing.T) *Host {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("start", "README.md", "a project\n")
	h := New(t, repo.Root)
	require.NoError(t, h.RoundTripHome())
	h.AgentDir = filepath.Join(h.Home, ".pi", "agent")
	require.NoError(t, h.WriteModels())
	return h
}

// roundTrip runs a session of prompt, script its model, and fails the
// test on a failed script, an unreadable output (harness.Events.RoundTrip)
// or a failed process; the session's problems (a failed tool, …) are the
// test's to read.
func roundTrip(t *testing.T, h *Host, prompt string, script Script) *Session {
	t.Helper()
	s := events.RoundTrip(t, h.Machine, prompt, script.Play(), h.Env(), h.Pi, Args(prompt)...)
	require.NoError(t, s.Err, "stderr:\n%s", s.Stderr)
	return s
}

// A command's result is its output, stdout and stderr together, with
// "Command exited with code N" after it when N is not 0 (the events mark
// the call an error, the model is told by the text alone), "(no output)"
// for none; each command is a shell of its own in the session's folder,
// with the session's environment (PI_OFFLINE among it).
func TestShell(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	const prompt = "Run a few commands."
	s := roundTrip(t, h, prompt, func(m *Turns) {
		for _, c := range append(harness.ShellCases(h.Repo), harness.ShellCase{Command: `echo "$PI_OFFLINE"`, Output: "1\n"}) {
			if got, want := m.Bash(c.Command), (Shell{Output: c.Output, Code: c.Code}); got != want {
				m.Failf("%s: %+v, want %+v", c.Command, got, want)
			}
		}
		m.Say("Done.")
	})
	assert.Equal(t, "Done.", s.Final)
	assert.Len(t, Problems(s.Events), 1, "the failing command is the one failed tool")
	tools := h.Server.Conversation(prompt)[0].ToolNames()
	assert.Equal(t, []string{"read", "bash", "edit", "write"}, tools)
}

// A skill in ~/.pi/agent/skills/ or ~/.agents/skills/ is listed in the
// system prompt (<available_skills>: name, description, the SKILL.md's
// path), whatever its front matter's allowed-tools; the model reads the
// file with the read tool. A name in both folders is listed once.
func TestSkillListedAndRead(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	write := func(rel, s string) {
		p := filepath.Join(h.Home, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	skill := func(name, where string) {
		write(filepath.Join(where, name, "SKILL.md"), "---\nname: "+name+"\ndescription: the "+name+" skill, from "+where+"\nallowed-tools: Bash(x:*)\n---\n# "+name+"\n")
	}
	skill("x", ".pi/agent/skills")
	skill("y", ".agents/skills")
	skill("z", ".pi/agent/skills")
	skill("z", ".agents/skills")
	const prompt = "Use the x skill."
	roundTrip(t, h, prompt, func(m *Turns) {
		sk, ok := m.Skill("x")
		if !ok {
			m.Failf("x is not listed: %v", m.Skills())
		}
		if r := m.ReadFile(sk.Path, 0, 0); !strings.Contains(r.Content, "# x") {
			m.Failf("read %s: %+v", sk.Path, r)
		}
		m.Say("Done.")
	})
	var names []string
	for _, s := range ParseSkills(h.Server.Conversation(prompt)[0].System[0]) {
		names = append(names, s.Name+" "+strings.TrimPrefix(s.Path, h.Home))
	}
	t.Logf("listed: %v", names)
	assert.Contains(t, names, "x /.pi/agent/skills/x/SKILL.md")
	assert.Contains(t, names, "y /.agents/skills/y/SKILL.md")
	z := 0
	for _, n := range names {
		if strings.HasPrefix(n, "z ") {
			z++
		}
	}
	assert.Equal(t, 1, z, "z is listed once")
}

// read gives at most 2000 lines or 50 KB; a read it cut, or one whose
// limit left lines, names the offset the file goes on from. Its lines
// are not numbered.
func TestReadInParts(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		b.WriteString(strings.Repeat("x", 39) + "\n")
	}
	big := filepath.Join(h.Repo, "big.txt")
	require.NoError(t, os.WriteFile(big, []byte(b.String()), 0o644))
	const prompt = "Read big.txt."
	roundTrip(t, h, prompt, func(m *Turns) {
		whole := m.ReadFile(big, 0, 0)
		part := m.ReadFile(big, 2001, 2000)
		few := m.ReadFile(big, 10, 3)
		last := m.ReadFile(big, 2990, 2000)
		m.Record("reads", strings.Join([]string{
			strings.Join([]string{itoa(len(whole.Content)), itoa(whole.Next), bool01(whole.Short)}, " "),
			strings.Join([]string{itoa(strings.Count(part.Content, "\n")), itoa(part.Next), bool01(part.Short)}, " "),
			strings.Join([]string{few.Content, itoa(few.Next), bool01(few.Short)}, " "),
			strings.Join([]string{itoa(strings.Count(last.Content, "\n")), itoa(last.Next)}, " "),
		}, "|"))
		m.Say("Done.")
	})
	reads := strings.Split(h.Server.Records()["reads"], "|")
	assert.Equal(t, "51199 1281 1", reads[0], "cut at 50 KB: 1280 whole lines")
	assert.Equal(t, "1000 0 0", reads[1], "the rest: 1000 lines, and the empty one after the last newline")
	assert.Equal(t, strings.Repeat("x", 39)+"\n"+strings.Repeat("x", 39)+"\n"+strings.Repeat("x", 39)+" 13 0", reads[2], "a limit that leaves lines: where they go on")
	assert.Equal(t, "11 0", reads[3])
}

func itoa(n int) string { return strconv.Itoa(n) }

func bool01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// The subagent extension the installer copies from Pi's package offers
// the tool subagent (agent and task; tasks and chain besides). A call
// runs the agent in a pi process of its own, whose one message is "Task:
// " and the task, with the agent's body after Pi's system prompt, the
// default tools (the extension's among them) and Pi's default model, and
// returns the agent's last text. The same task again is a new
// conversation: nothing carries over. An agent that does not exist
// fails the call.
func TestSubagent(t *testing.T) {
	t.Parallel()
	h := newRoundTrip(t)
	h.InstallSkill()
	const prompt = "Dispatch a subagent."
	const task = "Say where you are.\nThen stop."
	sub := func(m *Turns) {
		out := m.Bash("pwd")
		m.Say("I am in " + strings.TrimSpace(out.Output) + ".")
	}
	s := roundTrip(t, h, prompt, func(m *Turns) {
		first := m.Dispatch(Agent, task, sub)
		again := m.Dispatch(Agent, task, sub)
		if first.Answer != "I am in "+h.Repo+"." || again != first {
			m.Failf("answers: %+v, %+v", first, again)
		}
		if r := m.Dispatch("no-such-agent", "x", nil); !strings.HasPrefix(r.Error, `Agent failed: Unknown agent: "no-such-agent". Available agents: "`+Agent+`"`) {
			m.Failf("an unknown agent: %+v", r)
		}
		m.Say("Done.")
	})
	assert.Equal(t, "Done.", s.Final)
	tool, ok := h.Server.Conversation(prompt)[0].Tool("subagent")
	require.True(t, ok, "the extension's tool is offered")
	for _, param := range []string{`"agent"`, `"task"`, `"tasks"`, `"chain"`} {
		assert.Contains(t, string(tool.Parameters), param)
	}
	subs := h.Server.Conversation(task)
	require.NotEmpty(t, subs)
	first := subs[0]
	assert.Equal(t, []string{TaskPrefix + task}, first.Texts("user"), "the prompt alone, after Task: ")
	assert.Equal(t, Model, first.Model)
	assert.Contains(t, first.System[0], "You are one subagent of a subagent-driven-development run")
	assert.Equal(t, []string{"read", "bash", "edit", "write", "subagent"}, first.ToolNames())
	starts := 0
	for _, r := range subs {
		if len(r.Calls()) == 0 {
			starts++
		}
	}
	assert.Equal(t, 2, starts, "the second dispatch began the conversation again")
}
