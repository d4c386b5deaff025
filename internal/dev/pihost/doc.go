// Package pihost runs the skill in the real Pi coding agent (the version
// pinned in internal/dev/hostcli), offline, against the scripted model
// speaking Chat Completions (scripted.Chat): one host of the shared
// harness (internal/dev/harness). It holds what is Pi's: the user's
// models.json and settings.json naming the scripted model, the session's
// environment and the checks every session must hold (host.go), the
// --mode json events (events.go), Pi's calls over a conversation and
// what comes back for them (calls.go, skills.go), the adapter of the
// follower's tools (follow.go), and the round trips that found how the
// CLI behaves (roundtrips_test.go). These notes are of 0.73.1.
//
// # The suite
//
// make test-host-pi runs the shared scenarios (TestFollow,
// harness.RunScenarios), then the round trips. The skill is installed by
// the project's installer (--host pi) with the pi of the install on its
// PATH, as a user runs it: the folder in ~/.pi/agent/skills/, Pi's
// subagent extension copied from that pi's package into
// ~/.pi/agent/extensions/subagent/, and the agent sdd-worker in
// ~/.pi/agent/agents/. A session is `pi -p --offline --mode json --model
// sdd/sdd-scripted PROMPT`. Headless Pi asks no one anything: every
// tool runs (a user who wants an allow-list writes an extension on the
// tool_call event; none is needed here). The adapter: Bash is bash, Read
// one read with offset and limit, Write is write, the skill is a read of
// the SKILL.md <available_skills> lists, a dispatch is the extension's
// subagent tool with agent sdd-worker; no agent id (the ledger records
// implementer=none), and a fix round is a new implementer. It resumes
// from two states (resumeStates), not harness.FewResumes: every
// dispatch is a pi process of its own.
//
// The round trips, each a `pi -p` session in a HOME holding a space and
// an é:
//
//   - TestShell: a command's result is its output, stdout and stderr
//     together, and "\n\nCommand exited with code N" after it only when
//     N is not 0 (the events mark that call an error; the model has the
//     text alone); "(no output)" for none. Each command is a shell of
//     its own in the session's folder, with the session's environment.
//     The tools are read, bash, edit and write.
//   - TestSkillListedAndRead: a skill of ~/.pi/agent/skills/ or
//     ~/.agents/skills/ is listed in the system prompt,
//     <available_skills> (name, description, the SKILL.md's path), and
//     the model reads it with read; there is no skill tool. A name in
//     both folders is listed once, Pi's own.
//   - TestReadInParts: read gives the lines as they are, not numbered,
//     at most 2000 lines or 50 KB; a read the tool stopped, or whose
//     limit left lines, ends with "[Showing lines A-B of N (50.0KB
//     limit). Use offset=K to continue.]" (or "[R more lines in file.
//     Use offset=K …]"). A file's last newline is an empty last line.
//   - TestSubagent: the extension offers the tool subagent (agent and
//     task; tasks and chain besides). A call runs `pi --mode json -p
//     --no-session [--model M] [--tools …] --append-system-prompt FILE
//     "Task: TASK"`: a new process whose one message is the task after
//     "Task: ", the agent's body after Pi's system prompt, the default
//     tools (the extension's subagent among them) and, the agent naming
//     no model, Pi's default model (settings.json), not the session's
//     --model. It returns the agent's last text. The same task again is a
//     new conversation; an unknown agent fails the call ("Agent failed:
//     Unknown agent: …").
//
// # How the CLI behaved
//
//   - Install: @mariozechner/pi-coding-agent depends on its sibling
//     packages (pi-ai, pi-agent-core, pi-tui) with a caret; hostcli
//     installs them first at the pinned version (188 packages, 208 MB,
//     31 s). It is JavaScript run by node 20.6 or later; an extension's
//     TypeScript is compiled at each start (jiti).
//   - `pi --version` prints on stderr when stdin is no terminal: Pi's
//     print and json modes send whatever is written to stdout to stderr,
//     and write their own output straight to stdout.
//   - Offline: --offline sets PI_OFFLINE=1 in the process's environment,
//     which the subagent extension's pi processes inherit (they get no
//     --offline); without it Pi may look up its latest version and
//     report its install to pi.dev (its docs/settings.md). hostcli.Pi
//     sets PI_OFFLINE for every start.
//   - The model: ~/.pi/agent/models.json, a provider {baseUrl, api
//     openai-completions, apiKey (required, any value), models [{id}]};
//     "api": "openai-responses" speaks the Responses API.
//     settings.json's defaultProvider and defaultModel are the subagents'
//     model. Requests stream, with max_completion_tokens and store
//     false; the system prompt is a system message; the user's message
//     is a list of text parts; tools are functions with strict false.
//   - A session writes ~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl and
//     auth.json; --mode json prints every message_update with the whole
//     message so far (ReadEvents leaves them out).
//   - No subagent tool is built in: superpowers leaves subagents to
//     optional packages. The extension ships as an example inside Pi's
//     package (examples/extensions/subagent); it loads agents from
//     ~/.pi/agent/agents/*.md (front matter name and description
//     required, model and tools optional), and its example agents name
//     Anthropic's models (worker: claude-sonnet-4-5), which a user with
//     another provider has not: the installer writes sdd-worker, with no
//     model and no tools line. A call cannot reach a finished agent: its
//     pi process has ended.
//   - bash keeps the last 2000 lines or 50 KB of an output, saving the
//     whole to a file in TMPDIR it names ("[Showing lines A-B of N. Full
//     output: PATH]").
//
// # The installer and the host's file, as decided
//
//   - Where: ~/.pi/agent/skills/subagent-driven-development/
//     ($PI_CODING_AGENT_DIR/skills/), not ~/.agents/skills/, which Codex,
//     Copilot CLI, Gemini CLI and Droid read too.
//   - The extension: copied from the Pi the user runs ($PI_PACKAGE_DIR,
//     else the pi on PATH, its npm link followed to the package), index.ts
//     and agents.ts, with a manifest of its own, so a reinstall after a
//     Pi upgrade brings the new one and --uninstall removes it; a
//     subagent extension the installer did not write is left as it is.
//     Without a Pi found, the installer names the step.
//   - host-pi.md says: the command's single-quoted form, <skill dir> as
//     the folder of the listed SKILL.md, the subagent tool with agent
//     sdd-worker and the task, a fix round as a new implementer, read's
//     2000 lines or 50 KB and its offset, bash's kept tail, the exit
//     code's line, and the extension the install puts.
package pihost
