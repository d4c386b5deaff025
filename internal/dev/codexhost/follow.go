package codexhost

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// This file is the follower (internal/dev/follower) in the Codex CLI: its
// Tools over the tools the CLI offers a model it has no metadata for
// (0.171.0: exec_command, write_stdin, the multi_agent_v1 namespace, no
// apply_patch, no file tools, no skill tool), as internal/dev/host's
// follow.go is for Claude Code. Each follower call becomes what a Codex
// model does for it:
//
//	Bash    one exec_command, the command as the follower wrote it (the
//	        skill's commands as <skill dir>/bin/<command>: host-codex.md's
//	        form, since the CLI puts no bin/ on PATH); an error when
//	        "Process exited with code N" says N is not 0 (the output has
//	        no error flag)
//	Read    exec_command `sed -n 'A,Bp' <file>`, again from the first
//	        line the output cap cut off, until the range is read; shown
//	        numbered, as the follower reads a file tool's view
//	Write   exec_command `mkdir -p <dir> && printf '%s' <content> > <file>`
//	        (a long content in parts, appended: WriteCommands)
//	Skill   the Read of the SKILL.md <skills_instructions> lists for the
//	        name, handed over as "Base directory for this skill: <dir>"
//	        and the body after the front matter
//	Agent   spawn_agent (the prompt as its message, the model as its
//	        model when the tool lists it) and wait_agent until it has a
//	        final status, then close_agent; the child is the follower's
//	        subagent for the prompt, in a conversation of its own
//	Say     an assistant message, which ends the turn

// Follow is the controller of scenario sc as a session's script.
func Follow(sc follower.Scenario) Script {
	return func(a *Turns) { follower.Controller(sc)(&tools{a: a, sc: sc}) }
}

// FollowKeeping is Follow that copies the plan's workspace (every one
// under repo's .superpowers/sdd) into keep just before the call that runs
// Finish, which deletes it. The copy is made once: a replay finds it made.
func FollowKeeping(sc follower.Scenario, repo, keep string) Script {
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, repo: repo, keep: keep})
	}
}

// FollowUntil is Follow cut after the controller's first calls follower
// calls (a Read or an Agent of several tool calls counts once): the
// session then ends its turn, as a controller whose context is lost
// stops, and a later session resumes from what is on disk.
func FollowUntil(sc follower.Scenario, calls int) Script {
	return func(a *Turns) {
		follower.Controller(sc)(&tools{a: a, sc: sc, left: calls, cut: true})
	}
}

// CutText is what a cut controller says last.
const CutText = "Stopping here: the run is cut."

// tools are the follower's Tools over one replay of a conversation.
type tools struct {
	a    *Turns
	sc   follower.Scenario
	left int // calls before the cut
	cut  bool
	repo string // FollowKeeping's repository and copy
	keep string
}

// call counts one follower call toward the cut; past it the turn ends.
func (t *tools) call() {
	if !t.cut {
		return
	}
	if t.left == 0 {
		for {
			t.a.Say(CutText)
		}
	}
	t.left--
}

func (t *tools) Bash(command string) follower.Result {
	t.call()
	if t.keep != "" && follower.RunsFinish(command) {
		if err := follower.KeepWorkspaces(t.repo, t.keep); err != nil {
			t.a.Failf("%v", err)
		}
	}
	e := t.a.Exec(command)
	return follower.Result{Text: e.Output, IsError: e.Code != 0}
}

// ReadCommand is the command that reads lines from to to (0: the end) of
// path, as a Codex model reads a file.
func ReadCommand(path string, from, to int) string {
	end := "$"
	if to > 0 {
		end = strconv.Itoa(to)
	}
	return fmt.Sprintf("sed -n '%d,%sp' %s", from, end, Quote(path))
}

// ReadCommandRe matches a ReadCommand: the first line, the last ("$"),
// the path quoted.
var ReadCommandRe = regexp.MustCompile(`^sed -n '(\d+),(\d+|\$)p' ('(?:[^']|'\\'')*')$`)

