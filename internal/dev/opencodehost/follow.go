package opencodehost

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// The follower (internal/dev/follower) over OpenCode's tools, as
// internal/dev/host runs it over Claude Code's. The follower's Tools are
// Claude Code's; each method here makes the one OpenCode call that does
// the same, and hands back what that call showed, in the layout the
// follower reads where OpenCode's differs (read, skill):
//
//	Bash   bash{command}: the raw output; OpenCode tells the model no exit status
//	Read   read{filePath, offset, limit}: lines, 1-indexed, as Claude Code's
//	Write  write{filePath, content}
//	Skill  skill{name}: the body and "Base directory for this skill: DIR"
//	Agent  task{description, prompt, subagent_type}: always in the foreground
//
// The follower's dispatches start its subagents as OpenCode's own
// subagents (task), each run by the follower's script for its prompt.

// SkillName is the skill's name in OpenCode: the folder's, with no plugin
// before it (Claude Code's is sdd-go:subagent-driven-development).
const SkillName = ship.SkillName

// SubagentType is the agent every dispatch runs: OpenCode's built-in
// general subagent, the one that may edit files and run commands (Claude
// Code's general-purpose).
const SubagentType = "general"

// Follow is the controller of scenario sc as a session's script.
func Follow(sc follower.Scenario) Script {
	sc = forOpenCode(sc)
	return func(a *Turns) { follower.Controller(sc)(&tools{a: a, sc: sc}) }
}

// FollowKeeping is Follow that copies the plan's workspace (every one
// under repo's .superpowers/sdd) into keep just before the call that runs
// Finish, which deletes it: what a test reads of the ledger and the files
// at the end. The copy is made once: a replay finds it made.
func FollowKeeping(sc follower.Scenario, repo, keep string) Script {
	sc = forOpenCode(sc)
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, repo: repo, keep: keep})
	}
}

// FollowUntil is Follow cut after the controller's first calls tool calls:
// the session then ends its turn, as a controller whose context is lost
// stops, and a later session resumes from what is on disk.
func FollowUntil(sc follower.Scenario, calls int) Script {
	sc = forOpenCode(sc)
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, left: calls, cut: true})
	}
}

// forOpenCode names the skill as OpenCode lists it.
func forOpenCode(sc follower.Scenario) follower.Scenario {
	if sc.Skill == "" {
		sc.Skill = SkillName
	}
	return sc
}

// CutText is what a cut controller says last.
const CutText = "Stopping here: the run is cut."

// tools are the follower's Tools over one replay of a conversation.
type tools struct {
	a    *Turns
	sc   follower.Scenario
	left int // calls before the cut
	cut  bool
	repo string // FollowKeeping's repository and copy
	keep string
}

// call counts one tool call toward the cut; past it the turn ends for
// good.
func (t *tools) call() {
	if !t.cut {
		return
	}
	if t.left == 0 {
		for {
			t.a.Say(CutText)
		}
	}
	t.left--
}

// Bash runs the command with the bash tool in the session's directory.
// OpenCode shows the model the output alone (stdout and stderr as they
// came, "(no output)" for none): no exit status, no mark of a failure,
// so IsError is never set; a failed call (a refused permission) ends the
// run, and Host.Run fails the test on it. The skill's commands print
// their verdict and their reason on stderr, which is what the model has.
func (t *tools) Bash(command string) follower.Result {
	t.call()
	if t.keep != "" && follower.RunsFinish(command) {
		if err := follower.KeepWorkspaces(t.repo, t.keep); err != nil {
			t.a.Failf("%v", err)
		}
	}
	return follower.Result{Text: t.a.Bash(command)}
}

// Read reads with the read tool. Its offset and limit are the follower's
// (lines; offset 1-indexed; limit 2000 when unset), so they pass as they
// are. What comes back is given to the follower in the layout it reads
// (claudeLayout).
func (t *tools) Read(path string, offset, limit int) follower.Result {
	t.call()
	in := map[string]any{"filePath": path}
	if offset > 0 {
		in["offset"] = offset
	}
	if limit > 0 {
		in["limit"] = limit
	}
	out := t.a.Call("read", in).Text
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

func (t *tools) Write(path, content string) follower.Result {
	t.call()
	return follower.Result{Text: t.a.Call("write", map[string]any{"filePath": path, "content": content}).Text}
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
func (t *tools) Skill(name string) follower.Result {
	t.call()
	sk := t.a.Skill(name)
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

// Agent dispatches the follower's subagent for the prompt with the task
// tool, as OpenCode's general subagent, and returns the child session's
// id (the task_id) and its final text. The task tool has no model: a
// subagent runs on its agent's model, else the parent's, so the model the
// follower names (haiku, sonnet, opus: the text's tiers) is not passed.
// Nor is Background: task runs in the foreground (its background mode is
// experimental in 1.18.33), which the text asks for anyway.
func (t *tools) Agent(c follower.AgentCall) follower.AgentResult {
	t.call()
	script, ok := t.sc.Subagent(c.Prompt)
	if !ok {
		t.a.Failf("a dispatch no subagent of the follower answers: %q", scripted.Clip(c.Prompt, 300))
	}
	tk := t.a.Task(Dispatch{Description: c.Description, Prompt: c.Prompt, SubagentType: SubagentType}, t.subagent(script))
	if tk.State != "completed" {
		t.a.Failf("%s ended %q: %q", c.Description, tk.State, scripted.Clip(tk.Result.Text, 300))
	}
	return follower.AgentResult{ID: tk.ID, Reply: strings.TrimSpace(tk.Report)}
}

// subagent is a dispatched subagent's conversation: the follower's script
// for its prompt, its reply said as its final text.
func (t *tools) subagent(first follower.Script) Script {
	sc := t.sc
	return func(a *Turns) {
		reply := first(&tools{a: a, sc: sc})
		for {
			a.Say(reply)
		}
	}
}

func (t *tools) Say(text string) {
	for {
		t.a.Say(text)
	}
}

// Host is OpenCode: its file of the skill is host-opencode.md.
func (t *tools) Host() string { return "opencode" }
