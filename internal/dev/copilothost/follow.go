package copilothost

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// The follower (internal/dev/follower) over Copilot CLI's tools
// (harness.Adapter), 1.0.102:
//
//	Bash   bash{command, description}: the output, then "<shellId: N
//	       completed with exit code C>", which says whether it failed
//	Read   view{path, view_range}: the file's text, unnumbered; a view
//	       stops at about 20 KB, mid-line, with "[Output truncated. Use
//	       view_range=[N, ...] …]", and a whole view of a larger file is
//	       refused ("File too large to read at once"): the rest is read
//	       from the cut line on until the range is whole
//	Write  create{path, file_text} for a file the conversation has not
//	       seen; one it has read or written is changed with edit{path,
//	       old_str: what it holds, new_str} (create refuses a path that
//	       exists)
//	Skill  skill{skill}: the result only says it loaded; the text comes
//	       beside it, <skill-context name="…">, the base directory first
//	Agent  task{name, description, prompt, agent_type general-purpose,
//	       mode background}: the result gives the agent id; then
//	       read_agent{agent_id, wait} until the agent's turn has ended:
//	       its answer is the last turn's text. A fix round that continues
//	       the implementer is write_agent{agent_id, message}, then
//	       read_agent the same way. (A sync task's result is the
//	       answer alone, and its agent cannot be messaged.)

// AgentType is the agent every dispatch must run: Copilot's
// full-capability agent, with every tool. The dispatch takes the one
// host-copilot.md names (AgentCall.Type); the tests check it is this one.
const AgentType = "general-purpose"

// adapter is Copilot CLI as the shared scenarios drive it
// (harness.Host), its model speaking wireAPI (COPILOT_PROVIDER_WIRE_API).
type adapter struct{ wireAPI string }

// Host is Copilot CLI: its file of the skill is host-copilot.md.
func (adapter) Host() string { return "copilot" }

func (ad adapter) Facts() harness.Facts {
	var resumes []string // nil: harness.FewResumes
	if ad.wireAPI == Responses {
		resumes = []string{} // a resume tests the text, which the wire does not change: the Completions suite's are enough
	}
	return harness.Facts{
		Model:     Model,
		AgentIDs:  true,
		Continues: true,
		Reads:     harness.Pieces,
		Dispatch:  harness.Dispatch{Call: "task", Field: "agent_type", Agent: AgentType},
		Calls: map[string]*regexp.Regexp{"Bash": harness.OneCall("bash"), "Read": harness.SomeCalls("view"), "Skill": harness.OneCall("skill"),
			"Agent": regexp.MustCompile(`^(task|write_agent) (read_agent )+$`)},
		Resumes: resumes,
	}
}

// Start makes a host for repo with the skill installed, its sessions run
// with the rules a user gives sc's run (userRules).
func (ad adapter) Start(t *testing.T, repo string, sc follower.Scenario) *harness.Sessions {
	h := New(t, repo, ad.wireAPI)
	h.Timeout = 5 * time.Minute
	dir := h.InstallSkill()
	h.Allow = userRules(sc, dir)
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played { return h.Run(prompt, s).Played })
}

// userRules are the rules a user gives a non-interactive run of the
// skill: --add-dir for the skill's folder (outside the repository, where
// the CLI's path check refuses it), its four commands as host-copilot.md
// writes them (quoted: a rule matches the command's text), the plan's
// git add, git commit and test commands for the subagents, and write
// (create and edit) for the reports and the code.
func userRules(sc follower.Scenario, skillDir string) []string {
	rules := []string{"--add-dir=" + skillDir, "write"}
	for _, c := range ship.Commands {
		rules = append(rules, "shell('"+skillDir+"/bin/"+c+"':*)")
	}
	rules = append(rules, "shell(git add)", "shell(git commit)")
	// A rule names a command (git's and gh's: with their subcommand),
	// not its arguments: "shell(sh check1.sh)" does not allow sh
	// check1.sh, "shell(sh)" does.
	for _, t := range sc.Tasks {
		if name, _, _ := strings.Cut(t.Test, " "); t.Test != "" && !slices.Contains(rules, "shell("+name+")") {
			rules = append(rules, "shell("+name+")")
		}
	}
	return rules
}

func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	sh := (&Turns{a}).Bash(command)
	return follower.Result{Text: sh.Output, IsError: !sh.Exited || sh.Code != 0}
}

var (
	truncatedRe = regexp.MustCompile(`\n*\[Output truncated\. Use view_range=\[(\d+), \.\.\.\] to continue reading\.[^\]]*\]\s*$`)
	tooLargeRe  = regexp.MustCompile(`^File too large to read at once`)
)

