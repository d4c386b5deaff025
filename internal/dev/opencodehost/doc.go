// Package opencodehost runs sessions of the real OpenCode CLI (the
// version pinned in internal/dev/opencodecli), offline, with a scripted
// model: the foundation for running the skill in OpenCode as
// internal/dev/host runs it in Claude Code.
//
// Server is the model: an OpenAI Chat Completions API on 127.0.0.1 (the
// configuration's one provider, @ai-sdk/openai-compatible, built into
// the binary) that answers each request from a Script and records every
// request. Every answer is streamed: one chat.completion.chunk with the
// whole text or the one tool call (its index, id, name and arguments),
// one with the finish reason (stop, tool_calls) and the usage, then
// [DONE]. A request belongs to the conversation named by its first user
// message: the session's message as opencode run sends it (RunMessage),
// or the prompt of the task call that started a subagent. A conversation
// without a script (the session's title request) gets a short text and is
// recorded as unknown.
//
// A Script is a scripted agent in straight-line Go, run again from the
// start on every request of its conversation: calls already in the
// transcript return what came back for them (the tool message with the
// call's id), and the first call that is not becomes the answer (see
// Turns). A task call returns the subagent's report; a task continued
// with its task_id is a new user message in the subagent's conversation,
// which its script's last Say returns.
//
// Host is a machine for sessions: an isolated HOME whose configuration
// names the scripted model (with @opencode-ai/plugin preinstalled so that
// nothing is fetched), a git identity, an isolated TMPDIR, a PATH of
// system directories only (git, sh, bash, rg), and the repository.
// Host.Run runs `opencode run --format json` there and reads its events;
// it fails the test on a failed call of the session, an error event, a
// failed script, a run cut short, or an install opencode attempted.
// Host.Export reads a subagent's session (`opencode export`), whose calls
// the run's events leave out; Host.ToolUses reads the calls of many
// sessions with one `opencode db` query.
//
// Host.InstallSkill installs the skill with the project's installer
// (--host opencode): skill/ and the shipped commands' bin/ in
// ~/.config/opencode/skills/subagent-driven-development/; the skill's
// host-opencode.md has the model run them from there by path. Follow (follow.go) is the
// follower's controller (internal/dev/follower) as a session's script,
// over OpenCode's tools, its subagents run as OpenCode's own (task): the
// skill run end to end, as internal/dev/host runs it in Claude Code.
//
// Without the CLI ($SDD_OPENCODE_CLI unset) the session tests skip, and
// the rest (the server against a hand-played host) runs with Go alone.
// make test-host installs the CLI and runs everything, in a network
// namespace with only loopback up where it can. docs/host.md says what
// the suite proves and how the CLI behaved.
package opencodehost
