// Package host runs the skill in the real Claude Code CLI (the version
// pinned in internal/dev/claudecode), offline, with a scripted model: the
// SDD loop as a host really drives it, with its tool calls, subagents,
// task notifications and fresh shells, and the skill text followed
// literally.
//
// Server is the model: an Anthropic Messages API on 127.0.0.1 that
// answers each request from a Script and records every request. A request
// belongs to the conversation named by its first prompt text: the
// session's -p prompt, or the prompt of the Agent call that started a
// subagent. A conversation without a script gets a short text and is
// recorded as unknown.
//
// A Script is a scripted agent in straight-line Go, run again from the
// start on every request of its conversation: calls already in the
// transcript return what came back for them, and the first call that is
// not becomes the answer (see Turns).
//
// Follow(sc) is the script that matters: the follower (internal/dev/
// follower), the literal reader of the skill text, with the host's tools
// under it. It loads the skill with the Skill tool, takes every command
// block from the text the tool handed over, fills in only the
// placeholders and runs each block through the Bash tool as written; its
// dispatches are the host's Agent-tool subagents, played by the
// follower's implementer and reviewer scripts, which read, write and
// commit through the host's tools too; a fix round continues the
// implementer with SendMessage. FollowUntil(sc, n) stops it after n
// controller calls, to resume in a new session. The direct executor of
// internal/dev/skilltext runs the same follower without a host; this
// package is where it is held to what the host really does.
//
// Host is a machine for sessions: an isolated HOME with the plugin
// installed by the project's own installer (scripts/install-skill), a git
// identity, an isolated TMPDIR, a PATH of system directories only, and the
// repository. Host.Run runs `claude -p` there with stream-json output and
// fails the test on an error result, a failed script, or a controller Bash
// command that cds or uses a variable from an earlier call (CheckBash). A
// later Run on the same host is a new session in the same HOME and
// repository, which is how a resume is tested. Host.PluginCost reads the
// token cost `claude plugin details` estimates for the installed plugin.
//
// Without the CLI ($SDD_CLAUDE_CODE unset) the session tests skip, and
// the rest (the server against a hand-played host, the shell check) runs
// with Go and git alone. make test-host installs the CLI and runs
// everything, in a network namespace with only loopback up where it can.
// docs/host.md says how to run it and how to bump the CLI's version.
package host
