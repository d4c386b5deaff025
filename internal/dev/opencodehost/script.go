package opencodehost

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
// call (Bash, Read, Task, Say, …) is one assistant turn. A call whose turn
// is already in the request's transcript returns what came back for it;
// the first call that is not becomes the server's answer, and the script
// is stopped there (by a panic the server recovers). The next request,
// which carries that call's result, replays the script to one call
// further. Tool-call ids are derived from the conversation and the call's
// number, so a replay reproduces the transcript exactly; a replay that
// would make a different call than the transcript holds fails.
type Turns struct {
	srv    *Server
	prefix string    // of this conversation's tool-call ids
	msgs   []Message // the request's transcript
	asst   []int     // indexes of its assistant messages
	calls  int       // calls made so far in this replay
}

// Result is what came back for one call.
type Result struct {
	Text  string   // the tool message's content: the output, or the error's text
	Notes []string // the user messages that came after it: a continued task's new prompt
}

type (
	answerNow     struct{ turn Turn } // this call is the server's answer
	scriptFailure struct{ msg string }
)

// doneText ends the turn of a conversation whose script is exhausted.
const doneText = "Done."

func replay(s *Server, prompt string, msgs []Message, script Script) (turn Turn, err error) {
	sum := sha256.Sum256([]byte(prompt))
	t := &Turns{srv: s, prefix: hex.EncodeToString(sum[:6]), msgs: msgs}
	for i, m := range msgs {
		if m.Role == "assistant" {
			t.asst = append(t.asst, i)
		}
	}
	defer func() {
		switch r := recover().(type) {
		case nil:
		case answerNow:
			turn = r.turn
		case scriptFailure:
			err = errors.New(r.msg)
		default:
			err = fmt.Errorf("script panicked at call %d: %v\n%s", t.calls, r, debug.Stack())
		}
	}()
	script(t)
	return Turn{Text: doneText}, nil
}

// Failf stops the script and fails the test: the conversation ends its
// turn with a text saying why, and the session is stopped.
func (a *Turns) Failf(format string, args ...any) {
	panic(scriptFailure{fmt.Sprintf("call %d: ", a.calls) + fmt.Sprintf(format, args...)})
}

// callID is the id of the conversation's call number k (from 1).
func (a *Turns) callID(k int) string {
	return fmt.Sprintf("call_sdd%s_%03d", a.prefix, k)
}

// turn makes one assistant turn.
func (a *Turns) turn(t Turn) Result {
	k := a.calls
	a.calls++
	if t.Call != nil {
		t.Call.ID = a.callID(k + 1)
		t.Call.Type = "function"
	}
	if k >= len(a.asst) {
		panic(answerNow{t})
	}
	i := a.asst[k]
	if err := sameTurn(a.msgs[i], t); err != nil {
		a.Failf("the transcript does not follow the script: %v", err)
	}
	end := len(a.msgs)
	if k+1 < len(a.asst) {
		end = a.asst[k+1]
	}
	var r Result
	found := t.Call == nil
	for _, m := range a.msgs[i+1 : end] {
		switch {
		case m.Role == "tool" && t.Call != nil && m.ToolCallID == t.Call.ID:
			r.Text, found = string(m.Content), true
		case m.Role == "user":
			r.Notes = append(r.Notes, string(m.Content))
		}
	}
	if !found {
		a.Failf("no result came back for %s", t)
	}
	return r
}

// sameTurn checks that the transcript's assistant message m is the turn
// the script makes now.
func sameTurn(m Message, t Turn) error {
	if t.Call == nil {
		if len(m.ToolCalls) > 0 {
			return fmt.Errorf("transcript has a %s call, the script says %q", m.ToolCalls[0].Function.Name, scripted.Clip(t.Text, 200))
		}
		if strings.TrimSpace(string(m.Content)) != strings.TrimSpace(t.Text) {
			return fmt.Errorf("transcript says %q, the script says %q", scripted.Clip(string(m.Content), 200), scripted.Clip(t.Text, 200))
		}
		return nil
	}
	if len(m.ToolCalls) != 1 {
		return fmt.Errorf("transcript has %d calls and the text %q, the script calls %s", len(m.ToolCalls), scripted.Clip(string(m.Content), 200), t)
	}
	c := m.ToolCalls[0]
	// The host may fill in defaults: every field the script gave must be
	// there, unchanged.
	var got, want map[string]any
	json.Unmarshal([]byte(c.Function.Arguments), &got)
	json.Unmarshal([]byte(t.Call.Function.Arguments), &want)
	same := c.ID == t.Call.ID && c.Function.Name == t.Call.Function.Name
	for k, v := range want {
		same = same && reflect.DeepEqual(got[k], v)
	}
	if !same {
		return fmt.Errorf("transcript calls %s %s %s, the script calls %s", c.Function.Name, c.ID, scripted.Clip(c.Function.Arguments, 200), t)
	}
	return nil
}

