// Package codexhost runs the real OpenAI Codex CLI (the version pinned in
// internal/dev/codexcli), offline, against a scripted model: the
// foundation for following the skill in Codex as internal/dev/host does
// in Claude Code. Its tests prove the round trips the skill will need: a
// shell command and its exit code, a subagent with its own conversation
// and a fix round, and a skill listed in the instructions and read with
// the shell.
//
// Server is the model: an OpenAI Responses API (POST /v1/responses,
// streamed) on 127.0.0.1 that answers each request from a Script and
// records every request. A request belongs to the conversation named by
// its first prompt: the first user text that is not the CLI's own context
// (<environment_context>), that is the exec prompt, or the message of the
// spawn_agent call that started a subagent. A conversation without a
// script gets a short text and is recorded as unknown.
//
// A Script is a scripted agent in straight-line Go, run again from the
// start on every request of its conversation: calls already in the
// transcript return what came back for them, and the first call that is
// not becomes the answer (see Turns), one output item a response.
//
// Host is a machine for sessions: an isolated HOME and CODEX_HOME (its
// config.toml names the server as the only model provider), a git
// identity, an isolated TMPDIR and a PATH of system directories only.
// Host.Run runs `codex exec --json` there and fails the test on a failed
// process, turn or script, or an error but the expected one.
//
// follow.go runs the follower (internal/dev/follower), the literal reader
// of the skill text, over the CLI's tools, with the skill installed in
// $CODEX_HOME/skills (InstallSkill): TestFollowWalkThrough,
// TestFollowResume and TestFollowForeignLedger are the Claude Code
// suite's, in Codex.
//
// Without the CLI ($SDD_CODEX_CLI unset) the session tests skip, and the
// server's tests (played by hand) run with Go alone. make test-host-codex
// installs the CLI and runs everything in a network namespace with only
// loopback up. docs/host.md says what the CLI does that a script must
// know.
package codexhost
