package copilothost

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Turns is a script's view of its conversation (scripted.Turns) with
// Copilot CLI's tools as calls.
type Turns struct{ *scripted.Turns }

// Shell is what came back for a bash command: its output and exit code,
// read from the line the CLI ends the result with (1.0.102):
//
//	<output>
//	<shellId: 0 completed with exit code 0>
type Shell struct {
	Output string
	Code   int
	Exited bool // the trailer said how it ended
	Text   string
}

var shellEndRe = regexp.MustCompile(`\n?<shellId: [^>]* completed with exit code (-?\d+)>\s*$`)

func parseShell(text string) Shell {
	sh := Shell{Output: text, Text: text}
	if m := shellEndRe.FindStringSubmatchIndex(text); m != nil {
		sh.Output = text[:m[0]]
		if sh.Output != "" {
			sh.Output += "\n"
		}
		sh.Code, _ = strconv.Atoi(text[m[2]:m[3]])
		sh.Exited = true
	}
	return sh
}

// Bash runs command with the bash tool (a new process in the session's
// directory each time) and returns its output and exit code.
func (a *Turns) Bash(command string) Shell {
	return parseShell(a.Call("bash", map[string]any{"command": command, "description": describe(command)}).Text)
}

// describe is a command's description, which the tool requires: its
// first words.
func describe(command string) string {
	return scripted.Clip(strings.SplitN(command, "\n", 2)[0], 90)
}

// View reads a file with the view tool: the lines from to to (1-based,
// inclusive; to -1 reads to the end), or the whole file when from is 0.
func (a *Turns) View(path string, from, to int) string {
	in := map[string]any{"path": path}
	if from > 0 {
		in["view_range"] = []int{from, to}
	}
	return a.Call("view", in).Text
}

// Create writes a new file with the create tool.
func (a *Turns) Create(path, content string) string {
	return a.Call("create", map[string]any{"path": path, "file_text": content}).Text
}

// Skill loads a skill with the skill tool: the result only says it
// loaded; the skill's text comes as a text of the user's role beside it
// (Result.Notes).
func (a *Turns) Skill(name string) scripted.Result {
	return a.Call("skill", map[string]any{"skill": name})
}

// Dispatch is the input of a task call.
type Dispatch struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	AgentType   string `json:"agent_type"` // general-purpose
	Model       string `json:"model,omitempty"`
	Mode        string `json:"mode,omitempty"` // sync (the default) or background
}

// Task runs a subagent whose conversation script plays (its first prompt
// is d.Prompt, less the white space it ends with, which the CLI drops)
// with the task tool and returns what came back.
func (a *Turns) Task(d Dispatch, script scripted.Script) scripted.Result {
	if script != nil {
		a.Handle(strings.TrimRightFunc(d.Prompt, unicode.IsSpace), script)
	}
	return a.Call("task", d)
}
