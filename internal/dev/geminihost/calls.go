package geminihost

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The calls of the CLI's own tools, as a script makes them over its
// conversation (scripted.Turns, the Gemini wire), and what comes back for
// them (0.61.0). A call the CLI did not run comes back as an error:
// "Tool execution denied by policy." for one no rule allows (a tool
// offered only for some arguments), "Path not in workspace: …" for a
// path outside the workspace.

// A Script is a scripted agent in Gemini CLI (scripted.Script), with its
// calls.
type Script = scripted.For[Turns]

// Turns is a script's view of its conversation (scripted.Turns) with
// Gemini CLI's tools as calls.
type Turns struct{ *scripted.Turns }

// Shell is what came back for a run_shell_command call. The CLI wraps
// it:
//
//	<untrusted_context>
//	Output: OUTPUT (stdout and stderr together; "(empty)" for none)
//	[Exit Code: N]              (only when not 0)
//	Process Group PGID: N
//	</untrusted_context>
//
// An answer over 40,000 characters, wrapper included, is cut: a first
// line "Output too large. Showing first 8,000 and last 32,000 characters.
// For full output see: PATH", then its first 8,000 characters,
// "\n\n... [N characters omitted] ...\n\n" and its last 32,000; PATH
// (under ~/.gemini/tmp/<project>/tool-outputs/) holds the whole answer.
type Shell struct {
	Output   string // the command's output; "" for "(empty)"
	ExitCode int
	Saved    string // where the CLI saved the whole output it cut ("" when not cut)
	Error    string // the response's error: the command did not run
}

const (
	shellOpen  = "<untrusted_context>\n"
	shellClose = "\n</untrusted_context>"
	cutPrefix  = "Output too large. "
	savedIn    = "For full output see: "
)

// shellTrailer is a line the CLI adds after a command's output.
var shellTrailer = regexp.MustCompile(`\n(Exit Code|Error|Signal|Background PIDs|Process Group PGID): ([^\n]*)$`)

// ParseShell reads a run_shell_command result.
func ParseShell(r scripted.Result) Shell {
	if r.IsError {
		return Shell{Error: r.Text}
	}
	var s Shell
	text := r.Text
	if head, rest, ok := strings.Cut(text, shellOpen); ok {
		if strings.HasPrefix(head, cutPrefix) {
			if _, p, ok := strings.Cut(head, savedIn); ok {
				s.Saved = strings.TrimSpace(p)
			}
		}
		text = strings.TrimSuffix(rest, shellClose)
	}
	for {
		m := shellTrailer.FindStringSubmatchIndex(text)
		if m == nil {
			break
		}
		if text[m[2]:m[3]] == "Exit Code" {
			s.ExitCode, _ = strconv.Atoi(text[m[4]:m[5]])
		}
		text = text[:m[0]]
	}
	s.Output = strings.TrimPrefix(text, "Output: ")
	if s.Output == "(empty)" {
		s.Output = ""
	}
	return s
}

// Shell runs command with run_shell_command (bash -c), in the session's
// folder.
func (a *Turns) Shell(command string) Shell {
	return ParseShell(a.Call("run_shell_command", map[string]any{"command": command}))
}

// Skill is what activate_skill hands over:
//
//	<activated_skill name="NAME">
//	  <instructions>
//	    BODY (SKILL.md without its front matter)
//	  </instructions>
//
//	  <available_resources>
//	    Showing up to 200 items (files + folders).
//
//	DIR/
//	├───SKILL.md
//	└───bin/ …
//	  </available_resources>
//	</activated_skill>
//
// Activating a skill adds its folder to the workspace, so read_file may
// read there.
type Skill struct {
	Name         string
	Instructions string // the body
	Dir          string // the skill's folder, the tree's root
	Resources    string // the tree
	Error        string
}

var (
	skillNameRe   = regexp.MustCompile(`<activated_skill name="([^"]*)">`)
	skillBodyRe   = regexp.MustCompile(`(?s)<instructions>\n    (.*)\n  </instructions>`)
	skillTreeRe   = regexp.MustCompile(`(?s)<available_resources>\n    (.*)\n  </available_resources>`)
	skillRootRe   = regexp.MustCompile(`(?m)^(/.*)/$`)
	subagentRe    = regexp.MustCompile(`(?s)^Subagent '([^']*)' finished\.\nTermination Reason: ([^\n]*)\nResult:\n(.*)$`)
	truncatedRe   = regexp.MustCompile(`(?s)^\nIMPORTANT: The file content has been truncated\.\nStatus: Showing lines (\d+)-(\d+) of (\d+) total lines\.\n.*?\n--- FILE CONTENT \(truncated\) ---\n(.*)$`)
	subagentErrRe = regexp.MustCompile(`(?s)^Subagent '([^']*)' failed\. Error: (.*)$`)
)

