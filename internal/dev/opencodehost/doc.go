// Package opencodehost runs the skill in the real OpenCode CLI (the
// version pinned in internal/dev/hostcli), offline, against the scripted
// model (internal/dev/scripted) speaking Chat Completions: one host of
// the shared harness (internal/dev/harness). It holds what is
// OpenCode's: a configuration whose one provider is the scripted model,
// with @opencode-ai/plugin preinstalled so that nothing is fetched, and
// the skill installed by the project's installer (config.go); its calls
// over a conversation (script.go); its adapter of the follower's tools
// (follow.go); and `opencode run --format json`'s events, its database
// (a subagent's calls) and what every session must hold (session.go).
// These notes are of 1.18.33.
//
// # The suite
//
// TestFollow runs the shared scenarios with OpenCode's default
// permissions, no rule added: Bash is bash (no exit status reaches the
// model; Host.Run reads it from the events, and a subagent's from
// opencode's database, and requires 0), Read is read (its "N: line"
// layout turned into the follower's), Write is write, the skill comes
// from the skill tool (its base directory line put first), and a
// dispatch is task with subagent_type general. Fix rounds 1-3 continue
// the implementer, as host-opencode.md's row "a fix round" says: a task
// call with the task_id its dispatch gave (the agent id the ledger
// records), the Fix prompt the child session's next user message. read
// gives at most 2000 lines or 50 KB and names the offset the file goes
// on from; the role files have a reader go on from there, so a 323 KB
// package is read whole in 7 parts of about 1200 lines (with that clause
// taken out of the role file, the test fails). It resumes from one state
// (refix): a resume takes 4 to 5 minutes here, and blocked's five rounds
// passed the 5-minute session limit; it passes the micro-tasks, but in
// 2 min 39 s and 2 min 48 s, so they are off.
//
// The round trips, each one session in a repository whose path holds a
// space and an é, held to no failed call, no error event, no failed
// script, a turn that ended, and no fetch in opencode's log:
//
//   - TestBash: a bash call's output comes back to the model (echo hi
//     gives "hi\n", true gives "(no output)"), one request a turn; the
//     session leaves the repository as it was.
//   - TestFiles: write, read (its layout: <path>, <type>, <content>,
//     "N: line") and edit of a file in the project, with opencode run's
//     default permissions.
//   - TestTask: a task call starts a subagent whose conversation runs its
//     own script; a second task call with the task_id continues the same
//     child session, whose script gets the new prompt and answers again;
//     opencode export shows the child's calls.
//   - TestSkill: a skill in ~/.config/opencode/skills/x/SKILL.md is
//     listed in the system prompt, loaded with the skill tool, which hands
//     over its body and its directory; a file there is read and a script
//     there run by its path.
//   - TestOutsideTheProjectEndsTheRun: a command naming a path outside
//     the project is refused, and the run ends (below).
//
// Traced with strace, a session connects to nothing but the server. A
// session takes 3 to 6 s on the 2-core machine (up to 17 s under load):
// about 4 s before the first model request, then 0.2 to 0.3 s a turn.
//
// # How the CLI behaved
//
//   - Install: npm install opencode-ai --ignore-scripts leaves the
//     opencode command a stub; the platform package alone has the binary
//     (a Bun executable, 185 MB), and @opencode-ai/plugin is 64 MB with its
//     dependencies (hostcli.OpenCode). Even --version makes directories
//     under HOME and the XDG directories.
//   - The wire: POST /v1/chat/completions under the provider's baseURL,
//     always stream: true with stream_options.include_usage, tool_choice
//     "auto", max_tokens 32000 (scripted.Chat).
//   - The message is quoted: opencode run puts each message argument
//     holding a space in double quotes (its " escaped), and scripts are
//     found by that text (RunMessage).
//   - A title request comes first in every run (no tools, the system
//     prompt "You are a title generator", then "Generate a title for this
//     conversation:\n" and the message); it gets "OK." and is recorded as
//     unknown.
//   - Tools: bash, edit, glob, grep, read, skill, task, todowrite,
//     webfetch, write; a subagent the same without task and todowrite. A
//     call of a tool that does not exist is rewritten in the transcript
//     into a call of invalid ({tool, error}).
//   - Results carry no status: bash gives stdout and stderr as they came,
//     "(no output)" for none, and no exit status (the events have it in
//     the call's metadata: ToolUse.Exit); a failed call's error (a missing
//     file, an edit that does not match) comes back as plain text like an
//     output. Only the events say status "error", so Host.Run, not the
//     script, catches it.
//   - Paths outside the project end the run: a read or a bash command
//     naming one (cat /etc/hostname) needs the external_directory
//     permission, which opencode run refuses on the user's behalf
//     ("permission requested: external_directory (/etc/*);
//     auto-rejecting"); the model gets "The user rejected permission to
//     use this specific tool call.", and the run ends at once, in the
//     middle of the step, with exit status 0. A skill's directory is
//     allowed.
//   - Subagents: the task result is <task id="ses_…" state="completed">,
//     <task_result>, the subagent's last text, </task_result>, </task>;
//     the id is the task_id that continues it, as a new user message in
//     the same child session. The child's first user message is the
//     prompt as given (not quoted). The run's events have only the
//     parent's calls; opencode export <id> (2 to 5 s) has the child's, and
//     opencode db reads many sessions' in one start (Host.ToolUses).
//   - Skills: <available_skills> in the system prompt lists each skill
//     with its SKILL.md path (and the built-in customize-opencode); the
//     skill tool hands over <skill_content name="x">, "# Skill: x", the
//     body, "Base directory for this skill: DIR" and a sample of its
//     files.
//   - Plugins: shell.env's output.env starts empty and is laid over the
//     process's environment: a hook that extends PATH starts from
//     process.env.PATH.
//   - It fetches what it lacks: every configuration directory
//     (~/.config/opencode, a repository's .opencode) without a
//     node_modules and a package-lock.json whose root lists
//     @opencode-ai/plugin gets it installed from the npm registry in the
//     background; with a plugin present the run waits for it, offline
//     about a minute, then logs "background dependency install failed"
//     (PreinstallPlugin). Without rg on PATH it downloads ripgrep from
//     GitHub ("downloading ripgrep"), and offline the skill tool fails
//     with "ripgrep execution failed": the sessions' PATH holds rg.
//   - The session writes nothing into the repository (its snapshots are
//     under ~/.local/share/opencode).
//
// Left for following the skill in OpenCode: task takes no model (a
// subagent runs on its agent's model, else the session's; tiers would
// need one agent per tier in opencode.json), and allowed-tools means
// nothing to OpenCode: what opencode run allows by default (bash, edit,
// write, task inside the project, a skill's directory) is what a run
// gets.
package opencodehost
