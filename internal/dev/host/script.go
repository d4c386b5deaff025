package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// A Script is a scripted agent: a function that makes its calls one
// after another, in straight-line Go, as a model following a text would.
// The server runs it again from the start for every request of its
// conversation (see Turns), on the server's goroutines. So it must be
// deterministic (depend only on what its calls return and on values it
// closed over), never block, never write to variables it closed over (a
// test reads what happened from the Session and the Server), and report a
// failure with Turns.Failf, never through a testing.T.
type Script func(a *Turns)

// Turns is a script's view of its conversation during one request. Each
// call (Bash, Read, Agent, Say, …) is one assistant turn. A call whose
// turn is already in the request's transcript returns what came back for
// it; the first call that is not becomes the server's answer, and the
// script is stopped there (by a panic the server recovers). The next
// request, which carries that call's result, replays the script to one
// call further. Tool-use ids are derived from the conversation and the
// call's number, so a replay reproduces the transcript exactly; a replay
// that would make a different call than the transcript holds fails.
type Turns struct {
	srv    *Server
	prefix string    // of this conversation's tool-use ids
	msgs   []Message // the request's transcript
	asst   []int     // indexes of its assistant messages
	calls  int       // calls made so far in this replay
	seen   int       // msgs[:seen] are what the script has been shown
	taken  map[string]bool
}

// Result is what came back for one call.
type Result struct {
	Text    string   // the tool_result's content as text
	IsError bool     // the host marked the result an error
	Notes   []string // the other texts that came back with it: a skill's text, task notifications, reminders
}

type (
	answerNow     struct{ block Block } // this call is the server's answer
	scriptFailure struct{ msg string }
)

// doneText ends the turn of a conversation whose script is exhausted.
const doneText = "Done."

func replay(s *Server, prompt string, msgs []Message, script Script) (blocks []Block, err error) {
	sum := sha256.Sum256([]byte(prompt))
	t := &Turns{srv: s, prefix: hex.EncodeToString(sum[:6]), msgs: msgs, seen: len(msgs), taken: map[string]bool{}}
	for i, m := range msgs {
		if m.Role == "assistant" {
			if len(t.asst) == 0 {
				t.seen = i
			}
			t.asst = append(t.asst, i)
		}
	}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case answerNow:
			blocks = []Block{r.block}
		case scriptFailure:
			err = errors.New(r.msg)
		default:
			err = fmt.Errorf("script panicked at call %d: %v\n%s", t.calls, r, debug.Stack())
		}
	}()
	script(t)
	return []Block{{Type: "text", Text: doneText}}, nil
}

// Failf stops the script and fails the test: the conversation ends its
// turn with a text saying why, and the session is stopped.
func (a *Turns) Failf(format string, args ...any) {
	panic(scriptFailure{fmt.Sprintf("call %d: ", a.calls) + fmt.Sprintf(format, args...)})
}

// turn makes one assistant turn of b, a tool_use or a text block.
func (a *Turns) turn(b Block) Result {
	k := a.calls
	a.calls++
	if b.Type == "tool_use" {
		b.ID = fmt.Sprintf("toolu_sdd%s_%03d", a.prefix, k+1)
	}
	if k >= len(a.asst) {
		panic(answerNow{b})
	}
	i := a.asst[k]
	if err := sameTurn(a.msgs[i], b); err != nil {
		a.Failf("the transcript does not follow the script: %v", err)
	}
	end := len(a.msgs)
	if k+1 < len(a.asst) {
		end = a.asst[k+1]
	}
	a.seen = end
	var r Result
	found := b.Type != "tool_use"
	for _, m := range a.msgs[i+1 : end] {
		for _, c := range m.Content {
			switch {
			case c.Type == "tool_result" && c.ToolUseID == b.ID:
				r.Text, r.IsError, found = c.ResultText(), c.IsError, true
			case c.Type == "text":
				r.Notes = append(r.Notes, c.Text)
			}
		}
	}
	if !found {
		a.Failf("no result came back for %s %s", b.Name, b.ID)
	}
	return r
}

