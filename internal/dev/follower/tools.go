// Package follower is the scripted agent that follows the skill text
// literally: the controller, and the implementer and reviewers it
// dispatches, written as deterministic straight-line Go over the host's
// tools. Two executors run the same scripts: internal/dev/skilltext runs
// them directly (shell blocks under sh, subagents as function calls), and
// internal/dev/harness runs them inside the real host CLIs, as a
// scripted model replayed from the conversation on every request.
//
// Following literally means: the controller reads the text the Skill tool
// returns, takes each step's block by its bold name, replaces only the
// placeholders, and runs it exactly as written, one tool call per block.
// Where the text is wrong, the run fails; the scripts never repair it.
package follower

// Tools are the host's tools as a scripted agent calls them: one method
// call is one tool call (Say is a text turn, not a tool call). Every
// method must be deterministic for a given history, so that a replaying
// executor can answer a call from a transcript.
type Tools interface {
	// Bash runs one command as the host's Bash tool does (a new shell,
	// the session's working directory); Text is what the tool shows
	// (stdout and stderr), IsError a failing command.
	Bash(command string) Result
	// Read reads a file as the host's Read tool does: offset and limit
	// are lines (0 means unset); a refusal (too large, missing) is an
	// error Result whose Text is the host's message.
	Read(path string, offset, limit int) Result
	// Write creates or overwrites a file.
	Write(path, content string) Result
	// Skill invokes a skill by name; Text holds what the host returns
	// with it: "Base directory for this skill: <dir>\n\n<body>".
	Skill(name string) Result
	// Agent dispatches a subagent, or continues one (call.Continue), and
	// returns its final reply once it has answered (an asynchronous launch
	// is waited for).
	Agent(call AgentCall) AgentResult
	// Say ends the turn with text: a question to the human, a report.
	Say(text string)
	// Host is the host's name as the skill's file of it is named
	// (host-<name>.md): claude-code, codex, opencode. It is not a tool
	// call: a model knows which host runs it.
	Host() string
}

// Result is what a tool call gave back.
type Result struct {
	Text    string
	IsError bool
	// Next is, for a Read the host stopped short of its limit (OpenCode's
	// 50 KB), the line the host says the file goes on from; 0 otherwise.
	Next int
}

// AgentCall is one Agent tool call.
type AgentCall struct {
	Description string
	Prompt      string
	Model       string // sonnet, opus, haiku: every dispatch names one
	Type        string // the subagent type, e.g. general-purpose
	// Background runs the subagent in the background: its answer comes
	// in a later turn (Claude Code's default). The text has every dispatch
	// in the foreground.
	Background bool
	// Continue is the id of a subagent that answered before (the
	// implementer of a fix round the host's file continues): Prompt goes
	// to it as its next message, and no new subagent starts. "" starts
	// one.
	Continue string
}

// AgentResult is a subagent's id and final reply.
type AgentResult struct {
	ID    string
	Reply string
}

// Script is a scripted agent: it works through t and returns its final
// reply (a subagent's answer, or the controller's last words).
type Script func(t Tools) string

// unwound, deferred, recovers the panic of type T a script unwinds
// itself with (stopped, agentFailed) and hands it to got; any other panic
// (a host stopping a replayed script) goes on. It is the deferred call
// itself because recover works only there.
func unwound[T any](got func(T)) {
	r := recover()
	if r == nil {
		return
	}
	v, ok := r.(T)
	if !ok {
		panic(r)
	}
	got(v)
}

// OneMessage is a host whose tools can take several dispatches in one of
// the controller's messages, run at once (rare.md, Side by side): Agents
// dispatches calls together and returns each answer, in order. A host
// that is not one takes each dispatch in a message of its own.
type OneMessage interface {
	Agents(calls []AgentCall) []AgentResult
}
