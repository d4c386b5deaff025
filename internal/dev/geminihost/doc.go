// Package geminihost runs the skill in the real Gemini CLI (the version
// pinned in internal/dev/hostcli), offline, against the scripted model
// speaking the Gemini API (scripted.Gemini): one host of the shared
// harness (internal/dev/harness). It holds what is Gemini CLI's: the
// session's environment and the user's settings and rules (setup.go),
// the -o stream-json events (events.go) and what every session must hold
// (host.go), the CLI's calls over a conversation and what comes back for
// them (calls.go), the adapter of the follower's tools (follow.go), and
// the round trips that found how the CLI behaves (roundtrips_test.go).
// These notes are of 0.61.0.
//
// # The suite
//
// make test-host-gemini runs the shared scenarios (TestFollow,
// harness.RunScenarios), then the round trips. In the scenarios the
// skill is installed by the project's installer (--host gemini: the
// folder in ~/.gemini/skills/subagent-driven-development/ and the policy
// ~/.gemini/policies/sdd-go.toml), with no --approval-mode, no yolo.
// What a user gives the run, beside the install (Start):
//
//   - ~/.gemini/settings.json: "context": {"fileFiltering":
//     {"respectGitIgnore": false}}, without which read_file refuses every
//     review package (git ignores the workspace);
//   - a policy of their own for what the subagents run: write_file, and
//     run_shell_command for the prefixes "git add", "git commit" and the
//     plan's test commands (userRules);
//   - a git identity in the environment (Identity): the CLI runs every
//     command with GIT_CONFIG_GLOBAL=/dev/null, so ~/.gitconfig's
//     user.name is not seen and an implementer's git commit would fail.
//
// Every session is held to no call of any conversation (the subagents'
// among them) that came back an error or a refusal, and no tool_result
// of its events that was not a success. The adapter: Bash is
// run_shell_command, Read one read_file with start_line and end_line,
// Write is write_file, the skill is activate_skill (its tree's root is
// <skill dir>), a dispatch is invoke_agent of the generalist, whose
// conversation the wire ends with complete_task (the follower's last
// words as {"response": …}); no agent id, so the ledger records
// implementer=none, and a fix round is a new implementer. It keeps
// harness.FewResumes: with every state (SDD_HOST_RESUMES=all) a session
// took 20 to 80 s under load, and 24 of the 36 scenarios fit the 20
// minutes host_run allows. The micro-tasks are off: the batch's
// implementer got no result for its 20th call (Task 6's commit; the
// generalist runs at most 20 turns, below) and the session was killed.
//
// What following the skill found:
//
//   - Every git diff failed. The CLI adds eight git settings to every
//     command's environment (GIT_CONFIG_KEY_n, after the user's own, so
//     nothing overrides them), one of them diff.external set to the empty
//     string, which git takes for a program to run: "error: cannot run :
//     No such file or directory / fatal: external diff died". The
//     reference's review-package fails there for every package; ours runs
//     git diff --no-ext-diff (docs/spec.md, diff12).
//   - The loop check. After 30 turns of one prompt the CLI asks a model
//     (a side request with a responseJsonSchema) whether the session is
//     looping; a scripted confidence of 1 stopped the session in the
//     middle of a fix round. The wire answers a fraction 0.
//   - Single quotes work with the policy. A commandPrefix is matched
//     against the command's JSON text followed by white space or a quote,
//     so '<skill dir>/bin/sdd-ledger', the form every other host file
//     uses, is allowed as the double-quoted one is; each command of a &&
//     chain is checked, and the text's chains run.
//   - A subagent's last text is not its answer: the generalist must call
//     complete_task. The wire sends a subagent's text turn as that call,
//     which is what a model does, so the follower's subagents are
//     unchanged.
//   - Nothing is compacted: the scripted model reports a token count of 1
//     a request.
//
// # What the round trips prove
//
// Each is a real session on a host of its own (roundTrip: a HOME holding
// a space and an é, a stand-in skill whose commands print their
// arguments). Traced with strace, a session connects to nothing but the
// server (and nscd's socket).
//
//   - TestDefaultModeOffersNoShellAndNoSkill: a headless session in the
//     default approval mode is offered read_file, invoke_agent and the
//     search tools, but no run_shell_command, write_file, replace or
//     activate_skill: the default policy denies them when no one can be
//     asked, and a tool denied outright is left out of the request. A
//     skill's allowed-tools changes nothing (the CLI reads name and
//     description of the front matter, nothing else). (--approval-mode
//     auto_edit adds write_file, replace, web_fetch; yolo everything.)
//   - TestShellUnderTheCommandsPolicy: the narrowest rule for our four
//     commands is a user policy in ~/.gemini/policies/ (below). With it
//     the tool is offered; "<skill dir>/bin/sdd-ledger" look plan.md
//     runs, so does a && chain of the four; its exit status comes back.
//     git status, our command && rm …, and the path unquoted are denied
//     ("Tool execution denied by policy."); … > out.txt is refused as
//     needing a confirmation ("Tool execution for "Shell" requires user
//     confirmation, which is not supported in non-interactive mode.",
//     unless the rule sets allowRedirection = true). A refusal is the
//     call's error; the session goes on, and the events mark the call
//     error, type policy_violation.
//   - TestShellUnderTheAllowList: --allowed-tools
//     "run_shell_command(echo)" and "tools": {"allowed": […]} in
//     settings.json do the same, and warn that they are deprecated in
//     favour of the policy engine.
//   - TestShellOutput: a command runs as bash -c, stdout and stderr
//     together, wrapped (Shell). An answer over 40,000 characters
//     (tools.truncateToolOutputThreshold) is cut to its first 8,000 and
//     last 32,000 around "... [N characters omitted] ...", after a line
//     naming the file under ~/.gemini/tmp/<project>/tool-outputs/ that
//     holds it whole. Commands get TERM=xterm-256color, PAGER=cat,
//     GEMINI_CLI=1, and git with GIT_CONFIG_GLOBAL=/dev/null,
//     GIT_CONFIG_SYSTEM=/dev/null and the eight GIT_CONFIG_KEY_n
//     overrides (credential.helper, core.hooksPath, core.editor empty, …).
//   - TestSkill: a skill in ~/.agents/skills/<name>/ (or ~/.gemini/skills/)
//     is listed in the system prompt (<available_skills>: name,
//     description, <location> its SKILL.md's absolute path) and in
//     activate_skill's name enum, after the built-in skill-creator and
//     antigravity-support. activate_skill needs a rule of its own in
//     headless mode; the narrowest allows our skill alone (below).
//     Activation hands over the body and the folder's tree (Skill) and
//     adds the folder to the workspace: read_file reads its host file,
//     and its commands run by their quoted paths. Another skill is
//     denied.
//   - TestSkillsList: gemini skills list needs no model and lists each
//     user skill with its SKILL.md. A name in both ~/.agents/skills/ and
//     ~/.gemini/skills/ is listed and offered once, from ~/.agents/skills/
//     ("Skill conflict detected: … is overriding …" on stderr).
//   - TestSubagent: invoke_agent (agent_name, prompt, wait_for_previous)
//     runs the built-in generalist or an agent of ~/.gemini/agents/*.md
//     (its body the system prompt). The subagent's conversation starts
//     with the prompt alone; it has the session's tools under the same
//     policy, plus complete_task, without invoke_agent. It ends with
//     complete_task ({"result": {"response": "…"}} for the generalist,
//     {"result": "…"} for a custom agent), and the call returns
//     "Subagent 'NAME' finished.\nTermination Reason: GOAL\nResult:\n…"
//     (Subagent). A finished subagent cannot be written to again: the
//     answer names no id, and a second invoke_agent is a new conversation
//     that knows nothing of the first.
//   - TestReadFileInParts: read_file stops at 2,000 lines, with a notice
//     naming the start_line to go on from (Read), and cuts a line at
//     2,000 characters; under 2,000 lines a file comes whole however
//     large (151 KB in one read). It refuses a path outside the workspace
//     ("Path not in workspace: …") and a file git ignores ("… is ignored
//     by configured ignore patterns."), which the skill's workspace under
//     .superpowers/ is, unless respectGitIgnore is false.
//
// The narrowest rules, for the commands and for the skill:
//
//	[[rule]]
//	toolName = "run_shell_command"
//	commandPrefix = ["\"<skill dir>/bin/sdd-workspace\"", …, "\"<skill dir>/bin/sdd-ledger\""]
//	decision = "allow"
//	priority = 100
//
//	[[rule]]
//	toolName = "activate_skill"
//	argsPattern = '"name":"subagent-driven-development"'
//	decision = "allow"
//	priority = 100
//
// # The session
//
// `node gemini.js -o stream-json -p PROMPT` (Args) in the repository,
// the model left at auto, as a user has it, in Host.Env:
// GEMINI_CLI_TRUST_WORKSPACE (without it: "Gemini CLI is not running in
// a trusted directory", and the session stops), the system settings
// paths into HOME (admin policies in /etc/gemini-cli/policies have no
// such switch), and hostcli.Gemini's GEMINI_CLI_NO_RELAUNCH. Without
// settings.json's auth type: "Invalid auth method selected."; without
// usageStatisticsEnabled false the CLI looks up play.googleapis.com, the
// one name off loopback strace showed; no update check was seen in
// headless mode.
//
// # The wire
//
// A session's first user content holds a <session_context> part (date,
// OS, the workspace and its tree) before the prompt, which names no
// conversation (promptOf); a subagent's holds its prompt alone. A call
// the model makes comes back with its id kept (the CLI makes one up when
// there is none) and thoughtSignature "skip_thought_signature_validator".
// Before a session's first turn, and before each subagent's, comes the
// routing classifier: generateContent on gemini-3.5-flash-lite, no tools,
// responseMimeType application/json and a responseJsonSchema
// (complexity_reasoning STRING, complexity_score INTEGER). The wire
// answers JSON of any such schema; a score of 1 routes the turns to
// gemini-3.8-flash. A wrong answer does not stop the session, but costs:
// {} is logged on stderr as a ZodError ("[Routing]") and routing falls
// back; text that is not JSON is asked again (five side requests in all,
// 1 min 41 s) and leaves a report in TMPDIR before the fallback.
//
// # How the CLI behaved
//
//   - Install: npm adds 7 packages, 100 MB (hostcli.Gemini). Even
//     --version writes ~/.gemini/projects.json; a session adds
//     installation_id, history/ and tmp/<project>/ (its chat as JSON
//     lines, the saved outputs). stderr always starts with "Warning:
//     256-color support not detected".
//   - Subagents: the generalist runs at most 20 turns and 10 minutes (the
//     bundle's defaults; agents.overrides.generalist.runConfig in
//     settings.json changes them); a custom agent 30 turns, and takes a
//     model: in its front matter (invoke_agent takes none). A subagent
//     that answers with text instead of complete_task gets one more turn,
//     a user message "You have stopped calling tools without finishing.
//     …"; failing that the call returns Termination Reason:
//     ERROR_NO_COMPLETE_TASK_CALL. The events show the invoke_agent call
//     alone; the subagent's calls are in the server's requests.
//   - Policies: rules live in ~/.gemini/policies/*.toml (user tier); a
//     project's .gemini/policies is ignored for now (the CLI's docs say).
//
// # The installer and the host's file, as decided
//
//   - Where: ~/.gemini/skills/subagent-driven-development/, not
//     ~/.agents/skills/: Codex and Copilot CLI read that folder too, so a
//     copy there would be a second one for each of them
//     (TestOneCopyForEachHost). A copy a user puts in ~/.agents/skills/
//     overrides Gemini's own, listed once.
//   - Permissions: the install writes ~/.gemini/policies/sdd-go.toml (the
//     four commands by their single-quoted paths, the folder as named and
//     as resolved; activate_skill for this skill), with a manifest of its
//     own in that folder; --uninstall removes it. Reviewers read the
//     packages with read_file under respectGitIgnore false, the user's
//     setting, which the installer names and leaves alone; the
//     subagents' writes, git and tests are the user's rules.
//   - host-gemini.md says: the command's single-quoted form, <skill dir>
//     as the activated tree's root, invoke_agent of the generalist ending
//     with complete_task, a fix round as a new implementer, read_file's
//     2000-line parts and start_line, the 40,000-character cut, Exit
//     Code: N, and the setting.
package geminihost
