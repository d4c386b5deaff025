// Package copilothost runs the skill in the real GitHub Copilot CLI (the
// version pinned in internal/dev/hostcli), offline (COPILOT_OFFLINE),
// against the scripted model (internal/dev/scripted) speaking Chat
// Completions, the BYOK provider's default wire, and the Responses API:
// one host of the shared harness (internal/dev/harness). It holds what is
// Copilot's: the session's environment (env.go: the provider at the
// scripted model, its key, its prompt limit, a cache shared by the
// sessions), its calls (calls.go), its adapter of the follower's tools
// and the user's --allow-tool rules (follow.go), and its session's JSON
// events and what every session must hold (host.go). These notes are of
// 1.0.102.
//
// # The suite
//
// TestFollow runs the shared scenarios on Chat Completions, each
// dispatch in the background and waited for with read_agent, the fix
// round sent to Task 2's implementer with write_agent; a 7500-line
// package's 2000-line parts are read in views cut at about 20 KB (8 of
// the 9 parts take more than one view). Every session is held to no tool
// result that failed or was refused and no bash command that exited
// non-zero. TestFollowResponses runs the walk-through, the large package
// and the foreign ledger again with COPILOT_PROVIDER_WIRE_API=responses
// against scripted.Responses (Codex's wire): they pass as they are; a
// resume tests the text, which the wire does not change. The micro-tasks
// are off: the batch's implementer's create of palette/p1.txt fails,
// "Parent directory does not exist" (the adapter writes no missing
// folder).
//
// The permissions a user gives the run, and nothing more (no
// --allow-all-tools, no --allow-all-paths):
//
//	copilot -p … --add-dir ~/.copilot/skills/subagent-driven-development \
//	  --allow-tool write \
//	  --allow-tool "shell('<skill dir>/bin/sdd-ledger':*)"   # and sdd-workspace, task-brief, review-package \
//	  --allow-tool 'shell(git add)' --allow-tool 'shell(git commit)' \
//	  --allow-tool 'shell(sh)' --allow-tool 'shell(test)'     # the plan's test commands, by their command
//
// # How the CLI behaved
//
//   - The skill's folder is outside the project. The CLI checks every
//     path a tool names against the working directory (and TMPDIR): the
//     skill's bin/ commands were refused, even with a shell rule that
//     matched, until --add-dir named the folder. Loading the skill and
//     viewing its files needed nothing.
//   - A shell rule matches the command as written:
//     shell('<dir>/bin/sdd-ledger':*) allows the quoted command; the same
//     path unquoted, or shell(sdd-ledger:*), does not. A rule names a
//     command, not its arguments: shell(sh check1.sh) allowed nothing,
//     shell(sh) did; git's take their subcommand (shell(git add)). A
//     redirection (printf … > f) needs --allow-all-tools, so Write is
//     create and edit, never the shell. A chain is allowed only when every
//     part is. echo needed no rule.
//   - allowed-tools is not honoured: the skill's front matter
//     (Bash(sdd-ledger:*), …) pre-approved nothing; without the shell
//     rules the first Look was refused ("Permission denied because no
//     interactive user response was available").
//   - The key is masked in the output: every occurrence of
//     COPILOT_PROVIDER_API_KEY's text is replaced by ****** in the JSON
//     events (a key x turned "exit code" into "e******it code"), so the
//     suite's key is a string no output holds (Key).
//   - The prompt is not the message: the user message is
//     <current_datetime>…</current_datetime>, a blank line, then the
//     prompt with its trailing white space dropped (a subagent's too).
//   - Every new HOME unpacks the CLI (235 MB into
//     $XDG_CACHE_HOME/copilot/pkg, about 3 s): the sessions share one
//     cache beside the install (Cache).
//   - Tools: bash (command and a required description; the result ends
//     "<shellId: N completed with exit code C>", the model's only sign of
//     a failure: the event says success: true for any code), view (the
//     text unnumbered; a whole file over 20 KB is refused, "File too large
//     to read at once"; a range stops at about 20 KB in the middle of a
//     line with "[Output truncated. Use view_range=[N, ...] …]", the cut
//     line N-1 lost if one goes on from N), create (refuses a path that
//     exists), edit, skill ({"skill": name}: the result says it loaded;
//     the text comes as a user message beside it, <skill-context
//     name="…"> with "Base directory for this skill: …" first), task
//     (agent_type among six, general-purpose the one with every tool;
//     name, description, prompt, mode sync or background, an optional
//     model), read_agent, write_agent, list_agents, and sql, grep, glob,
//     read_bash, stop_bash, list_bash.
//   - Subagents: a sync task returns the agent's last text alone, with no
//     agent id, and its agent cannot be messaged (write_agent to the id
//     list_agents shows for it fails, "Agent is not running in background
//     mode"). A background one answers "Agent started in background with
//     agent_id: <uuid>. …"; read_agent with wait: true (timeout at most
//     180 s) blocks until its turn ends and gives its turns ("Agent is
//     idle (waiting for messages). … status: idle, …", then [Turn 0] and
//     its answer); write_agent {agent_id, message} ("Message delivered to
//     agent …") starts its next turn, the message its user text after a
//     <current_datetime>, and the next read_agent shows [Turn 1],
//     [Message], the message, [Response], the answer. So host-copilot.md
//     dispatches in the background and waits with read_agent; the ledger
//     records each implementer's agent id; fix rounds 1-3 go to the
//     implementer with write_agent (its row "a fix round"). The request's
//     tools describe write_agent as for "running or idle background
//     agents … same-task follow-ups where retained context is useful".
//     The JSON events carry the subagents' tool calls (parentToolCallId).
//   - No request besides the conversations' turns.
//   - It compacts a long conversation: for a BYOK model it knows no limits
//     of, the CLI summarized a reviewer's conversation once it neared
//     about 400 KB (after twenty views of a 300 KB package). The next
//     request began "Some of the conversation history has been summarized
//     to free up context.", so no script answered it, and the calls made
//     before were made again ("Path already exists" for the review file).
//     The suite tells the CLI the model's prompt limit
//     (MaxPromptTokens), and the conversations stay whole; a user with a
//     real model's limit would see the same summary in a reviewer that
//     reads a large package.
package copilothost
