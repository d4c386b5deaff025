package opencodehost

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Host is one machine for sessions of the real CLI (harness.Machine)
// whose configuration names the scripted model as the one provider (with
// @opencode-ai/plugin preinstalled, so nothing is fetched), its PATH the
// directories of git, sh, bash and rg.
type Host struct {
	*harness.Machine
	OpenCode string // the opencode binary
	// AllowError accepts a call of the session that failed (its status is
	// error: a refused permission, a missing file); nil: none is.
	AllowError func(u ToolUse) bool
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_OPENCODE_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	bin := hostcli.OpenCode.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Chat{}, harness.SystemPath(t, "rg")), OpenCode: bin}
	if err := WriteConfig(h.Home, h.Server.URL, bin); err != nil {
		t.Fatal(err)
	}
	return h
}

// Env is the environment of an opencode process on this host.
func (h *Host) Env() []string {
	return hostcli.OpenCode.Env(h.Home, h.Tmp, h.Path)
}

// ConfigDir is the host's global configuration directory
// (~/.config/opencode): skills/, plugins/.
func (h *Host) ConfigDir() string { return ConfigDir(h.Home) }

// RunMessage is the text opencode run sends as the first user message for
// its message arguments: each argument holding a space is put in double
// quotes (its quotes escaped with a backslash), and they are joined by
// spaces. A script is found by that text.
func RunMessage(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.Contains(a, " ") {
			a = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// Session is what one `opencode run` did, from its JSON event output
// (the process, its log on stderr, the follower's steps and the last
// text: Played).
type Session struct {
	*harness.Played
	Prompt    string    // as given to Run
	Events    []Event   // every line of the output, in order
	Uses      []ToolUse // every finished tool call of the session (not its subagents')
	Subagents []ToolUse // the calls of its subagents (their sessions'), from opencode's database
	Texts     []string  // the session's texts, in order
	Errors    []Event   // error events
	Reason    string    // why the last step finished: stop (the turn is over), tool-calls
}

// Event is one line of the JSON output: step_start, text, tool_use,
// step_finish, error.
type Event struct {
	Type      string          `json:"type"`
	SessionID string          `json:"sessionID"`
	Part      *Part           `json:"part"`
	Error     json.RawMessage `json:"error"`
	Raw       json.RawMessage `json:"-"`
}

// Part is an event's message part: a text, a tool call, a step.
type Part struct {
	Type   string `json:"type"` // text, tool, step-start, step-finish
	Text   string `json:"text"`
	CallID string `json:"callID"`
	Tool   string `json:"tool"`
	State  *struct {
		Status   string          `json:"status"` // completed, error
		Input    json.RawMessage `json:"input"`
		Output   string          `json:"output"`
		Error    string          `json:"error"`
		Title    string          `json:"title"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"state"`
	Reason string `json:"reason"` // step-finish: stop, tool-calls
}

// ToolUse is one tool call of the session and what came back.
type ToolUse struct {
	ID, Name string
	Input    json.RawMessage
	Status   string // completed, error
	Output   string // a completed call's output
	Error    string // a failed call's error
	Metadata json.RawMessage
}

// Exit is a bash call's exit status, which the event stream has in the
// call's metadata (the model is not told it).
func (u ToolUse) Exit() (int, bool) {
	var md struct{ Exit *int }
	json.Unmarshal(u.Metadata, &md)
	if md.Exit == nil {
		return 0, false
	}
	return *md.Exit, true
}

// TaskSession is the child session a task call ran in, from its metadata.
func (u ToolUse) TaskSession() string {
	var md struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(u.Metadata, &md)
	return md.SessionID
}

// Command is a bash call's command.
func (u ToolUse) Command() string {
	var in struct{ Command string }
	json.Unmarshal(u.Input, &in)
	return in.Command
}

// Commands are the session's bash commands, in order.
func (s *Session) Commands() []string {
	var out []string
	for _, u := range s.Uses {
		if u.Name == "bash" {
			out = append(out, u.Command())
		}
	}
	return out
}

// Run runs `opencode run --format json -- prompt` in the repository (after
// "--", a prompt that starts with "-" is no option), the
// scripted controller answering for the session, and checks what every
// run must hold: the process ended well, no script failed, no error
// event came, no tool call of the session or of its subagents failed
// and every bash call exited 0 (but those AllowError accepts), no
// permission was asked for (opencode run refuses every ask), its turn
// ended (a refused permission ends the run in the middle of a step, with
// status 0), and opencode tried to fetch nothing (its log says so when
// it does: fetched). Failures are the test's (t.Errorf), with the
// transcript logged; the session is returned for the test's own
// assertions either way.
func (h *Host) Run(prompt string, controller Script) *Session {
	t := h.T
	t.Helper()
	s := &Session{Prompt: prompt}
	var readErr error
	p := h.Play(RunMessage(prompt), controller.Play(), h.Env(), func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.OpenCode, "run", "--print-logs", "--format", "json", "--", prompt)
	}, func(r io.Reader) { readErr = harness.ReadEvents(r, s.take) })
	s.Played = p
	if len(s.Texts) > 0 {
		p.Final = s.Texts[len(s.Texts)-1]
	}
	if err := cmp.Or(p.Err, readErr); err != nil {
		p.Problems = append([]string{fmt.Sprintf("opencode: %v", err)}, p.Problems...)
	}
	for _, e := range s.Errors {
		p.Problems = append(p.Problems, "error event: "+string(e.Raw))
	}
	s.Subagents = h.subagents(s)
	accepted := false
	for _, u := range append(slices.Clone(s.Uses), s.Subagents...) {
		code, exited := u.Exit()
		ok := u.Status == "completed" && (u.Name != "bash" || !exited || code == 0)
		if ok {
			continue
		}
		if h.AllowError != nil && h.AllowError(u) {
			accepted = true
			continue
		}
		p.Problems = append(p.Problems, fmt.Sprintf("%s %s came back %s (exit %d): %s", u.Name, scripted.Clip(string(u.Input), 300), u.Status, code, scripted.Clip(u.Error, 1000)))
	}
	// A failed call a test expects may be a refusal, which ends the run.
	if s.Reason != "stop" && p.Err == nil && !accepted {
		p.Problems = append(p.Problems, fmt.Sprintf("the run ended before the turn did (its last step finished for %q)", s.Reason))
	}
	for _, l := range strings.Split(p.Stderr, "\n") {
		if fetched(l) {
			p.Problems = append(p.Problems, "opencode tried to fetch something: "+l)
		}
		if strings.Contains(l, "permission requested") && !accepted {
			p.Problems = append(p.Problems, "a permission was asked for, and refused: "+l)
		}
	}
	p.Report(h.Machine, func() string { return s.Transcript() + "\nlog:\n" + p.Stderr })
	return s
}

// subagents are the calls of the session's subagents, read from
// opencode's database (the run's events have the session's own alone).
func (h *Host) subagents(s *Session) []ToolUse {
	ids := s.Tasks()
	uses := h.ToolUses(ids)
	var all []ToolUse
	for _, id := range ids {
		if len(uses[id]) == 0 {
			s.Problems = append(s.Problems, fmt.Sprintf("subagent %s made no call", id))
		}
		all = append(all, uses[id]...)
	}
	return all
}

// fetched reports whether a line of opencode's log says it tried to get
// something from the network that the environment should have made
// unnecessary: @opencode-ai/plugin for a configuration directory
// ("background dependency install failed", after a minute of retries when
// a plugin waits for it), ripgrep when rg is not on PATH ("downloading
// ripgrep").
func fetched(line string) bool {
	return strings.Contains(line, "dependency install") || strings.Contains(line, `message="downloading`)
}

func (s *Session) take(e Event, line json.RawMessage) {
	e.Raw = line
	s.Events = append(s.Events, e)
	switch {
	case e.Type == "error":
		s.Errors = append(s.Errors, e)
	case e.Part == nil:
	case e.Part.Type == "text":
		s.Texts = append(s.Texts, e.Part.Text)
	case e.Part.Type == "tool" && e.Part.State != nil:
		s.Uses = append(s.Uses, e.Part.use())
	case e.Part.Type == "step-finish":
		s.Reason = e.Part.Reason
	}
}

func (p *Part) use() ToolUse {
	st := p.State
	return ToolUse{ID: p.CallID, Name: p.Tool, Input: st.Input, Status: st.Status, Output: st.Output, Error: st.Error, Metadata: st.Metadata}
}

// Tasks are the child sessions the session's task calls ran in, each
// once, in order.
func (s *Session) Tasks() []string {
	var out []string
	for _, u := range s.Uses {
		if id := u.TaskSession(); u.Name == "task" && id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Export is a session as `opencode export` prints it: its messages with
// their parts, a subagent's included (the run's event stream has only
// the main session's).
type Export struct {
	Messages []struct {
		Info struct {
			Role  string `json:"role"`
			Agent string `json:"agent"`
		} `json:"info"`
		Parts []Part `json:"parts"`
	} `json:"messages"`
}

// Uses are the exported session's tool calls, in order.
func (x *Export) Uses() []ToolUse {
	var out []ToolUse
	for _, m := range x.Messages {
		for _, p := range m.Parts {
			if p.Type == "tool" && p.State != nil {
				out = append(out, p.use())
			}
		}
	}
	return out
}

// Texts are the exported session's assistant texts, in order.
func (x *Export) Texts() []string {
	var out []string
	for _, m := range x.Messages {
		for _, p := range m.Parts {
			if m.Info.Role == "assistant" && p.Type == "text" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// Export runs `opencode export id` on this host (a few seconds: it starts
// the whole CLI) and decodes it: how a test sees what a subagent did.
func (h *Host) Export(id string) *Export {
	h.T.Helper()
	out, err := h.Command(h.Env(), h.OpenCode, "export", id)
	if err != nil {
		h.T.Fatal(err)
	}
	var x Export
	if err := json.Unmarshal(out, &x); err != nil {
		h.T.Fatalf("opencode export %s: %v\n%s", id, err, scripted.Clip(string(out), 2000))
	}
	return &x
}

// Transcript is the session's texts and calls with their results, one or
// two lines each, for a failure's log.
func (s *Session) Transcript() string {
	var b strings.Builder
	for _, e := range s.Events {
		switch {
		case e.Type == "error":
			fmt.Fprintf(&b, "ERROR %s\n", scripted.Clip(string(e.Error), 400))
		case e.Part == nil:
		case e.Part.Type == "text":
			fmt.Fprintf(&b, "text: %q\n", scripted.Clip(e.Part.Text, 300))
		case e.Part.Type == "tool" && e.Part.State != nil:
			st := e.Part.State
			fmt.Fprintf(&b, "%s %s\n  -> %s %q\n", e.Part.Tool, scripted.Clip(string(st.Input), 400), st.Status, scripted.Clip(st.Output+st.Error, 400))
		}
	}
	return b.String()
}

var sessionIDRe = regexp.MustCompile(`^ses_[A-Za-z0-9]+$`)

// ToolUses are the tool calls of the sessions ids (a subagent's, say), in
// the order they were made, by session, read from opencode's database
// with one query (`opencode db`): what Export gives of them (but their
// output and metadata) with one start of the CLI rather than one for
// each. The query's output goes to a file: into a pipe, opencode db
// ends before the whole of it is written.
func (h *Host) ToolUses(ids []string) map[string][]ToolUse {
	h.T.Helper()
	out := map[string][]ToolUse{}
	if len(ids) == 0 {
		return out
	}
	var quoted []string
	for _, id := range ids {
		if !sessionIDRe.MatchString(id) {
			h.T.Fatalf("%q is no session id", id)
		}
		quoted = append(quoted, "'"+id+"'")
	}
	query := "select session_id, json_extract(data, '$.callID') as call, json_extract(data, '$.tool') as tool, " +
		"json_extract(data, '$.state.status') as status, json_extract(data, '$.state.input') as input, " +
		"json_extract(data, '$.state.error') as error from part where session_id in (" + strings.Join(quoted, ", ") +
		") and json_extract(data, '$.type') = 'tool' order by id"
	f, err := os.CreateTemp(h.Tmp, "db-*.json")
	if err != nil {
		h.T.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.OpenCode, "db", "--format", "json", query)
	cmd.Dir = h.Repo
	cmd.Env = h.Env()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		h.T.Fatalf("opencode db %q: %v\n%s", query, err, stderr.String())
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		h.T.Fatal(err)
	}
	var rows []struct {
		SessionID string  `json:"session_id"`
		Call      string  `json:"call"`
		Tool      string  `json:"tool"`
		Status    string  `json:"status"`
		Input     string  `json:"input"`
		Error     *string `json:"error"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		h.T.Fatalf("opencode db %q: %v\n%s", query, err, scripted.Clip(string(b), 2000))
	}
	for _, r := range rows {
		u := ToolUse{ID: r.Call, Name: r.Tool, Input: json.RawMessage(r.Input), Status: r.Status}
		if r.Error != nil {
			u.Error = *r.Error
		}
		out[r.SessionID] = append(out[r.SessionID], u)
	}
	return out
}
