package codexhost

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// This file is the follower (internal/dev/follower) in the Codex CLI
// (harness.Adapter): its tools over the tools the CLI offers a model it
// has no metadata for (0.171.0: exec_command, write_stdin, the
// multi_agent_v1 namespace, no apply_patch, no file tools, no skill
// tool). Each follower call becomes what a Codex model does for it:
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

// adapter is the Codex CLI as the shared scenarios drive it
// (harness.Host).
type adapter struct{}

// Host is the Codex CLI: its file of the skill is host-codex.md.
func (adapter) Host() string { return "codex" }

func (adapter) Facts() harness.Facts {
	exec := "exec_command (write_stdin )*"
	return harness.Facts{
		Model:     Model,
		AgentIDs:  true,
		Continues: true,
		Reads:     harness.Pieces,
		Dispatch:  harness.Dispatch{Call: "spawn_agent"},
		Parallel:  true,
		// And a fix round in a new session: the implementer the cut
		// session dispatched is not this one's to resume (host-codex.md's
		// exception for an implementer of an earlier session), so the
		// round is a new implementer.
		Resumes: append(slices.Clone(harness.FewResumes), "fix"),
		Calls: map[string]*regexp.Regexp{
			"Bash": regexp.MustCompile("^" + exec + "$"), "Read": regexp.MustCompile("^(" + exec + "){1,3}$"),
			"Skill": regexp.MustCompile("^(" + exec + ")+$"), "Agent": regexp.MustCompile(strings.ReplaceAll(`^(A\.spawn_agent|A\.resume_agent A\.send_input) A\.wait_agent A\.close_agent $`, "A", agentTools))},
	}
}

// Start makes a host for repo with the skill installed in its
// $CODEX_HOME/skills.
func (adapter) Start(t *testing.T, repo string, _ follower.Scenario) *harness.Sessions {
	h := New(t, repo)
	h.Timeout = 4 * time.Minute
	dir := h.InstallSkill()
	return h.Ready(dir, func(prompt string, s scripted.Script) *harness.Played {
		return h.Run(prompt, scripted.As[Turns](s)).Played
	})
}

func (adapter) Bash(a *scripted.Turns, command string) follower.Result {
	e := (&Turns{a}).Exec(command)
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
func read(t *Turns, path string, offset, limit int) (string, follower.Result, bool) {
	from := max(offset, 1)
	to := 0
	if limit > 0 {
		to = from + limit - 1
	}
	var text strings.Builder
	for {
		cmd := ReadCommand(path, from, to)
		e := t.Exec(cmd)
		for try := 0; e.Code == 0 && e.Output == "" && try < emptyRereads; try++ {
			e = t.Exec(cmd)
		}
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

// emptyRereads is how many more times read reads a part that came back
// empty with code 0. The CLI collects a command's output until the
// command exits and then at most 50 ms more (unified exec's
// POST_EXIT_CLOSE_WAIT_CAP in openai/codex); output that reaches it later
// is not in the answer. sed writes a small part at its exit, all at once,
// so on a machine under load a part came back empty, exit code 0, and a
// reviewer read "0 bytes" of a package (once in a suite's 28 resumes).
// A model that reads a file it knows holds something reads it again; a
// part that is empty every time is empty.
const emptyRereads = 2

func (adapter) Read(a *scripted.Turns, path string, offset, limit int) follower.Result {
	text, r, ok := read(&Turns{a}, path, offset, limit)
	if !ok {
		return r
	}
	return follower.Result{Text: harness.Numbered(text, max(offset, 1), limit)}
}

func (adapter) Write(a *scripted.Turns, path, content string) follower.Result {
	var out strings.Builder
	for _, cmd := range WriteCommands(path, content) {
		e := (&Turns{a}).Exec(cmd)
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
func (adapter) Skill(a *scripted.Turns, name string) follower.Result {
	t := &Turns{a}
	return harness.ReadSkill(t.Skills(), name, "the instructions", func(path string) (string, follower.Result, bool) {
		return read(t, path, 0, 0)
	})
}

// Agent starts the follower's subagent for the prompt with spawn_agent,
// on the model the dispatch names, waits for its final answer, and closes
// it. Codex has no foreground dispatch: every spawn_agent returns at
// once, and the parent waits with wait_agent. A fix round that continues
// the implementer (c.Continue) opens the closed agent again with
// resume_agent and sends it the prompt with send_input (its model is the
// one it was spawned on), then waits and closes it the same way.
func (adapter) Agent(a *scripted.Turns, c follower.AgentCall, sub scripted.Script) follower.AgentResult {
	t := &Turns{a}
	var ag Agent
	if c.Continue != "" {
		ag = Agent{ID: c.Continue}
		t.Resume(ag)
		t.SendInput(ag, c.Prompt)
	} else {
		ag = t.SpawnWith(SpawnArgs{Message: c.Prompt, Model: spawnModel(t, c.Model)}, scripted.As[Turns](sub))
	}
	st := t.Wait(ag)
	if st.State != "completed" {
		a.Failf("%s ended %s: %q", c.Description, st.State, scripted.Clip(st.Message, 300))
	}
	// Its answer taken, the subagent is done with (the next dispatch is a
	// fresh one): closed, as close_agent's description asks, since an
	// open one counts toward the limit of six.
	t.Close(ag)
	return follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(st.Message)}
}

// Agents dispatches the follower's subagents side by side, as
// host-codex.md's side by side row says: spawn_agent for each (each
// returns at once, the agent running), then wait_agent and close_agent
// for each in turn.
func (adapter) Agents(a *scripted.Turns, cs []follower.AgentCall, subs []scripted.Script) []follower.AgentResult {
	t := &Turns{a}
	ags := make([]Agent, len(cs))
	for i, c := range cs {
		if c.Continue != "" {
			a.Failf("%s: only new dispatches go side by side", c.Description)
		}
		ags[i] = t.SpawnWith(SpawnArgs{Message: c.Prompt, Model: spawnModel(t, c.Model)}, scripted.As[Turns](subs[i]))
	}
	out := make([]follower.AgentResult, len(cs))
	for i, ag := range ags {
		st := t.Wait(ag)
		if st.State != "completed" {
			a.Failf("%s ended %s: %q", cs[i].Description, st.State, scripted.Clip(st.Message, 300))
		}
		t.Close(ag)
		out[i] = follower.AgentResult{ID: ag.ID, Reply: strings.TrimSpace(st.Message)}
	}
	return out
}

// spawnModel is the model spawn_agent gets for the dispatch's model: the
// same name when the tool's description lists it among its overrides,
// else none (the subagent runs on the session's model). 0.171.0 refuses
// any other name ("Unknown model `sonnet` for spawn_agent. Available
// models: …", the call failed), and the text names Claude's models.
func spawnModel(t *Turns, model string) string {
	if model == "" {
		return ""
	}
	if sp, ok := t.Tool("spawn_agent"); ok && strings.Contains(sp.Description, "`"+model+"`") {
		return model
	}
	return ""
}
