// Package codexhost runs the skill in the real OpenAI Codex CLI (the
// version pinned in internal/dev/hostcli), offline, against the scripted
// model (internal/dev/scripted) speaking the Responses API: one host of
// the shared harness (internal/dev/harness). It holds what is Codex's: a
// CODEX_HOME whose config.toml names the scripted model as the one
// provider (config.go), its calls over a conversation (calls.go,
// skills.go: exec_command and its polls, spawn_agent, wait_agent,
// send_input, resume_agent, close_agent, the skills list), its adapter of
// the follower's tools (follow.go), and `codex exec --json`'s events and
// what every session must hold (host.go). These notes are of 0.171.0.
//
// # The suite
//
// The skill is installed by install-skill --host codex into
// $CODEX_HOME/skills/, and the session's PATH holds no copy of the
// commands: they run from the skill's bin/ by path, as host-codex.md
// says. TestFollow runs the shared scenarios: Bash and Read are
// exec_command (sed -n in parts that fit under the output's cut, the
// exit code read from "Process exited with code N"), Write is printf in
// parts (no apply_patch for a model outside the catalog), the skill is
// read from the path the skills list gives, and a dispatch is
// spawn_agent, wait_agent (again on a timeout) and close_agent: three
// tool calls a dispatch, so the walk-through's tasks are 8/15/8 tool
// calls for the text's 4/7/4 steps. Sessions run with approval_policy
// "never" and danger-full-access: under the default workspace-write
// sandbox an implementer's git commit fails ("Unable to create
// '…/.git/index.lock': Read-only file system"). The micro-tasks pass
// (33 s and 38 s) and are off, for CI's time.
//
// The round trips, each a real `codex exec --json` session (0.4 to 2 s;
// 2 model requests for one command, 9 for the subagent with its fix
// round):
//
//   - TestExecEcho: the model runs echo hi with exec_command and reads hi
//     and exit code 0 from the answer; the CLI makes no request of its own
//     besides the model's turns.
//   - TestExecFailure: echo oops >&2; exit 3 comes back as oops with code
//     3, and the function_call_output is a plain string with no error
//     field (the events mark the command failed, the model is not told).
//   - TestExecFreshShell: each exec_command is a new process in the
//     session's directory (a cd or an export does not carry over), with
//     the session's PATH after two directories of the CLI's own.
//   - TestExecPolls: a command still running after yield_time_ms is
//     polled with write_stdin until it exits.
//   - TestSubagent: spawn_agent starts a subagent whose own conversation
//     (named by its first prompt, the spawn message) runs a command and
//     answers; the parent reads the answer with wait_agent; a send_input
//     to the finished subagent continues its conversation (a fix round)
//     and a second wait_agent reads the new answer.
//   - TestSkillListedAndRead: a skill in $CODEX_HOME/skills/x/SKILL.md is
//     listed in the <skills_instructions> message with its name,
//     description and path, and the model reads it with cat.
//   - TestCommandsNotOnPath: a session's shell finds none of the four
//     commands by name: the CLI puts no skill's bin/ on PATH.
//
// # The wire
//
// POST /v1/responses with stream: true (scripted.Responses). The CLI
// makes its turn from the response.output_item.done items and needs
// response.completed (with the response's id) before the stream ends:
// without it, it reconnects five times ("Reconnecting... 1/5") and fails
// the turn. A function_call of the subagent tools carries namespace
// "multi_agent_v1". The next request carries the whole conversation in
// input: developer messages (the system prompt, <skills_instructions>,
// permissions), the user's <environment_context>, the prompt, then each
// function_call and its function_call_output. What the scripts parse:
//
//   - exec_command and write_stdin: "Chunk ID: …", "Wall time: …", then
//     "Process exited with code N" (or "Process running with session ID
//     N"), "Original token count: N", "Output:" and the output, stdout and
//     stderr together.
//   - spawn_agent: {"agent_id":"<thread id>","nickname":"Fermat"}.
//   - wait_agent: {"status":{"<id>":{"completed":"<its last
//     text>"}},"timed_out":false}, or an empty status with
//     "timed_out":true (Wait waits again). A finished subagent is also
//     announced to the parent by a user message,
//     <subagent_notification>{"agent_path":"<id>","status":{…}}</subagent_notification>,
//     which came after the first wait_agent's output; Wait reads
//     wait_agent's answer, not these.
//   - send_input: {"submission_id":"…"}; the subagent's next request has
//     the message as a user message after its last answer.
//
// # How the CLI behaved
//
//   - The platform build is an npm alias (hostcli.Codex); the binary is
//     vendor/x86_64-unknown-linux-musl/bin/codex (315 MB, static; the
//     Linux builds serve glibc and musl alike), beside
//     codex-code-mode-host, rg and bwrap.
//   - Every start, --version included, links helpers (apply_patch,
//     codex-linux-sandbox) into $CODEX_HOME/tmp/arg0-linux/ and puts that
//     directory on the tools' PATH; when CODEX_HOME is under the temporary
//     directory it refuses, with a warning on stderr. So a session's HOME
//     and TMPDIR are siblings.
//   - Every start writes four bundled skills into $CODEX_HOME/skills/.system
//     (imagegen, openai-docs, skill-creator, skill-installer), listed to
//     the model beside ours, and keeps its state in SQLite files there.
//   - The tools' PATH is <package>/vendor/<triple>/codex-path (its rg),
//     the helpers' directory, then the session's PATH, kept as given with
//     allow_login_shell = false. Commands run as /bin/bash -c '<cmd>'. The
//     tools get the whole environment, the provider's key variable
//     included, plus CODEX_CI=1, CODEX_THREAD_ID, CODEX_TOOL_CALL_ID,
//     NO_COLOR, PAGER=cat, GIT_PAGER=cat, TERM=dumb, LC_ALL=C.UTF-8.
//   - With a model outside its catalog (Model) the tools are
//     exec_command, write_stdin, request_user_input, view_image, the
//     multi_agent_v1 namespace (spawn_agent, wait_agent, send_input,
//     resume_agent, close_agent), the goal tools and web_search: no
//     apply_patch tool (the system prompt still speaks of it; the helper
//     is on PATH). The stream starts with an error item, "Model metadata
//     for `sdd-scripted` not found", which Host.Run accepts.
//   - An output over max_output_tokens is cut to about 10 KB: "Warning:
//     truncated output (original token count: N)", "... N bytes omitted
//     ...", its head and its tail, whatever max_output_tokens asks for a
//     model outside the catalog. SKILL.md (13.8 KB) is over it: the
//     follower reads it in two parts; a model that cats it loses its
//     middle. Left: SKILL.md under 10 KB, or a line in Codex's listing of
//     how to read it.
//   - A command still running after yield_time_ms (10 s by default) is
//     answered with its session id; a session that ends with one still
//     running logs "failed to record rollout items" on stderr.
//   - codex exec prints "Reading additional input from stdin..." on
//     stderr even with stdin on /dev/null (the prompt is an argument).
//   - The --json events hold the main thread's items only: a subagent's
//     calls show as collab_tool_call items (spawn_agent, wait,
//     send_input) with the subagents' states, never its commands; those
//     are in the server's requests, where a subagent's carry the header
//     X-Openai-Subagent: collab_spawn.
//   - On every start the curated plugin sync runs git ls-remote
//     https://github.com/openai/plugins.git with the git on PATH, then
//     tries GitHub over HTTP. In the namespace both fail at the DNS lookup
//     (the only connection off loopback strace shows) and the session goes
//     on; --disable plugins stops it, and with it plugin skills.
//
// # What following the skill showed
//
//   - Fix rounds 1-3 continue the implementer (host-codex.md's row "a fix
//     round"), though the host's file closes each agent once it has
//     answered, for the limit below: resume_agent ({"id"}, answering
//     {"status":"pending_init"}) opens it again, send_input ({"target",
//     "message"}) gives it the Fix prompt as its next user message,
//     wait_agent has its answer, and close_agent closes it again
//     ({"previous_status":{"completed":"…"}}).
//   - spawn_agent takes a model, but only a name of its catalog ("Unknown
//     model `sonnet` for spawn_agent"): host-codex.md gives the tiers no
//     model, and every agent runs on the session's.
//   - A finished agent counts toward the agent limit until close_agent:
//     the seventh spawn_agent of a run failed with "collab spawn failed:
//     agent thread limit reached" before the host's file said to close
//     each one.
//   - A path with a space breaks an unquoted command: the host's file
//     writes the command's path quoted.
//   - A command's output can be lost. The CLI collects a command's output
//     until the command exits, then at most 50 ms more (unified exec's
//     POST_EXIT_CLOSE_WAIT_CAP, openai/codex's process_manager.rs): what
//     reaches it later is not in the answer, which then reads as an empty
//     success. On the shared machine under load a final reviewer once read
//     "0 bytes" of a package. The adapter reads a part that came back
//     empty again, twice at most, as a model that knows the file holds
//     something would; a command whose output is lost otherwise fails its
//     step loudly (the follower finds no line it needs), never passes.
package codexhost
