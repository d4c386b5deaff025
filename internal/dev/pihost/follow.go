package pihost

import (
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The follower (internal/dev/follower) over Pi's tools (harness.Adapter),
// 0.73.1:
//
//	Bash   bash{command}: the output, "Command exited with code N" after
//	       it when N is not 0 (ParseShell)
//	Read   read{path, offset, limit}: the lines as they are; a read the
//	       tool stopped at 50 KB or 2000 lines names the offset it goes on
//	       from (ParseRead), which the reader takes
//	Write  write{path, content}
//	Skill  the read of the SKILL.md <available_skills> lists for the name
//	       (Pi has no skill tool), handed over as "Base directory for this
//	       skill: <dir>" and the body after the front matter
//	Agent  subagent{agent: sdd-worker, task}, the subagent extension's
//	       tool: the agent's last text, no id (the ledger records none);
//	       its pi process ends with it, so a fix round is a new agent

// Agent is the agent every dispatch must run: the one the installer puts
// in ~/.pi/agent/agents/ for the subagent extension, with Pi's default
// tools and model. The dispatch takes the one host-pi.md names
// (AgentCall.Type); the tests check it is this one.
const Agent = "sdd-worker"

// adapter is Pi as the shared scenarios drive it (harness.Host).
type adapter struct{}

// Host is Pi: its file of the skill is host-pi.md.
func (adapter) Host() string { return "pi" }

func (adapter) Facts() harness.Facts {
	return harness.Facts{
		Parallel: true,
		Model:    Model,
		Reads:    harness.GoesOn,
		Dispatch: harness.Dispatch{Call: "subagent", Field: "agent", Agent: Agent},
		Calls:    harness.OneCallEach("bash", "read", "read", "subagent"),
		Resumes:  resumeStates,
	}
}

// resumeStates are the states Pi resumes from: a fix round's second
// implementer found from the disk (a new agent, as every fix round is
// here), and a branch rebased under the run. Every dispatch starts a pi
// process of its own (about 2 s before its first request, its extension
// compiled again), so the blocked state's five rounds took 157 s and the
// final review's fix 119 s alone. Which row Look gives, and the steps
// the text takes from it, do not depend on the host: the direct executor
// of internal/dev/skilltext resumes from every state.
var resumeStates = []string{"refix", "rewritten: the branch rebased under the run"}

// Start makes a host for repo with the skill, the subagent extension and
// its agent installed, its sessions run as Pi runs headless: no
// permission asked for any tool.
func (adapter) Start(t *testing.T, repo string, _ follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	h.Timeout = 5 * time.Minute
	dir := h.InstallSkill()
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played { return h.Run(prompt, s).Played })
}

func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	sh := (&Turns{a}).Bash(command)
	return follower.Result{Text: sh.Output, IsError: sh.Code != 0}
}

// Read reads with the read tool, whose offset and limit are the
// follower's, and shows the follower the lines read, numbered. A read
// the tool stopped short of limit (its 50 KB or 2000 lines) says where
// the file goes on (Next); a whole read (limit 0) the tool stopped is
// read on to the end, as a model reads a file it was told to read whole.
func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	t := &Turns{a}
	from := max(offset, 1)
	var lines []string
	for {
		r := t.ReadFile(path, from, limit)
		if r.Error != "" {
			return follower.Result{Text: r.Error, IsError: true}
		}
		lines = append(lines, strings.Split(r.Content, "\n")...)
		switch {
		case limit == 0 && r.Next > from:
			from = r.Next
			continue
		case r.Short:
			return follower.Result{Text: harness.NumberedLines(lines, max(offset, 1)), Next: r.Next}
		}
		return follower.Result{Text: harness.NumberedLines(lines, max(offset, 1))}
	}
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	r := (&Turns{a}).Write(path, content)
	return follower.Result{Text: r.Text, IsError: !strings.HasPrefix(r.Text, "Successfully wrote ")}
}

// Skill reads the SKILL.md the system prompt lists under name, as a Pi
// model does, and hands over what Claude Code's Skill tool would: the
// skill's folder and the body after the front matter.
func (ad adapter) Skill(a *scripted.Turns, name string) follower.Result {
	return harness.ReadSkill((&Turns{a}).Skills(), name, "the system prompt", func(path string) (string, follower.Result, bool) {
		r := ad.Read(a, path, 0, 0)
		return follower.FileText(r.Text), r, !r.IsError
	})
}

// Agents dispatches the follower's subagents together: several
// subagent calls in one message, which Pi runs at once (host-pi.md, side
// by side).
func (adapter) Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult {
	for _, c := range cs {
		if c.Type != cs[0].Type {
			a.Failf("%s: only dispatches of one agent go together", c.Description)
		}
	}
	task := func(c follower.AgentCall) string { return c.Prompt }
	send := func(tasks []string, scripts []Script) []Subagent {
		return (&Turns{a}).Dispatches(cs[0].Type, tasks, scripts)
	}
	return harness.Together(a, cs, subs, task, send, answer)
}

// Agent runs the follower's subagent with the subagent tool as the agent
// host-pi.md names, on Pi's default model (the text's tiers name none
// here), and returns its last text. Pi cannot give a finished agent a
// new message: its pi process ended with its answer.
func (adapter) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	if c.Continue != "" {
		a.Failf("%s: Pi cannot continue the agent %s: its pi process has ended", c.Description, c.Continue)
	}
	return answer(a, c, (&Turns{a}).Dispatch(c.Type, c.Prompt, scripted.As[Turns](sub)))
}

// answer is what c's subagent call gave the follower; the test fails on
// a call that failed.
func answer(a *scripted.Turns, c follower.AgentCall, s Subagent) follower.AgentResult {
	if s.Error != "" {
		a.Failf("%s: %s", c.Description, scripted.Clip(s.Error, 500))
	}
	return follower.AgentResult{Reply: strings.TrimSpace(s.Answer)}
}
