package codexhost

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Turns is a script's view of its conversation (scripted.Turns) with
// the Codex CLI's tools as calls.
type Turns struct{ *scripted.Turns }

// A Script is a scripted agent in Codex (scripted.Script), with Codex's
// calls.
type Script = scripted.For[Turns]

// Command is the input of an exec_command call.
type Command struct {
	Cmd     string `json:"cmd"`
	Workdir string `json:"workdir,omitempty"` // "" leaves it out: the turn's cwd
	// YieldMs is how long the CLI waits for the command before it answers
	// that the command is still running (yield_time_ms; 0 leaves it out:
	// 10 s). Exec then polls it with write_stdin until it exits.
	YieldMs int `json:"yield_time_ms,omitempty"`
}

// Exec is what came back for a command: its output (stdout and stderr
// together, as the PTY or pipes gave them) and its exit code, read from
// the text the CLI answers with (0.171.0):
//
//	Chunk ID: 66198b
//	Wall time: 0.0000 seconds
//	Process exited with code 0
//	Original token count: 1
//	Output:
//	hi
//
// That text is all the model gets: the output carries no error flag, so a
// failed command reads like a passed one but for its "code N" line.
type Exec struct {
	Output string
	Code   int
	Text   string // the whole answer, of the last poll if it was polled
}

