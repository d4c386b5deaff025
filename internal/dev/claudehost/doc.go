// Package claudehost runs the skill in the real Claude Code CLI (the
// version pinned in internal/dev/claudecode), offline, against the
// scripted model (internal/dev/scripted) speaking the Messages API: one
// host of the shared harness (internal/dev/harness), with Claude Code's
// calls over a conversation (calls.go: Bash, Read, Write, Edit, the
// Agent tool in the foreground or the background and its task
// notifications, ToolSearch, SendMessage), its adapter of the follower's
// tools and its facts for the shared scenarios (follow.go), its
// session's stream-json events, the user's permissions and the
// plain-command check of every Bash command (host.go), and the token
// cost `claude plugin details` estimates for the installed plugin
// (cost.go).
//
// Host is a machine for sessions (harness.Machine) with the plugin
// installed by the project's installer: the skill's commands are on the
// Bash tool's PATH in the plugin's bin/, and nowhere else. Host.Run runs
// `claude -p` there and fails the test on an error result, a refusal, a
// failed script, or a Bash command that would wait for a person.
// TestFollow runs the shared scenarios: the walk-through, a package over
// 256 KB, every resume state, a foreign ledger.
//
// Without the CLI ($SDD_CLAUDE_CODE unset) the session tests skip, and
// the rest (the calls against a hand-played CLI) runs with Go alone.
// make test-host-claude installs the CLI and runs everything, in a
// network namespace with only loopback up where it can. docs/host.md
// says how to run it and how to bump the CLI's version.
package claudehost
