package pihost

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The calls of Pi's tools, as a script makes them over its conversation
// (scripted.Turns, the Chat wire), and what comes back for them (0.73.1).
// Chat Completions carry no error mark: a failed call is told by its
// text (Failed).

// A Script is a scripted agent in Pi (scripted.Script), with its calls.
type Script = scripted.For[Turns]

// Turns is a script's view of its conversation (scripted.Turns) with
// Pi's tools as calls.
type Turns struct{ *scripted.Turns }

// Shell is what came back for a bash call: the output (stdout and stderr
// together, its last 2000 lines or 50 KB), and the exit status, which the
// tool adds only when it is not 0:
//
//	OUTPUT ("(no output)" for none)
//
//	Command exited with code N
type Shell struct {
	Output string // "" for "(no output)"
	Code   int
}

var exitedRe = regexp.MustCompile(`(?s)^(.*)\n\nCommand exited with code (\d+)$`)

// ParseShell reads a bash result.
func ParseShell(text string) Shell {
	var s Shell
	if m := exitedRe.FindStringSubmatch(text); m != nil {
		text = m[1]
		s.Code, _ = strconv.Atoi(m[2])
	}
	if text != "(no output)" {
		s.Output = text
	}
	return s
}

// Bash runs command with the bash tool, in the session's folder.
func (a *Turns) Bash(command string) Shell {
	return ParseShell(a.Call("bash", map[string]any{"command": command}).Text)
}

// Read is what came back for a read call. The tool gives the file's lines
// from offset (1 first) as they are, joined by newlines (a file ending
// in a newline has an empty last line), up to limit lines, 2000 lines or
// 50 KB, and names where the file goes on in a note after them:
//
//	[Showing lines A-B of N. Use offset=K to continue.]           (2000 lines)
//	[Showing lines A-B of N (50.0KB limit). Use offset=K to continue.]
//	[R more lines in file. Use offset=K to continue.]             (limit lines)
//
// A failure is its error's message ("ENOENT: no such file or directory,
// access '…'", "Offset N is beyond end of file (M lines total)").
type Read struct {
	Content string
	Next    int  // K of the note; 0 when the read reached the end
	Short   bool // the tool stopped before the lines asked (2000 lines, 50 KB)
	Error   string
}

var (
	readNoteRe  = regexp.MustCompile(`\n\n\[(?:Showing lines \d+-\d+ of \d+( \([0-9.]+KB limit\))?|\d+ more lines in file)\. Use offset=(\d+) to continue\.\]$`)
	readErrorRe = regexp.MustCompile(`^(?:E[A-Z]+: |Offset \d+ is beyond end of file)`)
)

// ParseRead reads a read result.
func ParseRead(text string) Read {
	if readErrorRe.MatchString(text) {
		return Read{Error: text}
	}
	m := readNoteRe.FindStringSubmatchIndex(text)
	if m == nil {
		return Read{Content: text}
	}
	next, _ := strconv.Atoi(text[m[4]:m[5]])
	return Read{Content: text[:m[0]], Next: next, Short: !strings.Contains(text[m[0]:], " more lines in file")}
}

// ReadFile reads path with the read tool: from line offset (0: the
// first), limit lines (0: as many as the tool gives).
func (a *Turns) ReadFile(path string, offset, limit int) Read {
	return ParseRead(a.Call("read", scripted.DropUnset(map[string]any{"path": path, "offset": offset, "limit": limit})).Text)
}

// Write writes content to path with the write tool ("Successfully wrote
// N bytes to PATH"), making its folders.
func (a *Turns) Write(path, content string) scripted.Result {
	return a.Call("write", map[string]any{"path": path, "content": content})
}

// Subagent is what came back for a call of the subagent extension's tool
// in its single mode: the agent's last text ("(no output)" for none), or
// a failure, "Agent failed: …" (its pi process ended badly; an unknown
// agent's "Unknown agent: "NAME". Available agents: …."), "Agent error:
// …" or "Agent aborted: …".
type Subagent struct {
	Answer string
	Error  string
}

// toolErrorRe is what Pi answers for a call it did not run: a tool it
// does not know, arguments out of the tool's schema, a call an
// extension's tool_call handler blocked.
var toolErrorRe = regexp.MustCompile(`^(?:Tool \S+ not found$|Validation failed for tool |Tool execution was blocked)`)

var subagentErrorRe = regexp.MustCompile(`^(?:Agent (?:failed|error|aborted): |Invalid parameters\. )`)

// ParseSubagent reads a subagent result.
func ParseSubagent(text string) Subagent {
	if subagentErrorRe.MatchString(text) {
		return Subagent{Error: text}
	}
	return Subagent{Answer: text}
}

// TaskPrefix starts the prompt of the pi process a subagent runs in: the
// extension passes "Task: " and the call's task as its one message.
const TaskPrefix = "Task: "

// Dispatches runs several subagents with subagent calls in one message,
// and returns each one's answer, in order.
func (a *Turns) Dispatches(agent string, tasks []string, scripts []Script) []Subagent {
	cs := make([]subagentCall, len(tasks))
	for i, task := range tasks {
		cs[i] = subagentCall{agent: agent, task: task}
	}
	return subagentCalls.Several(a, cs, scripts)
}

// Dispatch runs agent (one of ~/.pi/agent/agents) on task with the
// subagent tool; script is its model, for the conversation named by task
// (PromptOf takes TaskPrefix off), trimmed or not (HandleTrimmed). The
// call returns when the agent's pi process has ended.
func (a *Turns) Dispatch(agent, task string, script Script) Subagent {
	return subagentCalls.One(a, subagentCall{agent: agent, task: task}, script)
}

// subagentCall is a subagent call: agent run on task.
type subagentCall struct{ agent, task string }

// subagentCalls are subagent calls: the task, which names the
// conversation, handled trimmed too (Pi may pass it on so), each result
// read by ParseSubagent.
var subagentCalls = scripted.Dispatcher[subagentCall, Subagent, Turns]{
	Trimmed: true,
	Call: func(c subagentCall) (string, scripted.Grouped) {
		return c.task, scripted.Grouped{Name: "subagent", Input: map[string]any{"agent": c.agent, "task": c.task}}
	},
	Read: func(r scripted.Result) Subagent { return ParseSubagent(r.Text) },
}

// Failed says what in a call's result marks it failed, "" when nothing
// does: a bash result with an exit code, a read's error, a write that
// did not say it wrote, a subagent's failure, a call Pi did not run
// (toolErrorRe).
func Failed(c scripted.CallResult) string {
	switch c.Name {
	case "bash":
		if sh := ParseShell(c.Output); sh.Code != 0 {
			return "exit code " + strconv.Itoa(sh.Code)
		}
	case "read":
		if r := ParseRead(c.Output); r.Error != "" {
			return r.Error
		}
	case "write":
		if !strings.HasPrefix(c.Output, "Successfully wrote ") {
			return c.Output
		}
	case "subagent":
		if s := ParseSubagent(c.Output); s.Error != "" {
			return s.Error
		}
	}
	if toolErrorRe.MatchString(c.Output) {
		return c.Output
	}
	return ""
}