var (
	exitedRe  = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)$`)
	runningRe = regexp.MustCompile(`(?m)^Process running with session ID (\d+)$`)
)

// parseExec splits an exec_command or write_stdin answer into its output
// and, when the process is over, its exit code; running is the session id
// of a process that is not.
func parseExec(text string) (output string, code int, exited bool, running int) {
	if _, out, ok := strings.Cut(text, "\nOutput:\n"); ok {
		output = out
	}
	if m := exitedRe.FindStringSubmatch(text); m != nil {
		code, _ = strconv.Atoi(m[1])
		return output, code, true, 0
	}
	if m := runningRe.FindStringSubmatch(text); m != nil {
		running, _ = strconv.Atoi(m[1])
	}
	return output, 0, false, running
}

// Exec runs a command with exec_command in the turn's cwd (a new process
// each time: cd and variables do not carry over) and returns its output
// and exit code, whatever the code. A command still running when the CLI
// answers is polled with write_stdin until it exits; its outputs are
// joined.
func (a *Turns) Exec(cmd string) Exec {
	return a.ExecWith(Command{Cmd: cmd})
}

// ExecWith is Exec with the call's other inputs.
func (a *Turns) ExecWith(c Command) Exec {
	r := a.Call("exec_command", c)
	out, code, exited, running := parseExec(r.Text)
	for !exited {
		if running == 0 {
			a.Failf("exec_command %q: an answer with neither an exit code nor a session: %q", scripted.Clip(c.Cmd, 200), scripted.Clip(r.Text, 1000))
		}
		r = a.Call("write_stdin", map[string]any{"session_id": running, "chars": "", "yield_time_ms": 1000})
		var more string
		more, code, exited, running = parseExec(r.Text)
		out += more
	}
	return Exec{Output: out, Code: code, Text: r.Text}
}

// Run runs a command that must pass and returns its output; any other
// exit code fails the script.
func (a *Turns) Run(cmd string) string {
	e := a.Exec(cmd)
	if e.Code != 0 {
		a.Failf("%q exited with code %d: %s", scripted.Clip(cmd, 200), e.Code, scripted.Clip(e.Output, 2000))
	}
	return e.Output
}

// Quote makes s one word of a POSIX shell command.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// agentTools is the namespace the CLI offers its subagent tools in
// (0.171.0, with a model outside its catalog).
const agentTools = "multi_agent_v1"

// Agent is a subagent spawn_agent started.
type Agent struct {
	ID       string // its thread id, the target of wait_agent and send_input
	Nickname string // the name the CLI gave it
	Message  string // its first prompt, which names its conversation
}

// Spawn starts a subagent (spawn_agent) whose conversation script runs:
// its first prompt is message, so two subagents of one session need
// distinct messages. It returns once the CLI has started it; Wait for its
// answer.
func (a *Turns) Spawn(message string, script Script) Agent {
	return a.SpawnWith(SpawnArgs{Message: message}, script)
}

// SpawnArgs is the input of a spawn_agent call (0.171.0 offers more:
// items, fork_context, reasoning_effort).
type SpawnArgs struct {
	Message string `json:"message"`
	// Model overrides the subagent's model ("" leaves it out: the
	// parent's). The CLI sends it as the child's requests' model.
	Model string `json:"model,omitempty"`
}

// SpawnWith is Spawn with the call's other inputs.
func (a *Turns) SpawnWith(args SpawnArgs, script Script) Agent {
	message := args.Message
	if script != nil {
		a.Handle(message, script.Play())
	}
	r := a.CallIn(agentTools, "spawn_agent", args)
	var out struct {
		AgentID  string `json:"agent_id"`
		Nickname string `json:"nickname"`
	}
	if err := json.Unmarshal([]byte(r.Text), &out); err != nil || out.AgentID == "" {
		a.Failf("spawn_agent answered %q", scripted.Clip(r.Text, 500))
	}
	return Agent{ID: out.AgentID, Nickname: out.Nickname, Message: message}
}

// AgentStatus is a subagent's final status as wait_agent reports it:
// State is completed, errored, shutdown or not_found, and Message the
// agent's last text (completed) or the error (errored).
type AgentStatus struct {
	State   string
	Message string
}

// waitMs is the timeout of each wait_agent call; Wait calls again on a
// timeout, and the session's own timeout ends a subagent that never
// answers.
const waitMs = 60000

// Wait waits for ag to reach a final status (wait_agent) and returns it.
// wait_agent answers
//
//	{"status":{"<id>":{"completed":"<its last text>"}},"timed_out":false}
//
// (0.171.0); a timeout (an empty status) waits again.
func (a *Turns) Wait(ag Agent) AgentStatus {
	for {
		r := a.CallIn(agentTools, "wait_agent", map[string]any{"targets": []string{ag.ID}, "timeout_ms": waitMs})
		var out struct {
			Status   map[string]json.RawMessage `json:"status"`
			TimedOut bool                       `json:"timed_out"`
		}
		if err := json.Unmarshal([]byte(r.Text), &out); err != nil {
			a.Failf("wait_agent answered %q", scripted.Clip(r.Text, 500))
		}
		raw, ok := out.Status[ag.ID]
		if !ok {
			if out.TimedOut {
				continue
			}
			a.Failf("wait_agent answered no status for %s: %q", ag.ID, scripted.Clip(r.Text, 500))
		}
		// A final status with a text is an object of one key; one without
		// is a bare string.
		var st AgentStatus
		var withText map[string]string
		if json.Unmarshal(raw, &withText) == nil && len(withText) == 1 {
			for k, v := range withText {
				st = AgentStatus{State: k, Message: v}
			}
			return st
		}
		if json.Unmarshal(raw, &st.State) == nil {
			return st
		}
		a.Failf("wait_agent's status for %s is %s", ag.ID, raw)
	}
}

// SendInput sends a finished (or running) subagent a message
// (send_input): a finished one takes its conversation up again, and its
// script sees message among what its last Say returned. Wait for its new
// answer.
func (a *Turns) SendInput(ag Agent, message string) {
	a.CallIn(agentTools, "send_input", map[string]any{"target": ag.ID, "message": message})
}

// Resume opens a closed agent again (resume_agent), so that it takes
// send_input and wait_agent: "{"status":"pending_init"}" (0.171.0).
func (a *Turns) Resume(ag Agent) string {
	return a.CallIn(agentTools, "resume_agent", map[string]any{"id": ag.ID}).Text
}

// Close closes ag (close_agent) and returns its status before. A finished
// subagent stays open, and counts toward the CLI's limit of open agent
// threads, until it is closed (0.171.0: the seventh spawn_agent of a
// session that closes none fails, "collab spawn failed: agent thread
// limit reached").
func (a *Turns) Close(ag Agent) string {
	return a.CallIn(agentTools, "close_agent", map[string]any{"target": ag.ID}).Text
}