// ParseSkill reads an activate_skill result.
func ParseSkill(r scripted.Result) Skill {
	if r.IsError {
		return Skill{Error: r.Text}
	}
	var s Skill
	if m := skillNameRe.FindStringSubmatch(r.Text); m != nil {
		s.Name = m[1]
	}
	if m := skillBodyRe.FindStringSubmatch(r.Text); m != nil {
		s.Instructions = m[1]
	}
	if m := skillTreeRe.FindStringSubmatch(r.Text); m != nil {
		s.Resources = m[1]
		if root := skillRootRe.FindStringSubmatch(m[1]); root != nil {
			s.Dir = root[1]
		}
	}
	return s
}

// ActivateSkill activates the skill name with activate_skill.
func (a *Turns) ActivateSkill(name string) Skill {
	return ParseSkill(a.Call("activate_skill", map[string]any{"name": name}))
}

// Read is what came back for a read_file call. A read the tool stopped
// short (past 2000 lines, or a line cut at 2000 characters) comes with a
// notice before the text:
//
//	IMPORTANT: The file content has been truncated.
//	Status: Showing lines FROM-TO of TOTAL total lines.
//	Action: … use start_line: TO+1.
//
//	--- FILE CONTENT (truncated) ---
type Read struct {
	Content  string // the lines read, joined by newlines
	From, To int    // the lines shown, when the notice says
	Total    int    // the file's lines (a final newline makes one more, empty)
	Next     int    // the start_line to go on from; 0 when the read reached the end
	Error    string
}

// ParseRead reads a read_file result.
func ParseRead(r scripted.Result) Read {
	if r.IsError {
		return Read{Error: r.Text}
	}
	rd := Read{Content: r.Text}
	if m := truncatedRe.FindStringSubmatch(rd.Content); m != nil {
		rd.From, _ = strconv.Atoi(m[1])
		rd.To, _ = strconv.Atoi(m[2])
		rd.Total, _ = strconv.Atoi(m[3])
		rd.Content = m[4]
		if rd.To < rd.Total {
			rd.Next = rd.To + 1
		}
	}
	return rd
}

// ReadFile reads path with read_file: lines start to end (from 1, end
// included), or from the start (up to the tool's limit) for 0, 0.
func (a *Turns) ReadFile(path string, start, end int) Read {
	return ParseRead(a.Call("read_file", readArgs(path, start, end)))
}

func readArgs(path string, start, end int) map[string]any {
	return scripted.DropUnset(map[string]any{"file_path": path, "start_line": start, "end_line": end})
}

// Subagent is what came back for an invoke_agent call:
//
//	Subagent 'NAME' finished.
//	Termination Reason: GOAL
//	Result:
//	RESULT (the generalist's {"response": …} as indented JSON; a string as it is)
//
// or "Subagent 'NAME' failed. Error: …". It carries no id: a finished
// subagent cannot be written to again.
type Subagent struct {
	Name   string
	Reason string // GOAL when it called complete_task; ERROR_NO_COMPLETE_TASK_CALL, …
	Result string
	Error  string // the call's error, or the failure's
}

// ParseSubagent reads an invoke_agent result.
func ParseSubagent(r scripted.Result) Subagent {
	if r.IsError {
		return Subagent{Error: r.Text}
	}
	var s Subagent
	if m := subagentRe.FindStringSubmatch(r.Text); m != nil {
		s.Name, s.Reason, s.Result = m[1], m[2], m[3]
	} else if m := subagentErrRe.FindStringSubmatch(r.Text); m != nil {
		s.Name, s.Error = m[1], m[2]
	}
	return s
}

// Invoke runs the subagent agent (generalist, or one of ~/.gemini/agents)
// with invoke_agent; script is its model, for the conversation named by
// prompt (two invocations of one session need distinct prompts, or share
// a script). The call returns when the subagent has finished.
func (a *Turns) Invoke(agent, prompt string, script Script) Subagent {
	a.Handle(prompt, script.Play())
	return ParseSubagent(a.Call("invoke_agent", map[string]any{"agent_name": agent, "prompt": prompt}))
}

// CompleteTask ends a subagent's run with complete_task, result its
// answer: {"response": text} for the generalist, a string for an agent
// of ~/.gemini/agents. The CLI asks nothing more of the subagent. (A
// subagent's last text is sent as this call by the wire, too.)
func (a *Turns) CompleteTask(result any) {
	a.Call("complete_task", map[string]any{"result": result})
}