// sameTurn checks that the transcript's assistant message m is the turn
// the script makes now.
func sameTurn(m Message, b Block) error {
	for _, c := range m.Content {
		if c.Type != "text" && c.Type != "tool_use" {
			continue
		}
		if c.Type != b.Type {
			return fmt.Errorf("transcript has a %s turn, the script makes a %s turn", c.Type, b.Type)
		}
		if b.Type == "text" {
			if strings.TrimSpace(c.Text) != strings.TrimSpace(b.Text) {
				return fmt.Errorf("transcript says %q, the script says %q", scripted.Clip(c.Text, 200), scripted.Clip(b.Text, 200))
			}
			return nil
		}
		// The host may fill in defaults (Edit's replace_all): every field
		// the script gave must be there, unchanged.
		var got, want map[string]any
		json.Unmarshal(c.Input, &got)
		json.Unmarshal(b.Input, &want)
		same := c.ID == b.ID && c.Name == b.Name
		for k, v := range want {
			same = same && reflect.DeepEqual(got[k], v)
		}
		if !same {
			return fmt.Errorf("transcript calls %s %s %s, the script calls %s %s %s", c.Name, c.ID, scripted.Clip(string(c.Input), 200), b.Name, b.ID, scripted.Clip(string(b.Input), 200))
		}
		return nil
	}
	return fmt.Errorf("transcript's assistant message has no text or tool_use")
}

// Call makes one call of any tool with input (marshalled to JSON) and
// returns what came back, error or not.
func (a *Turns) Call(tool string, input any) Result {
	in, err := json.Marshal(input)
	if err != nil {
		a.Failf("%s input: %v", tool, err)
	}
	return a.turn(Block{Type: "tool_use", Name: tool, Input: in})
}

// must is Call for a result that must not be an error.
func (a *Turns) must(tool string, input any) Result {
	r := a.Call(tool, input)
	if r.IsError {
		a.Failf("%s %s: error result: %s", tool, scripted.Clip(mustJSON(input), 300), scripted.Clip(r.Text, 2000))
	}
	return r
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Say ends the turn with text. The conversation goes on only when the
// host sends something new (a task notification, a SendMessage to a
// subagent); Say returns those texts.
func (a *Turns) Say(text string) []string {
	return a.turn(Block{Type: "text", Text: text}).Notes
}

// Bash runs command with the Bash tool and returns its output; an error
// result (a non-zero exit) fails the script.
func (a *Turns) Bash(command string) string {
	return a.must("Bash", map[string]any{"command": command}).Text
}

// Read reads a whole file with the Read tool (path absolute) and returns
// what the tool shows: the lines, numbered.
func (a *Turns) Read(path string) string {
	return a.must("Read", map[string]any{"file_path": path}).Text
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
func (a *Turns) ToolSearch(query string) Result {
	return a.must("ToolSearch", map[string]any{"query": query})
}

// SendMessage continues a finished subagent (to is its agent id) with its
// context; ToolSearch must have loaded the tool first. Its script sees
// message as what its last Say returned.
func (a *Turns) SendMessage(to, summary, message string) Result {
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
	Model        string `json:"model"`         // sonnet, opus, haiku, fable; "" leaves it out (the session's model)
	Run          Run    `json:"-"`
}

// Agent is a subagent an Agent call started.
type Agent struct {
	Description string
	ToolUseID   string // the Agent call's id, which its notifications name
	ID          string // the agent's id, for SendMessage
	Report      string // a foreground agent's report; "" for one in the background
	Result      Result // the Agent call's whole result
}

var agentIDRe = regexp.MustCompile(`agentId: ([A-Za-z0-9_-]+)`)

// Agent dispatches a subagent whose conversation script runs (its first
// prompt is d.Prompt). In the background (the default) it returns once the
// host has launched it; Wait for its notification. In the foreground it
// returns the agent's report. The prompt names the conversation, so two
// dispatches of one session need distinct prompts (a real dispatch names
// its task, round or package anyway).
func (a *Turns) Agent(d Dispatch, script Script) Agent {
	if script != nil {
		a.srv.Handle(d.Prompt, script)
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
	ag := Agent{Description: d.Description, ToolUseID: a.lastID(), Result: r}
	if m := agentIDRe.FindStringSubmatch(r.Text); m != nil {
		ag.ID = m[1]
	}
	if d.Run == RunForeground {
		ag.Report = handBackReport(r.Text)
	}
	return ag
}

func (a *Turns) lastID() string {
	return fmt.Sprintf("toolu_sdd%s_%03d", a.prefix, a.calls)
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
		for i, m := range a.msgs[:a.seen] {
			if m.Role != "user" {
				continue
			}
			for j, text := range m.Texts() {
				for k, n := range notifications(text) {
					key := fmt.Sprintf("%d/%d/%d", i, j, k)
					mine := n.ToolUseID == ag.ToolUseID || (ag.ID != "" && n.TaskID == ag.ID)
					if mine && !a.taken[key] {
						a.taken[key] = true
						return n
					}
				}
			}
		}
		a.Say("Waiting for " + ag.Description + ".")
	}
}
