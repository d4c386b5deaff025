package opencodehost

import (
	"regexp"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// A Script is a scripted agent in OpenCode (scripted.Script), with
// OpenCode's calls.
type Script = scripted.For[Turns]

// Turns is a script's view of its conversation (scripted.Turns) with
// OpenCode's tools as calls. opencode sends a failed call's error back as
// plain text, like an output (a missing file's read gives "File not
// found: …"), so a script cannot tell one from the other: Host.Run fails
// the test on a call of the session that failed, from the event stream.
type Turns struct{ *scripted.Turns }

// Bash runs command with the bash tool, in the session's directory, and
// returns its output: stdout and stderr as they came, "(no output)" when
// there was none. The model is told no exit status (the event stream has
// it, ToolUse.Exit), so a failing command is no error here: a script that
// must know prints it.
func (a *Turns) Bash(command string) string {
	return a.Call("bash", map[string]any{"command": command}).Text
}

// BashIn runs command with the bash tool in dir (its workdir).
func (a *Turns) BashIn(dir, command string) string {
	return a.Call("bash", map[string]any{"command": command, "workdir": dir}).Text
}

// Read reads a whole file with the read tool (path absolute) and returns
// what the tool shows.
func (a *Turns) Read(path string) string {
	return a.Call("read", map[string]any{"filePath": path}).Text
}

// Write writes a whole file with the write tool.
func (a *Turns) Write(path, content string) {
	a.Call("write", map[string]any{"filePath": path, "content": content})
}

// Edit replaces old by new in a file with the edit tool (read it first).
func (a *Turns) Edit(path, old, new string) {
	a.Call("edit", map[string]any{"filePath": path, "oldString": old, "newString": new})
}

// Skill loads a skill with the skill tool and returns what it handed
// over.
func (a *Turns) Skill(name string) Skill {
	r := a.Call("skill", map[string]any{"name": name})
	return parseSkill(r.Text)
}

// Skill is what the skill tool handed over for one skill:
//
//	<skill_content name="NAME">
//	# Skill: NAME
//
//	BODY (SKILL.md without its front matter)
//
//	Base directory for this skill: DIR
//	Relative paths in this skill (…) are relative to this base directory.
//	Note: file list is sampled.
//
//	<skill_files>
//	<file>DIR/…</file>
//	</skill_files>
//	</skill_content>
type Skill struct {
	Name    string   // from <skill_content name="…">
	Dir     string   // the skill's directory, absolute, from "Base directory for this skill: …"
	Files   []string // the files listed (a sample, SKILL.md left out)
	Content string   // the whole result
}

var (
	skillNameRe = regexp.MustCompile(`<skill_content name="([^"]*)">`)
	skillDirRe  = regexp.MustCompile(`(?m)^Base directory for this skill: (.+)$`)
	skillFileRe = regexp.MustCompile(`(?m)^<file>(.*)</file>$`)
)

func parseSkill(text string) Skill {
	s := Skill{Content: text}
	if m := skillNameRe.FindStringSubmatch(text); m != nil {
		s.Name = m[1]
	}
	if m := skillDirRe.FindStringSubmatch(text); m != nil {
		s.Dir = m[1]
	}
	for _, m := range skillFileRe.FindAllStringSubmatch(text, -1) {
		s.Files = append(s.Files, m[1])
	}
	return s
}

// Dispatch is the input of a task call.
type Dispatch struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"` // e.g. general
	TaskID       string `json:"task_id"`       // set to continue that task's session; "" starts one
}

// Task is a subagent's answer to a task call, which comes back as
//
//	<task id="SESSION" state="completed">
//	<task_result>
//	REPORT
//	</task_result>
//	</task>
type Task struct {
	ID     string          // the task_id, the child session's id, to continue it
	State  string          // completed
	Report string          // the subagent's final text
	Result scripted.Result // the task call's whole result
}

var taskRe = regexp.MustCompile(`<task id="([^"]*)" state="([^"]*)">`)

// Task runs a subagent with the task tool and returns its report: the
// call returns when the subagent's turn ends. A new task's conversation
// is named by d.Prompt, and script is its agent (two tasks of one session
// need distinct prompts); to continue a task, set d.TaskID and leave
// script nil: the subagent's script sees d.Prompt as what its last Say
// returned.
func (a *Turns) Task(d Dispatch, script Script) Task { return taskCalls.One(a, d, script) }

// input is d as the task tool's input.
func (d Dispatch) input() map[string]any {
	in := map[string]any{"description": d.Description, "prompt": d.Prompt, "subagent_type": d.SubagentType}
	if d.TaskID != "" {
		in["task_id"] = d.TaskID
	}
	return in
}

// parseTask reads a task call's result.
func parseTask(r scripted.Result) Task {
	t := Task{Result: r, Report: taskReport(r.Text)}
	if m := taskRe.FindStringSubmatch(r.Text); m != nil {
		t.ID, t.State = m[1], m[2]
	}
	return t
}

// Tasks dispatches several subagents with task calls in one message,
// and returns each task, in order.
func (a *Turns) Tasks(ds []Dispatch, scripts []Script) []Task {
	return taskCalls.Several(a, ds, scripts)
}

// tasks are task calls, each result read by parseTask.
var taskCalls = scripted.Dispatcher[Dispatch, Task, Turns]{
	Call: func(d Dispatch) (string, scripted.Grouped) {
		return d.Prompt, scripted.Grouped{Name: "task", Input: d.input()}
	},
	Read: parseTask,
}

// taskReport takes the subagent's final text out of the task result: the
// text between <task_result> and </task_result>.
func taskReport(text string) string {
	_, rest, ok := strings.Cut(text, "<task_result>")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(rest, "</task_result>"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Trim(rest, "\n")
}
