package opencodehost

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The follower (internal/dev/follower) over OpenCode's tools
// (harness.Adapter). Each follower call is the one OpenCode call that
// does the same, and hands back what that call showed, in the layout the
// follower reads where OpenCode's differs (read, skill):
//
//	Bash   bash{command}: the raw output; OpenCode tells the model no exit status
//	Read   read{filePath, offset, limit}: lines, 1-indexed, as Claude Code's
//	Write  write{filePath, content}
//	Skill  skill{name}: the body and "Base directory for this skill: DIR"
//	Agent  task{description, prompt, subagent_type}: always in the foreground;
//	       task_id too to continue the implementer (a fix round)

// SubagentType is the agent every dispatch must run (the dispatch takes
// the one host-opencode.md names, AgentCall.Type; the tests check it is
// this one): OpenCode's built-in
// general subagent, the one that may edit files and run commands (Claude
// Code's general-purpose).
const SubagentType = "general"

// adapter is OpenCode as the shared scenarios drive it (harness.Host): the
// value opencode, whose Agent and Agents are harness.Tasks' (a zero adapter
// has none).
type adapter struct {
	harness.Tasks[Dispatch, Task, Turns]
}

// Host is OpenCode: its file of the skill is host-opencode.md.
func (adapter) Host() string { return "opencode" }

func (adapter) Facts() harness.Facts {
	return harness.Facts{
		Model:     Model,
		AgentIDs:  true,
		Continues: true,
		Reads:     harness.GoesOn,
		Dispatch:  harness.Dispatch{Call: "task", Field: "subagent_type", Agent: SubagentType},
		Parallel:  true,
		Calls:     harness.OneCallEach("bash", "read", "skill", "task"),
		Resumes:   resumeStates,
	}
}

// resumeStates are the states OpenCode resumes from: a fix round's second
// implementer found from the disk. Its sessions are the slowest of the
// hosts (a resume 4 to 5 minutes here): the blocked state's five rounds
// passed its 5-minute session limit, and each state adds minutes to CI.
var resumeStates = []string{"refix"}

// Start makes a host for repo with the skill installed, its sessions run
// with OpenCode's default permissions: what `opencode run` allows unasked
// (every tool in the project, and reads in a skill's directory) and
// nothing more.
func (adapter) Start(t *testing.T, repo string, _ follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	// A session's limit is for a session that hangs: beside the Windows
	// suite and two other host suites (CI), the walk-through's passed 5
	// minutes where alone it takes one.
	h.Timeout = 10 * time.Minute
	dir := h.InstallSkill()
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played {
		return h.Run(prompt, scripted.As[Turns](s)).Played
	})
}

// Bash runs the command with the bash tool in the session's directory.
// OpenCode shows the model the output alone (stdout and stderr as they
// came, "(no output)" for none): no exit status, no mark of a failure,
// so IsError is never set; a failed call (a refused permission) ends the
// run, and Host.Run fails the test on it. The skill's commands print
// their verdict and their reason on stderr, which is what the model has.
func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	return follower.Result{Text: (&Turns{a}).Bash(command)}
}

// Read reads with the read tool. Its offset and limit are the follower's
// (lines; offset 1-indexed; limit 2000 when unset), so they pass as they
// are. What comes back is given to the follower in the layout it reads
// (claudeLayout).
func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	out := a.Call("read", scripted.DropUnset(map[string]any{"filePath": path, "offset": offset, "limit": limit})).Text
	r := follower.Result{Text: claudeLayout(out)}
	if m := readOnRe.FindStringSubmatch(out); m != nil {
		r.Next, _ = strconv.Atoi(m[1])
	}
	return r
}

// readOnRe is the note of a read that stopped before the file's end, at
// its line limit or at 50 KB: "(… Use offset=K to continue.)".
var readOnRe = regexp.MustCompile(`Use offset=(\d+) to continue`)

var (
	readLineRe = regexp.MustCompile(`^(\d+): (.*)$`)
	readEOFRe  = regexp.MustCompile(`^\(End of file - total (\d+) lines\)$`)
)

