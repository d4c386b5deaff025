package geminihost

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The follower (internal/dev/follower) over Gemini CLI's tools
// (harness.Adapter), 0.61.0:
//
//	Bash   run_shell_command{command}: the output wrapped, "Exit Code: N"
//	       only when not 0 (ParseShell)
//	Read   read_file{file_path, start_line, end_line}: the text,
//	       unnumbered; past 2000 lines a notice before it names the
//	       start_line the file goes on from (ParseRead)
//	Write  write_file{file_path, content}
//	Skill  activate_skill{name}: the body and the folder's tree, whose
//	       root is the skill's folder (ParseSkill)
//	Agent  invoke_agent{agent_name: generalist, prompt}: the subagent's
//	       complete_task result, with no agent id (the ledger records
//	       none); the wire makes the subagent's last text that call

// Agent is the agent every dispatch must run: the CLI's built-in
// generalist, with the session's tools. The dispatch takes the one
// host-gemini.md names (AgentCall.Type); the tests check it is this one.
const Agent = "generalist"

// adapter is Gemini CLI as the shared scenarios drive it (harness.Host).
type adapter struct{}

// Host is Gemini CLI: its file of the skill is host-gemini.md.
func (adapter) Host() string { return "gemini" }

func (adapter) Facts() harness.Facts {
	return harness.Facts{
		Parallel: true,
		Reads:    harness.Whole,
		Dispatch: harness.Dispatch{Call: "invoke_agent", Field: "agent_name", Agent: Agent},
		Calls:    harness.OneCallEach("run_shell_command", "read_file", "activate_skill", "invoke_agent"),
	}
}

// Start makes a host for repo with the skill installed (its policy
// among the install), the user's settings letting read_file read the
// git-ignored packages, and the user's own rules for what sc's subagents
// run (userRules).
func (adapter) Start(t *testing.T, repo string, sc follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	h.Timeout = 6 * time.Minute
	dir := h.InstallSkill()
	if err := h.WriteSettings(Settings()); err != nil {
		t.Fatal(err)
	}
	h.Policy(userRules(sc))
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played { return h.Run(prompt, s).Played })
}

// userRules are the rules a user gives a headless run of the skill,
// beside the install's: write_file for the reports and the code, and the
// commands the subagents run: git add, git commit and the plan's tests
// (a commandPrefix names a command's start).
func userRules(sc follower.Scenario) string {
	prefixes := []string{"git add", "git commit"}
	if sc.Human.Side > 1 {
		// Tasks side by side: git -C <worktree>, and a cd to it before
		// a test (a prefix names a command's start, not its subcommand).
		prefixes = append(prefixes, "git -C", "cd")
	}
	for _, t := range sc.Tasks {
		if name, _, _ := strings.Cut(t.Test, " "); t.Test != "" && !slices.Contains(prefixes, name) {
			prefixes = append(prefixes, name)
		}
	}
	quoted := make([]string, len(prefixes))
	for i, p := range prefixes {
		quoted[i] = strconv.Quote(p)
	}
	return "[[rule]]\ntoolName = \"write_file\"\ndecision = \"allow\"\npriority = 100\n\n" +
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [" + strings.Join(quoted, ", ") + "]\ndecision = \"allow\"\npriority = 100\n"
}

func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	r := a.Call("run_shell_command", map[string]any{"command": command})
	sh := ParseShell(r)
	out := sh.Output
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if sh.Error != "" {
		out = sh.Error
	}
	return follower.Result{Text: out, IsError: r.IsError || sh.ExitCode != 0}
}

// Read reads lines offset.. (1 when 0) of path, limit of them (0: as
// many as the tool gives, 2000), with one read_file call; a read the
// tool stopped short says where the file goes on (Next).
func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	end := 0
	if limit > 0 {
		end = max(offset, 1) + limit - 1
	}
	r := a.Call("read_file", readArgs(path, offset, end))
	if r.IsError {
		return follower.Result{Text: r.Text, IsError: true}
	}
	rd := ParseRead(r)
	text := rd.Content
	if rd.Next > 0 && !strings.HasSuffix(text, "\n") {
		text += "\n" // a part that stops before the file's end comes without its last newline
	}
	return follower.Result{Text: harness.Numbered(text, max(offset, 1), limit), Next: next(rd, limit)}
}

// next is the line a read the tool stopped short of limit goes on from;
// 0 for one that gave what was asked, or reached the end.
func next(rd Read, limit int) int {
	if rd.Next == 0 || limit > 0 && rd.To-rd.From+1 >= limit {
		return 0
	}
	return rd.Next
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	r := a.Call("write_file", map[string]any{"file_path": path, "content": content})
	return follower.Result{Text: r.Text, IsError: r.IsError}
}

// Skill activates the skill and hands over its body after the line that
// names its folder, as the follower reads a skill.
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	r := a.Call("activate_skill", map[string]any{"name": name})
	sk := ParseSkill(r)
	if r.IsError || sk.Dir == "" {
		return follower.Result{Text: "activate_skill handed over no skill: " + r.Text, IsError: true}
	}
	return follower.Result{Text: follower.BaseDirPrefix + sk.Dir + "\n\n" + sk.Instructions + "\n"}
}

// Agents dispatches the follower's subagents together: several
// invoke_agent calls in one turn, which Gemini CLI runs at once
// (host-gemini.md, side by side).
func (adapter) Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult {
	calls := make([]scripted.Grouped, len(cs))
	for i, c := range cs {
		if c.Continue != "" {
			a.Failf("%s: only new dispatches go together", c.Description)
		}
		a.HandleTrimmed(c.Prompt, subs[i])
		calls[i] = scripted.Grouped{Name: "invoke_agent", Input: invokeInput(c)}
	}
	out := make([]follower.AgentResult, len(cs))
	for i, r := range a.CallGroup(calls) {
		out[i] = answer(r)
	}
	return out
}

// Agent runs the follower's subagent with invoke_agent as the
// generalist, on the session's model (the text's tiers name none here),
// and reads its complete_task result.
func (adapter) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	a.HandleTrimmed(c.Prompt, sub)
	return answer(a.Call("invoke_agent", invokeInput(c)))
}

// invokeInput is c as invoke_agent's input.
func invokeInput(c follower.AgentCall) map[string]any {
	return map[string]any{"agent_name": c.Type, "prompt": c.Prompt}
}

// answer is the subagent's answer in an invoke_agent result: the
// response its complete_task gave, else the result as it came.
func answer(r scripted.Result) follower.AgentResult {
	s := ParseSubagent(r)
	var res struct{ Response string }
	if json.Unmarshal([]byte(s.Result), &res) == nil && res.Response != "" {
		return follower.AgentResult{Reply: strings.TrimSpace(res.Response)}
	}
	return follower.AgentResult{Reply: strings.TrimSpace(s.Result)}
}
