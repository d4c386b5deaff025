// Package claudehost runs the skill in the real Claude Code CLI (the
// version pinned in internal/dev/hostcli), offline, against the scripted
// model (internal/dev/scripted) speaking the Messages API: one host of
// the shared harness (internal/dev/harness). It holds what is Claude
// Code's: its calls over a conversation (calls.go: Bash, Read, Write,
// Edit, the Agent tool in the foreground or the background and its task
// notifications, ToolSearch, SendMessage), its adapter of the follower's
// tools and its facts (follow.go), its session's stream-json events, the
// user's permissions and the plain-command check of every Bash command
// (host.go), commands that need no model (offline.go: plugin validate,
// plugin list), and the token cost `claude plugin details` estimates
// (cost.go). These notes are of 2.1.328.
//
// # The suite
//
// The plugin loads as the project's installer lays it out
// (InstallPlugin: ~/.claude/skills/sdd-go/): the skill is listed as
// sdd-go:subagent-driven-development, the Skill tool hands over its text,
// and the four commands are found on the Bash tool's PATH in the
// plugin's bin/ (the sessions' PATH holds only the system directories of
// git, sh and bash, never GOPATH/bin). Sessions run in the default
// permission mode with no --allowedTools; the user's settings
// (~/.claude/settings.json) allow the Skill tool, Read, Agent, Write and
// Edit, and the plan's own commands for the subagents
// (follower.Scenario.UserRules); the controller's sdd-ledger calls are
// pre-approved only by the skill's own allowed-tools. Host.Run fails the
// test when the process fails or times out, a script fails, any tool
// result is an error (but those AllowError accepts) or a permission
// refusal, a follower step came back a failure, or a Bash command of the
// controller or a subagent fails the plain-command check
// (internal/dev/plaincmd) with the rules it runs under.
//
// TestFollow runs the shared scenarios and, here alone (Facts.Micro), the
// micro-tasks: a batch of eight one-line tasks (about 55 model requests,
// a session of 12 to 21 s) and a resume mid-batch (27 to 55 s a session).
// TestPluginTokenCost holds the skill to ship's budgets, always on and on
// invoke (measured: 29 and about 3400): `claude plugin details
// sdd-go` against the server, which answers count_tokens with 404, so
// the numbers are the CLI's own estimate (about four characters a
// token). Server.Unknown() holds the host's own side requests: none.
//
// # What the host does that a direct executor got wrong
//
// Each was found by running the follower here, and the direct executor
// (internal/dev/skilltext) now does the same:
//
//   - A skill's allowed-tools pre-approve its commands only in the turn
//     that loaded the skill. A subagent run in the background (Claude
//     Code's default) answers in a later turn, and there the same
//     sdd-ledger command "requires approval"; so does SendMessage's
//     continuation, which runs in the background. The text dispatches
//     every subagent in the foreground (run_in_background: false), and a
//     fix round goes to a fresh implementer, which reads the report
//     (host-claude-code.md's row "a fix round"); the direct executor ends
//     the skill's pre-approval when a dispatch goes to the background.
//     The Agent tool has no parameter that resumes an agent (description,
//     prompt, subagent_type, model, effort, run_in_background,
//     isolation); ListAgents lists the in-process subagents among others,
//     and SendMessage({to, message}), a deferred tool fetched with
//     ToolSearch, resumes a finished one from its transcript, its answer
//     a task notification (TestTools).
//   - Read numbers a file's last empty piece: a file ending in a newline
//     is read as one more, empty, numbered line (follower.FileLines).
//   - A Bash call whose command exits 1 with no output comes back as
//     "(Bash completed with no output)", like one that passed; the text's
//     checks are followed by a command that prints (… && sdd-ledger
//     close), and the follower reads that output.
//   - The CLI puts a socket in <XDG_RUNTIME_DIR or TMPDIR>/cc-socks/, and
//     where that path is over 103 bytes it falls back to
//     /tmp/cc-socks-<uid>, which it leaves behind: a session's
//     XDG_RUNTIME_DIR is short (RuntimeDir), and Host.Run checks the
//     sockets went there.
//
// # Scripts by hand
//
// A test may write a script with Claude Code's calls instead of the
// follower's: Bash (an error result fails), Read, ReadPart (offset and
// limit in lines), Write, Edit, Agent (background by default,
// RunForeground for the hand-back, Agent.Report), Wait (the next task
// notification of an agent; ends the turn until it comes), ToolSearch and
// SendMessage (continue a finished subagent: its script's last Say
// returns the message), Say (end the turn with text), and Call for any
// tool with any input, error results included:
//
//	implementer := func(a *scripted.Turns) { a.Say("DONE") }
//	controller := func(a *Turns) {
//		ag := a.Agent(Dispatch{Description: "Implement Task 1", Prompt: p,
//			SubagentType: "general-purpose", Model: "sonnet"}, implementer)
//		if n := a.Wait(ag); n.Result != "DONE" {
//			a.Failf("implementer: %s", n.Result)
//		}
//		a.Say("Task 1 done.")
//	}
//	s := h.Run("Carry out docs/plan.md.", controller)
//
// # Bumping the CLI
//
// What can change, and where it is handled: the wire format (request
// fields, the event stream) in internal/dev/scripted/messages.go; a
// tool's input or result (the Skill text block, the agent id line, the
// hand-back, <task-notification>, SendMessage's refusal) in calls.go and
// follow.go; the stream-json events in host.go; the plugin details
// layout in cost.go.
package claudehost