// claudeLayout is a read tool's result in the layout of Claude Code's
// Read, which the follower reads (follower.FileLines). OpenCode shows
//
//	<path>P</path>
//	<type>file</type>
//	<content>
//	1: first line
//	…
//	(End of file - total N lines)
//	</content>
//
// ("(Showing lines A-B of N. Use offset=K to continue.)" for a part,
// "(Output capped at 50 KB. …)" for a read cut at 50 KB, lines over 2000
// characters cut). Each "K: text" becomes "K<tab>text", everything else
// stays as it is, and a read that reached the end of the file gets, after
// its last line, the empty last line Claude Code shows for a file that
// ends in a newline: OpenCode's count leaves that empty rest out, so its
// model cannot tell whether the last line ends in a newline. Every file a
// run reads does (the commands and the subagents write them), and a file
// that did not would make the follower's byte count of a package one too
// many: a failure, not a pass. Anything that is not a file's content (a
// refusal, "File not found: …") comes back as it is.
func claudeLayout(out string) string {
	head, rest, ok := strings.Cut(out, "<content>\n")
	if !ok {
		return out
	}
	lines := strings.Split(rest, "\n")
	var b strings.Builder
	b.WriteString(head + "<content>\n")
	in := true
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		if l == "</content>" {
			in = false
		}
		if m := readLineRe.FindStringSubmatch(l); in && m != nil {
			b.WriteString(m[1] + "\t" + m[2])
			continue
		}
		if m := readEOFRe.FindStringSubmatch(l); in && m != nil {
			if n, _ := strconv.Atoi(m[1]); n > 0 {
				fmt.Fprintf(&b, "%d\t\n", n+1)
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	return follower.Result{Text: a.Call("write", map[string]any{"filePath": path, "content": content}).Text}
}

// Skill loads the skill with the skill tool. OpenCode hands over the body
// first and the directory after it:
//
//	<skill_content name="NAME">
//	# Skill: NAME
//
//	BODY
//
//	Base directory for this skill: DIR
//	Relative paths in this skill (…) are relative to this base directory.
//	…
//
// so the follower gets them in Claude Code's order, "Base directory for
// this skill: DIR", a blank line, BODY. Without either, the result is an
// error with OpenCode's text.
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	sk := (&Turns{a}).Skill(name)
	body, ok := skillBody(sk)
	if !ok || sk.Dir == "" {
		return follower.Result{Text: "the skill tool handed over no skill text: " + sk.Content, IsError: true}
	}
	return follower.Result{Text: follower.BaseDirPrefix + sk.Dir + "\n\n" + body}
}

// skillBody is the body of SKILL.md in the skill tool's result: after
// "# Skill: NAME" and before the base directory's line.
func skillBody(sk Skill) (string, bool) {
	_, rest, ok := strings.Cut(sk.Content, "# Skill: "+sk.Name+"\n")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, "\n"+follower.BaseDirPrefix)
	if i < 0 {
		return "", false
	}
	return strings.TrimLeft(rest[:i], "\n"), true
}

// opencode is the adapter, its dispatches task calls (harness.Tasks).
// Agent dispatches the follower's subagent for the prompt with the task
// tool, as OpenCode's general subagent, and returns the child session's
// id (the task_id) and its final text. The task tool has no model: a
// subagent runs on its agent's model, else the parent's, so the model the
// follower names (haiku, sonnet, opus: the text's tiers) is not passed.
// Nor is Background: task runs in the foreground (its background mode is
// experimental in 1.18.33), which the text asks for anyway.
//
// A call that continues a subagent (c.Continue, a fix round) is a task
// call with its task_id: the prompt is the child session's next user
// message, and its conversation's script goes on.
//
// Agents dispatches the follower's subagents together: several task
// calls in one message, which OpenCode runs at once (host-opencode.md,
// side by side).
var opencode = adapter{harness.Tasks[Dispatch, Task, Turns]{Dispatch: dispatch, One: (*Turns).Task, Several: (*Turns).Tasks, Answer: answer}}

// dispatch is c as a task call.
func dispatch(c follower.AgentCall) Dispatch {
	return Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: c.Type, TaskID: c.Continue}
}

// answer is what c's task gave the follower; the test fails on a task
// that did not complete.
func answer(a *scripted.Turns, c follower.AgentCall, tk Task) follower.AgentResult {
	if tk.State != "completed" {
		a.Failf("%s ended %q: %q", c.Description, tk.State, scripted.Clip(tk.Result.Text, 300))
	}
	return follower.AgentResult{ID: tk.ID, Reply: strings.TrimSpace(tk.Report)}
}
