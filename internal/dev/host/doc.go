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
// not becomes the answer (see Turns). A controller that follows the text:
//
//	controller := func(a *host.Turns) {
//		sk := a.Skill(host.SkillName) // the text as the host hands it over
//		v := host.Values{"plan file": "docs/plan.md", "N": "1"}
//		v["workspace"] = strings.TrimSpace(a.Step(sk, host.StepWorkspace, v))
//		v["base sha"] = strings.TrimSpace(a.Step(sk, host.StepBase, v))
//		a.Step(sk, host.StepBrief, v)
//		ag := a.Agent(host.Dispatch{Description: "Task 1", Prompt: p, Model: "sonnet"}, implementer)
//		n := a.Wait(ag) // ends the turn until the host sends the task notification
//		if n.Result != "DONE" {
//			a.Failf("implementer: %s", n.Result)
//		}
//		...
//	}
//
// The skill text is read as the controller gets it, from the Skill tool's
// result, never from the repository: Steps maps each step to the heading
// its command block stands under, Fill writes the placeholders' literal
// values in, and Turns.Step runs the block through the Bash tool exactly
// as filled.
//
// Host is a machine for sessions: an isolated HOME with the plugin
// installed (InstallPlugin) and a git identity, an isolated TMPDIR, a
// PATH of system directories only, and the repository. Host.Run runs
// `claude -p` there with stream-json output and fails the test on an
// error result, a failed script, or a controller Bash command that cds or
// uses a variable from an earlier call (CheckCommand). A later Run on the
// same host is a new session in the same HOME and repository, which is
// how a resume is tested. Host.PluginCost reads the token cost `claude
// plugin details` estimates for the installed plugin.
//
// Without the CLI ($SDD_CLAUDE_CODE unset) the session tests skip, and
// the rest (the server against a hand-played host, the shell check, the
// markdown reading) runs with Go and git alone. make test-host installs
// the CLI and runs everything, in a network namespace with only loopback
// up where it can. docs/host.md says how to run it and how to bump the
// CLI's version.
package host