// truncatedPrefix starts an exec_command's output the CLI cut to its cap
// (0.171.0, a model without metadata: about 10,000 bytes whatever
// max_output_tokens asks); the middle of the output is then replaced by
// "…N chars truncated…" within a line.
const truncatedPrefix = "Warning: truncated output"

var truncationRe = regexp.MustCompile(`…\d+ (?:chars|tokens) truncated…`)

// keptLines is the part of a cut output a reader can trust: its whole
// lines before the one the cut falls in.
func keptLines(out string) (string, bool) {
	_, body, ok := strings.Cut(out, "\n\n") // after "Total output lines: N"
	if !ok {
		return "", false
	}
	loc := truncationRe.FindStringIndex(body)
	if loc == nil {
		return "", false
	}
	return body[:strings.LastIndex(body[:loc[0]], "\n")+1], true
}

// read reads lines offset.. (1 when 0) of path, limit of them (0: to the
// end), in as many exec_command calls as the output cap needs, and
// returns the text read.
func (t *tools) read(path string, offset, limit int) (string, follower.Result, bool) {
	from := max(offset, 1)
	to := 0
	if limit > 0 {
		to = from + limit - 1
	}
	var text strings.Builder
	for {
		e := t.a.Exec(ReadCommand(path, from, to))
		if e.Code != 0 {
			return "", follower.Result{Text: e.Output, IsError: true}, false
		}
		if !strings.HasPrefix(e.Output, truncatedPrefix) {
			text.WriteString(e.Output)
			return text.String(), follower.Result{}, true
		}
		kept, ok := keptLines(e.Output)
		if !ok || kept == "" {
			return "", follower.Result{Text: "a line of " + path + " is longer than the output cap:\n" + scripted.Clip(e.Output, 500), IsError: true}, false
		}
		text.WriteString(kept)
		from += strings.Count(kept, "\n")
	}
}

// numbered is the view of a file tool the follower reads (FileLines):
// each line numbered from first, a tab, its text. A read to the end shows
// the empty piece after a last newline, as Claude Code's Read does, so
// that the pieces joined with newlines are what was read.
func numbered(text string, first, limit int) string {
	if text == "" {
		return ""
	}
	pieces := strings.Split(text, "\n")
	if limit > 0 && strings.Count(text, "\n") >= limit && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1]
	}
	var b strings.Builder
	for i, p := range pieces {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", first+i, p)
	}
	return b.String()
}

func (t *tools) Read(path string, offset, limit int) follower.Result {
	t.call()
	text, r, ok := t.read(path, offset, limit)
	if !ok {
		return r
	}
	return follower.Result{Text: numbered(text, max(offset, 1), limit)}
}

func (t *tools) Write(path, content string) follower.Result {
	t.call()
	var out strings.Builder
	for _, cmd := range WriteCommands(path, content) {
		e := t.a.Exec(cmd)
		out.WriteString(e.Output)
		if e.Code != 0 {
			return follower.Result{Text: out.String(), IsError: true}
		}
	}
	return follower.Result{Text: out.String()}
}

// writeChunk bounds the content one command writes: the CLI runs a
// command as one argument of its shell (bash -c), and Linux refuses an
// argument over 128 KiB (MAX_ARG_STRLEN), quoting included (a quote is
// four bytes quoted).
const writeChunk = 24 * 1024

// WriteCommands are the commands that write content to path, making its
// directory: one for content up to writeChunk bytes, else one more for
// each further part, appended. Parts end on a character's boundary: a
// command is JSON text, which holds only whole UTF-8 characters.
func WriteCommands(path, content string) []string {
	var cmds []string
	redirect := " > "
	for first := true; first || content != ""; first = false {
		n := min(len(content), writeChunk)
		for n < len(content) && n > 0 && !utf8.RuneStart(content[n]) {
			n--
		}
		cmd := "printf '%s' " + Quote(content[:n]) + redirect + Quote(path)
		if first {
			cmd = "mkdir -p " + Quote(filepath.Dir(path)) + " && " + cmd
		}
		cmds = append(cmds, cmd)
		content, redirect = content[n:], " >> "
	}
	return cmds
}