// Call makes one call of any tool with input (marshalled to JSON) and
// returns what came back. opencode sends a failed call's error back as
// plain text, like an output (a missing file's read gives "File not
// found: …"), so a script cannot tell one from the other: Host.Run fails
// the test on a call of the session that failed, from the event stream.
func (a *Turns) Call(tool string, input any) Result {
	in, err := json.Marshal(input)
	if err != nil {
		a.Failf("%s input: %v", tool, err)
	}
	c := &ToolCall{}
	c.Function.Name, c.Function.Arguments = tool, string(in)
	return a.turn(Turn{Call: c})
}

// Say ends the turn with text. The conversation goes on only when the
// host sends something new (a task continued with its task_id); Say
// returns those messages.
func (a *Turns) Say(text string) []string {
	return a.turn(Turn{Text: text}).Notes
}

// Bash runs command with the bash tool, in the session's directory, and
// returns its output: stdout and stderr as they came, "(no output)" when
// there was none. The model is told no exit status (the event stream has
// it, ToolUse.Exit), so a failing command is no error here: a script that
// must know prints it.
func (a *Turns) Bash(command string) string {
	return a.Call("bash", map[string]any{"command": command}).Text
}

// BashIn runs command with the bash tool in dir (its workdir).
func (a *Turns) BashIn(dir, command string) string {
	return a.Call("bash", map[string]any{"command": command, "workdir": dir}).Text
}

// Read reads a whole file with the read tool (path absolute) and returns
// what the tool shows.
func (a *Turns) Read(path string) string {
	return a.Call("read", map[string]any{"filePath": path}).Text
}

// Write writes a whole file with the write tool.
func (a *Turns) Write(path, content string) {
	a.Call("write", map[string]any{"filePath": path, "content": content})
}

// Edit replaces old by new in a file with the edit tool (read it first).
func (a *Turns) Edit(path, old, new string) {
	a.Call("edit", map[string]any{"filePath": path, "oldString": old, "newString": new})
}

// Skill loads a skill with the skill tool and returns what it handed
// over.
func (a *Turns) Skill(name string) Skill {
	r := a.Call("skill", map[string]any{"name": name})
	return parseSkill(r.Text)
}

// Skill is what the skill tool handed over for one skill:
//
//	<skill_content name="NAME">
//	# Skill: NAME
//
//	BODY (SKILL.md without its front matter)
//
//	Base directory for this skill: DIR
//	Relative paths in this skill (…) are relative to this base directory.
//	Note: file list is sampled.
//
//	<skill_files>
//	<file>DIR/…</file>
//	</skill_files>
//	</skill_content>
type Skill struct {
	Name    string   // from <skill_content name="…">
	Dir     string   // the skill's directory, absolute, from "Base directory for this skill: …"
	Files   []string // the files listed (a sample, SKILL.md left out)
	Content string   // the whole result
}

var (
	skillNameRe = regexp.MustCompile(`<skill_content name="([^"]*)">`)
	skillDirRe  = regexp.MustCompile(`(?m)^Base directory for this skill: (.+)$`)
	skillFileRe = regexp.MustCompile(`(?m)^<file>(.*)</file>$`)
)

func parseSkill(text string) Skill {
	s := Skill{Content: text}
	if m := skillNameRe.FindStringSubmatch(text); m != nil {
		s.Name = m[1]
	}
	if m := skillDirRe.FindStringSubmatch(text); m != nil {
		s.Dir = m[1]
	}
	for _, m := range skillFileRe.FindAllStringSubmatch(text, -1) {
		s.Files = append(s.Files, m[1])
	}
	return s
}

// Dispatch is the input of a task call.
type Dispatch struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"` // e.g. general
	TaskID       string `json:"task_id"`       // set to continue that task's session; "" starts one
}

// Task is a subagent's answer to a task call, which comes back as
//
//	<task id="SESSION" state="completed">
//	<task_result>
//	REPORT
//	</task_result>
//	</task>
type Task struct {
	ID     string // the task_id, the child session's id, to continue it
	State  string // completed
	Report string // the subagent's final text
	Result Result // the task call's whole result
}

var taskRe = regexp.MustCompile(`<task id="([^"]*)" state="([^"]*)">`)

// Task runs a subagent with the task tool and returns its report: the
// call returns when the subagent's turn ends. A new task's conversation
// is named by d.Prompt, and script is its agent (two tasks of one session
// need distinct prompts); to continue a task, set d.TaskID and leave
// script nil: the subagent's script sees d.Prompt as what its last Say
// returned.
func (a *Turns) Task(d Dispatch, script Script) Task {
	if script != nil {
		a.srv.Handle(d.Prompt, script)
	}
	in := map[string]any{"description": d.Description, "prompt": d.Prompt, "subagent_type": d.SubagentType}
	if d.TaskID != "" {
		in["task_id"] = d.TaskID
	}
	r := a.Call("task", in)
	t := Task{Result: r, Report: taskReport(r.Text)}
	if m := taskRe.FindStringSubmatch(r.Text); m != nil {
		t.ID, t.State = m[1], m[2]
	}
	return t
}

// taskReport takes the subagent's final text out of the task result: the
// text between <task_result> and </task_result>.
func taskReport(text string) string {
	_, rest, ok := strings.Cut(text, "<task_result>")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(rest, "</task_result>"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Trim(rest, "\n")
}