// Read reads lines offset.. (1 when 0) of path, limit of them (0: to the
// end): a whole read with one view when the file fits, else in as many
// views as the 20 KB cut needs, each from the line the last one cut.
func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	t := &Turns{a}
	from := max(offset, 1)
	if offset == 0 && limit == 0 {
		out := t.View(path, 0, 0)
		if !tooLargeRe.MatchString(out) && !truncatedRe.MatchString(out) {
			return follower.Result{Text: harness.Numbered(out, 1, 0)}
		}
	}
	to := -1
	if limit > 0 {
		to = from + limit - 1
	}
	var text strings.Builder
	for {
		out := t.View(path, from, to)
		m := truncatedRe.FindStringSubmatchIndex(out)
		if m == nil {
			text.WriteString(out)
			if out != "" && !strings.HasSuffix(out, "\n") {
				text.WriteString("\n") // a range that ends before the file's end comes without its last newline
			}
			return follower.Result{Text: harness.Numbered(text.String(), max(offset, 1), limit)}
		}
		next, _ := strconv.Atoi(out[m[2]:m[3]])
		// The line before next is cut: keep the whole lines before it,
		// and read it again.
		kept := out[:m[0]]
		i := strings.LastIndex(kept, "\n")
		if i < 0 || next-1 <= from {
			return follower.Result{Text: "a line of " + path + " is longer than a view shows:\n" + scripted.Clip(out, 500), IsError: true}
		}
		text.WriteString(kept[:i+1])
		from = next - 1
	}
}

// Write creates path, or changes it from what the conversation last saw
// in it.
func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	if old, ok := lastSeen(a, path); ok {
		if old == content {
			return follower.Result{}
		}
		return follower.Result{Text: a.Call("edit", map[string]any{"path": path, "old_str": old, "new_str": content}).Text}
	}
	return follower.Result{Text: (&Turns{a}).Create(path, content)}
}

// lastSeen is what the conversation last saw path hold: a whole view's
// text, a create's or an edit's new text.
func lastSeen(a *scripted.Turns, path string) (string, bool) {
	made := a.Made()
	for i := len(made) - 1; i >= 0; i-- {
		c := made[i]
		if c.Str("path") != path {
			continue
		}
		switch c.Name {
		case "create":
			return c.Str("file_text"), true
		case "edit":
			return c.Str("new_str"), true
		case "view":
			if !strings.Contains(string(c.Input), "view_range") && !tooLargeRe.MatchString(c.Output) && !truncatedRe.MatchString(c.Output) {
				return c.Output, true
			}
		}
	}
	return "", false
}

var skillContextRe = regexp.MustCompile(`(?s)^<skill-context name="[^"]*">\n(.*?)\n?</skill-context>\s*$`)

// Skill loads the skill with the skill tool and hands over the text that
// came beside the result.
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	r := (&Turns{a}).Skill(name)
	for _, n := range r.Notes {
		if m := skillContextRe.FindStringSubmatch(n); m != nil && strings.HasPrefix(m[1], follower.BaseDirPrefix) {
			return follower.Result{Text: m[1]}
		}
	}
	return follower.Result{Text: "the skill tool handed over no skill text: " + r.Text, IsError: true}
}

// Agent runs the follower's subagent with the task tool, in the
// background, as Copilot's general-purpose agent, on the session's model
// (the text's tiers name no model here), and waits for its answer; or
// sends the prompt to the agent c.Continue names and waits for that
// answer (a fix round), as host-copilot.md says.
func (adapter) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	t := &Turns{a}
	id := c.Continue
	if id == "" {
		r := t.Task(Dispatch{Name: agentName(c.Description), Description: c.Description, Prompt: c.Prompt, AgentType: c.Type, Mode: Background}, sub)
		if id = AgentID(r.Text); id == "" {
			a.Failf("%s: the task gave no agent id: %q", c.Description, scripted.Clip(r.Text, 300))
		}
	} else {
		t.WriteAgent(id, c.Prompt)
	}
	ag := t.ReadAgent(id)
	for ag.Status == "running" {
		ag = t.ReadAgent(id)
	}
	if ag.Status != "idle" && ag.Status != "completed" {
		a.Failf("%s ended %q: %q", c.Description, ag.Status, scripted.Clip(ag.Text, 300))
	}
	return follower.AgentResult{ID: id, Reply: ag.Answer}
}

// agentName is the task's short name: the description's words, lower
// case, joined by hyphens.
func agentName(description string) string {
	return strings.ToLower(strings.Join(strings.Fields(description), "-"))
}
