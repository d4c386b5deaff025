package droidhost

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The calls of Droid's tools, as a script makes them over its
// conversation (scripted.Turns, the Chat wire), and what comes back for
// them (0.225.2). Chat Completions carry no error mark; Droid starts the
// text of a call that failed with "Error: " (Failed).

// A Script is a scripted agent in Droid (scripted.Script), with its calls.
type Script = scripted.For[Turns]

// Turns is a script's view of its conversation (scripted.Turns) with
// Droid's tools as calls.
type Turns struct{ *scripted.Turns }

// errorPrefix starts the result of a call that failed: a command's exit
// code but 0, a file that cannot be read, a subagent that could not run,
// arguments out of the tool's schema.
const errorPrefix = "Error: "

// Failed says what in a call's result marks it failed, "" when nothing
// does: the result itself, when it starts with errorPrefix.
func Failed(c scripted.CallResult) string {
	if strings.HasPrefix(c.Output, errorPrefix) {
		return c.Output
	}
	return ""
}

// Shell is what came back for an Execute call:
//
//	[Error: Command failed (exit code: N)]   (only when N is not 0)
//	OUTPUT (stdout and stderr together; "Command completed successfully" for none)
//
//	[Process exited with code N]
//
// An output past about 16 KB loses its middle ("[... N lines skipped
// ...]" or "[... truncated N bytes from middle section ...]"), and a line
// "Full command output saved to: PATH (SIZE)" comes before the exit code.
type Shell struct {
	Output string
	Code   int
	Error  string // the call did not run: its arguments, a refusal
}

var (
	exitedRe = regexp.MustCompile(`(?s)^(.*)\n\n\[Process exited with code (-?\d+)\]$`)
	failedRe = regexp.MustCompile(`^Error: Command failed \(exit code: -?\d+\)\n`)
)

// ParseShell reads an Execute result.
func ParseShell(text string) Shell {
	m := exitedRe.FindStringSubmatch(text)
	if m == nil {
		return Shell{Error: text}
	}
	code, _ := strconv.Atoi(m[2])
	out := failedRe.ReplaceAllString(m[1], "")
	if out == noOutput {
		out = ""
	}
	return Shell{Output: out, Code: code}
}

// noOutput is what Execute shows for a command that printed nothing.
const noOutput = "Command completed successfully"

// Risk is the risk level the scripts give every command, with its
// reason and a summary: Execute's schema requires the three beside the
// command (0.225.2 refuses a call without riskLevelReason, "Execute call
// rejected: missing required parameter "riskLevelReason"", and takes one
// without summary). Medium is what the subagents' git commit and test
// commands are (droid exec --help); the skill's commands, in the
// install's commandAllowlist, run whatever their level.
const (
	Risk       = "medium"
	RiskReason = "It changes files of this repository or its run's workspace, nothing outside."
	Summary    = "Run a step of the plan"
)

// Execute runs command with Execute, in the session's folder, at level
// risk (its default timeout, 60 s, left as it is).
func (a *Turns) Execute(command, risk string) Shell {
	return ParseShell(a.Call("Execute", map[string]any{"summary": Summary, "command": command, "riskLevelReason": RiskReason, "riskLevel": risk}).Text)
}

// Read is what came back for a Read call: the file's lines from offset
// (1 first) as they are, joined by newlines (a file ending in a newline
// has an empty last line), at most limit lines (2400 unless given) and
// 60,000 characters. A read given an offset or a limit, or cut short,
// ends with a note:
//
//	CONTENT
//
//	<system-reminder>[Showing lines A-B of N total lines]</system-reminder>
//	<system-reminder>[Showing lines A-B of N total lines, truncated to 60k characters]</system-reminder>
//
// where a read cut at 60,000 characters ends in the middle of line B.
type Read struct {
	Content         string
	From, To, Total int  // the note's A, B, N; 0 without a note
	Cut             bool // the read stopped at 60,000 characters, in line To
	Error           string
}

var readNoteRe = regexp.MustCompile(`\n\n<system-reminder>\[Showing lines (\d+)-(\d+) of (\d+) total lines(, truncated to [^\]]*)?\]</system-reminder>$`)

