// Package droidhost runs the skill in the real Factory Droid CLI (the
// version pinned in internal/dev/hostcli), offline, against the scripted
// model speaking Chat Completions (scripted.Chat): one host of the shared
// harness (internal/dev/harness). It holds what is Droid's: the user's
// settings.json naming the scripted model, the session's environment and
// the checks every session must hold (host.go), the -o stream-json
// events (events.go), Droid's calls over a conversation and what comes
// back for them (calls.go), the adapter of the follower's tools
// (follow.go), and the round trips that found how the CLI behaves
// (roundtrips_test.go). These notes are of 0.225.2.
//
// # The suite
//
// make test-host-droid runs the shared scenarios (TestFollow,
// harness.RunScenarios), then the round trips. The skill is installed by
// the project's installer (--host droid): the folder in
// ~/.factory/skills/ and the four commands, by their single-quoted
// paths, in the commandAllowlist of ~/.factory/settings.json, merged into
// the user's settings (UserSettings: the scripted model as a custom
// model, and subagentAutonomyLevel medium). A session is `droid exec -o
// stream-json --auto high --model custom:sdd-scripted PROMPT`: droid exec
// offers its Task tool, the only way to dispatch, at --auto high alone.
// The adapter: Bash is Execute (two for a git add and commit,
// Droid-Shield's rule below), Read is Read, read on past a cut, Write is
// Create, the skill is the Skill tool, a dispatch is Task with
// subagent_type worker and await true, whose session id the ledger
// records, and a fix round that continues the implementer is Task with
// resume. It resumes from two states (resumeStates).
//
// The round trips, each a `droid exec` session in a HOME holding a space
// and an é:
//
//   - TestExecute: a command's result is its output, stdout and stderr
//     together, and "\n\n[Process exited with code N]"; a failure starts
//     "Error: Command failed (exit code: N)" and the events mark it an
//     error; no output reads "Command completed successfully". Each
//     command is a shell of its own in the session's folder, killed
//     after 60 s unless the call's timeout says more. The schema requires
//     summary, command, riskLevelReason and riskLevel; Droid refuses a
//     call without riskLevelReason ("Execute call rejected: missing
//     required parameter …") and takes one without summary.
//   - TestTaskOnlyAtAutoHigh: droid exec offers Read, LS, Execute, Grep,
//     Glob and Skill; --auto low and medium add Edit, Create, TaskOutput,
//     TaskStop and ToolSearch; --auto high adds Task. --add-tools Task
//     below high is ignored.
//   - TestAllowlistAtLowAutonomy: at --auto low the install's
//     commandAllowlist runs the four commands, alone or in a && chain,
//     whatever risk the model gives them; another command above the
//     session's autonomy ends the whole run: exit 1, an error event
//     "Exec ended early: insufficient permission to proceed. …", and the
//     model is never told.
//   - TestTaskResume: Task with await returns "session_id: ID", a line
//     of advice and the subagent's last text; without await it returns
//     at once and the report comes later as a system message. The
//     subagent's conversation starts with Droid's system reminders and
//     the prompt inside a "# Task Tool Invocation" (its type, a
//     complexity, "---BEGIN TASK FROM PARENT AGENT---"); it runs on the
//     session's model with the session's tools but Task. Task with resume
//     and that id gives it the prompt as its next message, in "#
//     Follow-up Instructions", after its whole history. Droid-Shield,
//     which scans what a commit adds, refuses `git add … && git commit
//     …` in one Execute ("Droid-Shield cannot scan a commit whose index
//     or base may change earlier in the same command. Stage changes in a
//     separate Execute call, then commit."); apart, they commit.
//   - TestReadCut: Read gives the lines as they are, not numbered, at
//     most 2400 lines or 60,000 characters; a read given an offset or a
//     limit, or cut, ends with "<system-reminder>[Showing lines A-B of N
//     total lines(, truncated to 60k characters)]</system-reminder>", and
//     a cut one ends in the middle of line B.
//   - TestSkill: a skill of ~/.factory/skills/ or ~/.agents/skills/ is
//     listed in a system reminder of the first user message, with
//     Factory's twenty built-in skills (--disable-builtin-skills leaves
//     those out); the Skill tool hands over the body and SKILL.md's path
//     (<skill name="…" filePath="…">). A name in both folders is listed
//     once.
//
// # How the CLI behaved
//
//   - Install: @factory/cli 0.225.1 is a launcher whose optional
//     dependencies are the native builds; npm serves
//     @factory/cli-linux-x64 at 0.225.2 (no 0.225.1) and, here, no other
//     platform's. The binary is 243 MB (Bun); droid --version prints
//     0.225.2.
//   - Offline: FACTORY_AIRGAP_ENABLED=1 stops every outbound attempt and
//     tells the model it is on an isolated network; without it a session
//     tries Factory's hosts. No login is needed for a custom model.
//   - The model: settings.json's customModels {model, displayName,
//     baseUrl, apiKey, provider generic-chat-completion-api} ("openai"
//     speaks the Responses API), named custom:MODEL. Requests stream,
//     with max_tokens 32000 and temperature 1. Droid reads settings.json
//     as JSON with comments (the installer edits plain JSON only). A
//     session writes ~/.factory/sessions/, state/, logs/, cache/ and
//     snapshots/.
//   - Every conversation starts with a user message of system reminders
//     (the skills, the subagent types, the machine, the repository's
//     git status, the date), which names no conversation (promptOf).
//   - Execute requires riskLevelReason and riskLevel: the model rates
//     each command, and --auto low|medium|high runs what it rates up to
//     that; in droid exec a call above it ends the run (exit 1).
//     settings.json's subagentAutonomyLevel (off, low, medium, high,
//     inherit) is the subagents' ceiling: at low a subagent's git commit
//     ended its Task in an error ("Subagent session ended early: required
//     tool permission was rejected").
//   - A call that failed starts with "Error: " (Chat Completions carry no
//     error mark; the events have isError). An output past about 16 KB
//     loses its middle ("[... N lines skipped ...]"), the whole saved to
//     a file it names.
//   - The init event lists every tool of the build (Slack's, missions',
//     …), not the ones the model is offered.
//
// # The installer and the host's file, as decided
//
//   - Where: ~/.factory/skills/subagent-driven-development/
//     ($FACTORY_HOME_OVERRIDE/.factory/skills/), not ~/.agents/skills/.
//   - Permissions: the four commands by their single-quoted paths in
//     commandAllowlist (as named and as resolved), the narrowest entries
//     that run them at any autonomy; the user's other settings and
//     entries stay in their order, and --uninstall removes these alone.
//     Headless, Task needs --auto high, under which the model may run any
//     command it rates high: the README says so; subagentAutonomyLevel
//     medium keeps the subagents to what their git and tests need.
//   - host-droid.md says: the command's single-quoted form, <skill dir>
//     as the folder of the Skill tool's filePath, Task with subagent_type
//     worker and await true, a fix round as Task's resume of the
//     implementer's session id, Read's 2400 lines or 60,000 characters
//     and its cut line, Execute's 16 KB, the exit code's line, and the
//     risk level every Execute needs.
package droidhost
