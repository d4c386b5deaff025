package droidhost

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The follower (internal/dev/follower) over Droid's tools
// (harness.Adapter), 0.225.2:
//
//	Bash   Execute{command, riskLevelReason, riskLevel}: the output and
//	       "[Process exited with code N]" (ParseShell)
//	Read   Read{file_path, offset, limit}: the lines as they are; a read
//	       cut at 60,000 characters ends in the middle of the line its
//	       note names last, and is read on from that line until the range
//	       is whole (ParseRead)
//	Write  Create{file_path, content}
//	Skill  Skill{skill}: the body, and SKILL.md's path, whose folder is
//	       the skill's (ParseSkill)
//	Agent  Task{subagent_type: worker, description, prompt, await: true}:
//	       the subagent's session id and report (ParseTask); a fix round
//	       that continues the implementer is Task with resume, its
//	       session id

// SubagentType is the agent every dispatch must run: Droid's built-in
// worker, "general-purpose read/write". The dispatch takes the one
// host-droid.md names (AgentCall.Type); the tests check it is this one.
const SubagentType = "worker"

// adapter is Droid as the shared scenarios drive it (harness.Host): the
// value droid, whose Agent and Agents are harness.Tasks' (a zero adapter
// has none).
type adapter struct {
	harness.Tasks[Dispatch, Task, Turns]
}

// Host is Droid: its file of the skill is host-droid.md.
func (adapter) Host() string { return "droid" }

func (adapter) Facts() harness.Facts {
	return harness.Facts{
		Parallel:  true,
		Model:     Model,
		AgentIDs:  true,
		Continues: true,
		Reads:     harness.Pieces,
		Dispatch:  harness.Dispatch{Call: "Task", Field: "subagent_type", Agent: SubagentType},
		Calls: map[string]*regexp.Regexp{"Bash": harness.OneCall("Execute"), "Read": harness.SomeCalls("Read"),
			"Skill": harness.OneCall("Skill"), "Agent": harness.OneCall("Task")},
		Resumes: resumeStates,
	}
}

// resumeStates are the states Droid resumes from: a fix round's second
// implementer found from the disk (an implementer of an earlier session:
// a new one), and a task blocked after five rounds (three continuing the
// implementer with Task's resume, then new ones). A request costs Droid
// about 0.4 s, and its sessions side by side contend for the CPU: with
// harness.FewResumes the suite's scenarios took 151 s under load (the
// final review's fix 99 s, the rebased branch 28 to 60 s), which add
// nothing Droid could do otherwise. Which row Look gives, and the steps
// the text takes from it, do not depend on the host: the direct executor
// of internal/dev/skilltext resumes from every state.
var resumeStates = []string{"refix", "blocked"}

// Start makes a host for repo with the skill installed (its allowlist
// among the install), its sessions run as a user runs Droid headless for
// the skill: droid exec --auto high, the subagents at medium.
func (adapter) Start(t *testing.T, repo string, _ follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	h.Timeout = 5 * time.Minute
	dir := h.InstallSkill()
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played { return h.Run(prompt, s).Played })
}

// Bash runs the command with Execute. A command that stages and commits
// in one (the follower's implementers commit so) is two Executes, the
// git add and then the git commit, as Droid asks: Droid-Shield, which
// scans what a commit adds, refuses the two in one call ("Droid-Shield
// cannot scan a commit whose index or base may change earlier in the
// same command. Stage changes in a separate Execute call, then
// commit.").
func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	commands := []string{command}
	if m := stageAndCommitRe.FindStringSubmatch(command); m != nil {
		commands = m[1:]
	}
	var out strings.Builder
	for _, c := range commands {
		sh := (&Turns{a}).Execute(c, Risk)
		if sh.Error != "" {
			return follower.Result{Text: out.String() + sh.Error, IsError: true}
		}
		out.WriteString(sh.Output)
		if sh.Code != 0 {
			return follower.Result{Text: out.String(), IsError: true}
		}
	}
	return follower.Result{Text: out.String()}
}

// stageAndCommitRe is a command that stages files and commits them.
var stageAndCommitRe = regexp.MustCompile(`^(git add [^&|;]*) && (git commit [^&|;]*)$`)

// Read reads lines offset.. (1 when 0) of path, limit of them (0: to the
// end), in as many Read calls as the tool's cuts need: a read cut at
// 60,000 characters is read on from the line it cut, a whole read the
// tool stopped at its 2400 lines from the line after. The follower is
// shown the lines read, numbered.
func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	t := &Turns{a}
	from := max(offset, 1)
	to := 0
	if limit > 0 {
		to = from + limit - 1
	}
	var lines []string
	for {
		n := 0
		if to > 0 {
			n = to - from + 1
		}
		o := from
		if offset == 0 && from == 1 {
			o = 0
		}
		r := t.ReadFile(path, o, n)
		if r.Error != "" {
			return follower.Result{Text: r.Error, IsError: true}
		}
		part := strings.Split(r.Content, "\n")
		switch {
		case r.Cut:
			// Its last line, r.To, is cut: keep the lines before it.
			if r.To <= from {
				return follower.Result{Text: fmt.Sprintf("line %d of %s is longer than a Read shows", r.To, path), IsError: true}
			}
			lines = append(lines, part[:r.To-from]...)
			from = r.To
		case r.To > 0 && r.To < r.Total && (to == 0 || r.To < to):
			lines = append(lines, part...)
			from = r.To + 1
		default:
			lines = append(lines, part...)
			return follower.Result{Text: harness.NumberedLines(lines, max(offset, 1))}
		}
	}
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	r := (&Turns{a}).Create(path, content)
	return follower.Result{Text: r.Text, IsError: strings.HasPrefix(r.Text, errorPrefix)}
}

// Skill activates the skill with the Skill tool and hands over its body
// after the line that names its folder, as the follower reads a skill.
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	sk := (&Turns{a}).ActivateSkill(name)
	if sk.Error != "" {
		return follower.Result{Text: "the Skill tool handed over no skill: " + sk.Error, IsError: true}
	}
	return follower.Result{Text: follower.BaseDirPrefix + filepath.Dir(sk.Path) + "\n\n" + sk.Body + "\n"}
}

// droid is the adapter, its dispatches Task calls (harness.Tasks):
// Agent runs the follower's subagent with Task, awaited, as Droid's
// worker, on the session's model (the text's tiers name none here), and
// returns its session id and report; or sends the prompt to the subagent
// c.Continue names (Task's resume) and returns that answer (a fix round),
// as host-droid.md says. Agents dispatches the follower's subagents
// together: several Task calls in one message, which Droid runs at once
// (host-droid.md, side by side).
var droid = adapter{harness.Tasks[Dispatch, Task, Turns]{Dispatch: dispatch, One: (*Turns).Task, Several: (*Turns).Tasks, Answer: answer}}

// dispatch is c as a Task call.
func dispatch(c follower.AgentCall) Dispatch {
	return Dispatch{SubagentType: c.Type, Description: c.Description, Prompt: c.Prompt, Resume: c.Continue}
}

// answer is what c's Task gave the follower; the test fails on a Task
// that failed.
func answer(a *scripted.Turns, c follower.AgentCall, tk Task) follower.AgentResult {
	if tk.Error != "" {
		a.Failf("%s: %s", c.Description, scripted.Clip(tk.Error, 500))
	}
	return follower.AgentResult{ID: tk.ID, Reply: strings.TrimSpace(tk.Report)}
}
