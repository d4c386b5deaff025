package claudehost

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// A Script is a scripted agent in Claude Code (scripted.Script), with
// Claude Code's calls.
type Script = scripted.For[Turns]

// Turns is a script's view of its conversation (scripted.Turns) with
// Claude Code's tools as calls. Bash, Read, Write and the rest fail the
// script on an error result; Call returns any.
type Turns struct{ *scripted.Turns }

// must is Call for a result that must not be an error.
func (a *Turns) must(tool string, input any) scripted.Result {
	r := a.Call(tool, input)
	if r.IsError {
		in, _ := json.Marshal(input)
		a.Failf("%s %s: error result: %s", tool, scripted.Clip(string(in), 300), scripted.Clip(r.Text, 2000))
	}
	return r
}

// Bash runs command with the Bash tool and returns its output.
func (a *Turns) Bash(command string) string {
	return a.must("Bash", map[string]any{"command": command}).Text
}

// ReadPart reads limit lines from line offset on.
func (a *Turns) ReadPart(path string, offset, limit int) string {
	return a.must("Read", map[string]any{"file_path": path, "offset": offset, "limit": limit}).Text
}

// Write writes a whole file with the Write tool.
func (a *Turns) Write(path, content string) {
	a.must("Write", map[string]any{"file_path": path, "content": content})
}

// Edit replaces old by new in a file with the Edit tool.
func (a *Turns) Edit(path, old, new string) {
	a.must("Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new})
}

// ToolSearch looks tools up, e.g. "select:SendMessage" to load a deferred
// tool's schema before its first call.
func (a *Turns) ToolSearch(query string) scripted.Result {
	return a.must("ToolSearch", map[string]any{"query": query})
}

// SendMessage continues a finished subagent (to is its agent id) with its
// context; ToolSearch must have loaded the tool first. Its script sees
// message as what its last Say returned.
func (a *Turns) SendMessage(to, summary, message string) scripted.Result {
	return a.must("SendMessage", map[string]any{"to": to, "summary": summary, "message": message})
}

// Run says how an Agent call asks to run.
type Run int

const (
	RunDefault    Run = iota // run_in_background left out: the host's default, in the background
	RunBackground            // run_in_background: true
	RunForeground            // run_in_background: false: the call returns the agent's report
)

// Dispatch is the input of an Agent call.
type Dispatch struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"` // e.g. general-purpose; "" leaves it out
	Model        string `json:"model"`         // sonnet, opus, haiku; "" leaves it out (the session's model)
	Run          Run    `json:"-"`
}

// Agent is a subagent an Agent call started.
type Agent struct {
	Description string
	ToolUseID   string // the Agent call's id, which its notifications name
	ID          string // the agent's id, for SendMessage
	Report      string // a foreground agent's report; "" for one in the background
	Result      scripted.Result
}

var agentIDRe = regexp.MustCompile(`agentId: ([A-Za-z0-9_-]+)`)

// Agent dispatches a subagent whose conversation script runs (its first
// prompt is d.Prompt). In the background (the default) it returns once the
// host has launched it; Wait for its notification. In the foreground it
// returns the agent's report. The prompt names the conversation, so two
// dispatches of one session need distinct prompts (a real dispatch names
// its task, round or package anyway).
func (a *Turns) Agent(d Dispatch, script scripted.Script) Agent {
	if script != nil {
		a.Handle(d.Prompt, script)
	}
	in := map[string]any{"description": d.Description, "prompt": d.Prompt}
	if d.SubagentType != "" {
		in["subagent_type"] = d.SubagentType
	}
	if d.Model != "" {
		in["model"] = d.Model
	}
	switch d.Run {
	case RunBackground:
		in["run_in_background"] = true
	case RunForeground:
		in["run_in_background"] = false
	}
	r := a.must("Agent", in)
	ag := Agent{Description: d.Description, ToolUseID: a.LastID(), Result: r}
	if m := agentIDRe.FindStringSubmatch(r.Text); m != nil {
		ag.ID = m[1]
	}
	if d.Run == RunForeground {
		ag.Report = handBackReport(r.Text)
	}
	return ag
}

// Agents dispatches several subagents in one message, in the foreground,
// which Claude Code runs at once, and returns each agent, with its
// report, in order.
func (a *Turns) Agents(ds []Dispatch, scripts []scripted.Script) []Agent {
	calls := make([]scripted.Grouped, len(ds))
	for i, d := range ds {
		if scripts[i] != nil {
			a.Handle(d.Prompt, scripts[i])
		}
		in := map[string]any{"description": d.Description, "prompt": d.Prompt, "run_in_background": false}
		if d.SubagentType != "" {
			in["subagent_type"] = d.SubagentType
		}
		if d.Model != "" {
			in["model"] = d.Model
		}
		calls[i] = scripted.Grouped{Name: "Agent", Input: in}
	}
	rs := a.CallGroup(calls)
	out := make([]Agent, len(ds))
	for i, r := range rs {
		if r.IsError {
			a.Failf("Agent %q: error result: %s", ds[i].Description, scripted.Clip(r.Text, 2000))
		}
		out[i] = Agent{Description: ds[i].Description, ToolUseID: r.CallID, Result: r, Report: handBackReport(r.Text)}
		if m := agentIDRe.FindStringSubmatch(r.Text); m != nil {
			out[i].ID = m[1]
		}
	}
	return out
}

// handBackReport takes a foreground agent's final text out of the host's
// hand-back: the indented lines after "The report follows:", up to the
// agentId line.
func handBackReport(text string) string {
	_, rest, ok := strings.Cut(text, "The report follows:\n")
	if !ok {
		return text
	}
	if i := strings.LastIndex(rest, "\nagentId: "); i >= 0 {
		rest = rest[:i]
	}
	lines := strings.Split(strings.Trim(rest, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

// Notification is a <task-notification> the host sent about a background
// agent.
type Notification struct {
	TaskID    string // the agent's id
	ToolUseID string // the Agent call it is about
	Status    string // completed, failed, killed
	Summary   string
	Result    string // the agent's final text
}

var notificationRe = regexp.MustCompile(`(?s)<task-notification>(.*?)</task-notification>`)

func notifications(text string) []Notification {
	var out []Notification
	for _, m := range notificationRe.FindAllStringSubmatch(text, -1) {
		out = append(out, Notification{
			TaskID: tag(m[1], "task-id"), ToolUseID: tag(m[1], "tool-use-id"),
			Status: tag(m[1], "status"), Summary: tag(m[1], "summary"), Result: tag(m[1], "result"),
		})
	}
	return out
}

// tag is the text between <name> and the last </name> in s.
func tag(s, name string) string {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(rest, "</"+name+">"); i >= 0 {
		return rest[:i]
	}
	return ""
}

// Wait returns the next notification about ag: one already delivered (it
// may come with any result), else the script ends its turn and waits for
// the host to send one. Each notification is returned once.
func (a *Turns) Wait(ag Agent) Notification {
	for {
		for _, s := range a.Seen() {
			if s.Role != "user" {
				continue
			}
			for k, n := range notifications(s.Text) {
				mine := n.ToolUseID == ag.ToolUseID || (ag.ID != "" && n.TaskID == ag.ID)
				if mine && a.Take(fmt.Sprintf("%s/%d", s.Key, k)) {
					return n
				}
			}
		}
		a.Say("Waiting for " + ag.Description + ".")
	}
}
