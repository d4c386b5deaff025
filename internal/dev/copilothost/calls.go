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

// Background is the mode of a task whose agent can be messaged after it
// answered (write_agent); a sync one cannot ("Agent is not running in
// background mode").
const Background = "background"

var agentIDRe = regexp.MustCompile(`agent_id: ([0-9a-f-]+)`)

// AgentID is the agent id a background task's result gives: "Agent
// started in background with agent_id: ID. …"; "" for none.
func AgentID(taskResult string) string {
	if m := agentIDRe.FindStringSubmatch(taskResult); m != nil {
		return m[1]
	}
	return ""
}

// Agent is what read_agent says of a background agent: its status
// (running, idle, completed, failed, cancelled) and its last turn's
// answer.
type Agent struct {
	Status string
	Answer string
	Text   string
}

var (
	agentStatusRe = regexp.MustCompile(`\bstatus: ([a-z]+)`)
	agentTurnRe   = regexp.MustCompile(`(?m)^\[Turn \d+\]\n`)
)

// parseAgent reads read_agent's result:
//
//	Agent is idle (waiting for messages). agent_id: ID, …, status: idle, …, total_turns: 2
//
//	[Turn 0]
//	ANSWER
//
//	[Turn 1]
//	[Message]
//	MESSAGE
//
//	[Response]
//	ANSWER
//
// The answer is the last turn's: its text, or what follows [Response]
// in a turn that began with a message.
func parseAgent(text string) Agent {
	ag := Agent{Text: text}
	head, _, _ := strings.Cut(text, "\n")
	if m := agentStatusRe.FindStringSubmatch(head); m != nil {
		ag.Status = m[1]
	}
	if locs := agentTurnRe.FindAllStringIndex(text, -1); len(locs) > 0 {
		last := text[locs[len(locs)-1][1]:]
		if strings.HasPrefix(last, "[Message]\n") {
			_, last, _ = strings.Cut(last, "\n[Response]\n")
		}
		ag.Answer = strings.TrimSpace(last)
	}
	return ag
}

// ReadAgent waits for a background agent's turn to end (read_agent with
// wait, its longest timeout) and returns what it says.
func (a *Turns) ReadAgent(id string) Agent {
	return parseAgent(a.Call("read_agent", map[string]any{"agent_id": id, "wait": true, "timeout": 180}).Text)
}

// WriteAgent sends a message to an agent that answered: its next turn.
func (a *Turns) WriteAgent(id, message string) scripted.Result {
	return a.Call("write_agent", map[string]any{"agent_id": id, "message": message})
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