// ParseRead reads a Read result.
func ParseRead(text string) Read {
	if strings.HasPrefix(text, errorPrefix) {
		return Read{Error: text}
	}
	m := readNoteRe.FindStringSubmatchIndex(text)
	if m == nil {
		return Read{Content: text}
	}
	r := Read{Content: text[:m[0]], Cut: m[8] >= 0}
	r.From, _ = strconv.Atoi(text[m[2]:m[3]])
	r.To, _ = strconv.Atoi(text[m[4]:m[5]])
	r.Total, _ = strconv.Atoi(text[m[6]:m[7]])
	return r
}

// ReadFile reads path with Read: from line offset (0: the first), limit
// lines (0: as many as the tool gives).
func (a *Turns) ReadFile(path string, offset, limit int) Read {
	return ParseRead(a.Call("Read", scripted.DropUnset(map[string]any{"file_path": path, "offset": offset, "limit": limit})).Text)
}

// Create writes content to path with Create, which makes or overwrites
// the file ("The file PATH has been created successfully.").
func (a *Turns) Create(path, content string) scripted.Result {
	return a.Call("Create", map[string]any{"file_path": path, "content": content})
}

// Skill is what the Skill tool hands over:
//
//	Skill "NAME" is now active.
//
//	<skill name="NAME" filePath="/…/NAME/SKILL.md">
//	BODY (SKILL.md without its front matter)
//	</skill>
type Skill struct {
	Name, Path, Body string
	Error            string
}

var skillRe = regexp.MustCompile(`(?s)<skill name="([^"]*)" filePath="([^"]*)">\n(.*)\n</skill>\s*$`)

// ParseSkill reads a Skill result.
func ParseSkill(text string) Skill {
	m := skillRe.FindStringSubmatch(text)
	if m == nil {
		return Skill{Error: text}
	}
	return Skill{Name: m[1], Path: m[2], Body: m[3]}
}

// ActivateSkill activates the skill name with the Skill tool.
func (a *Turns) ActivateSkill(name string) Skill {
	return ParseSkill(a.Call("Skill", map[string]any{"skill": name}).Text)
}

// Task is what came back for a Task call with await: the subagent's
// session id (a later call's resume) and its report, its last text:
//
//	session_id: ID
//	Use this report as the source of record. …
//	REPORT
type Task struct {
	ID, Report string
	Error      string
}

var taskRe = regexp.MustCompile(`(?s)^session_id: (\S+)\n(?:Use this report as the source of record\.[^\n]*\n)?(.*)$`)

// ParseTask reads a Task result.
func ParseTask(text string) Task {
	m := taskRe.FindStringSubmatch(text)
	if m == nil || strings.HasPrefix(text, errorPrefix) {
		return Task{Error: text}
	}
	return Task{ID: m[1], Report: m[2]}
}

// Dispatch is a Task call.
type Dispatch struct {
	SubagentType, Description, Prompt string
	// Resume is the session id of a subagent that answered before: the
	// prompt goes to it as its next message ("# Follow-up
	// Instructions").
	Resume string
}

// input is d as Task's input, awaited (the call returns the report).
func (d Dispatch) input() map[string]any {
	in := map[string]any{"subagent_type": d.SubagentType, "description": d.Description, "prompt": d.Prompt, "await": true}
	if d.Resume != "" {
		in["resume"] = d.Resume
	}
	return in
}

// Tasks dispatches several subagents with Task calls in one message,
// each awaited, and returns each task, in order.
func (a *Turns) Tasks(ds []Dispatch, scripts []Script) []Task {
	return taskCalls.Several(a, ds, scripts)
}

// Task runs d with Task, awaited; script is the subagent's model, for
// the conversation named by d.Prompt, trimmed or not (HandleTrimmed; a
// continued one has its script already: nil).
func (a *Turns) Task(d Dispatch, script Script) Task { return taskCalls.One(a, d, script) }

// tasks are Task calls: the prompt handled trimmed too (Droid may pass
// it on so), each result read by ParseTask.
var taskCalls = scripted.Dispatcher[Dispatch, Task, Turns]{
	Trimmed: true,
	Call: func(d Dispatch) (string, scripted.Grouped) {
		return d.Prompt, scripted.Grouped{Name: "Task", Input: d.input()}
	},
	Read: func(r scripted.Result) Task { return ParseTask(r.Text) },
}