// Skill reads the SKILL.md the instructions list under name, as a Codex
// model does, and hands over what Claude Code's Skill tool would: the
// skill's directory and the body after the front matter.
func (t *tools) Skill(name string) follower.Result {
	t.call()
	sk, ok := t.a.Skill(name)
	if !ok {
		var names []string
		for _, s := range t.a.Skills() {
			names = append(names, s.Name)
		}
		return follower.Result{Text: fmt.Sprintf("no skill %q in the instructions (they list %s)", name, strings.Join(names, ", ")), IsError: true}
	}
	body, r, ok := t.read(sk.Path, 0, 0)
	if !ok {
		return r
	}
	if rest, ok := strings.CutPrefix(body, "---\n"); ok {
		_, body, ok = strings.Cut(rest, "\n---\n")
		if !ok {
			return follower.Result{Text: sk.Path + ": its front matter never ends", IsError: true}
		}
	}
	return follower.Result{Text: follower.BaseDirPrefix + filepath.Dir(sk.Path) + "\n\n" + strings.TrimLeft(body, "\n")}
}

// Agent starts the follower's subagent for the prompt with spawn_agent,
// on the model the dispatch names, waits for its final answer, and closes
// it. Codex has no foreground dispatch: every spawn_agent returns at
// once, and the parent waits with wait_agent.
func (t *tools) Agent(c follower.AgentCall) follower.AgentResult {
	t.call()
	script, ok := t.sc.Subagent(c.Prompt)
	if !ok {
		t.a.Failf("a dispatch no subagent of the follower answers: %q", scripted.Clip(c.Prompt, 300))
	}
	ag := t.a.SpawnWith(SpawnArgs{Message: c.Prompt, Model: t.spawnModel(c.Model)}, t.subagent(script))
	t.a.Record(ModelRecord(ag.ID), c.Model)
	st := t.a.Wait(ag)
	if st.State != "completed" {
		t.a.Failf("%s ended %s: %q", c.Description, st.State, scripted.Clip(st.Message, 300))
	}
	// Its answer taken, the subagent is done with (the next dispatch is a
	// fresh one): closed, as close_agent's description asks, since an
	// open one counts toward the limit of six.
	t.a.Close(ag)
	return follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(st.Message)}
}

// ModelRecord is the key under which Agent records the model the
// follower asked for a subagent (Server.Records), by its agent id.
func ModelRecord(agentID string) string { return "model of " + agentID }

// spawnModel is the model spawn_agent gets for the dispatch's model: the
// same name when the tool's description lists it among its overrides,
// else none (the subagent runs on the session's model). 0.171.0 refuses
// any other name ("Unknown model `sonnet` for spawn_agent. Available
// models: …", the call failed), and the text names Claude's models.
func (t *tools) spawnModel(model string) string {
	if model == "" {
		return ""
	}
	if sp, ok := t.a.Tool("spawn_agent"); ok && strings.Contains(sp.Description, "`"+model+"`") {
		return model
	}
	return ""
}

// subagent is a dispatched subagent's conversation: the follower's script
// for its prompt, its reply said as its final text.
func (t *tools) subagent(first follower.Script) Script {
	sc := t.sc
	return func(a *Turns) {
		reply := first(&tools{a: a, sc: sc})
		for {
			a.Say(reply)
		}
	}
}

func (t *tools) Say(text string) {
	for {
		t.a.Say(text)
	}
}

// Host is the Codex CLI: its file of the skill is host-codex.md.
func (t *tools) Host() string { return "codex" }
