package codexhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/codexcli"
	"github.com/sdd-go/sdd-go/internal/dev/host"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Host is one machine for sessions of the real Codex CLI: an isolated
// HOME and CODEX_HOME (whose config.toml names the scripted model as the
// only provider) with a git identity, an isolated TMPDIR, a PATH of
// system directories only, the scripted model, and the directory the
// sessions run in. Sessions run one after another in the same homes.
type Host struct {
	t         testing.TB
	Codex     string   // the codex binary
	Home      string   // HOME
	CodexHome string   // CODEX_HOME: Home/.codex
	Tmp       string   // TMPDIR, beside Home (see codexcli.Env)
	Repo      string   // the sessions' working directory
	Path      []string // the sessions' PATH
	Server    *Server

	Timeout time.Duration // of one session; 3 minutes unless changed
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_CODEX_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	codex := codexcli.Binary(t)
	base := testutil.RealTempDir(t)
	h := &Host{
		t: t, Codex: codex, Repo: repo,
		Home: filepath.Join(base, "home"), Tmp: filepath.Join(base, "tmp"),
		Path: host.SystemPath(t), Server: NewServer(t), Timeout: 3 * time.Minute,
	}
	h.CodexHome = filepath.Join(h.Home, ".codex")
	for _, d := range []string{h.CodexHome, h.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := codexcli.WriteConfig(h.CodexHome, h.Server.URL); err != nil {
		t.Fatal(err)
	}
	gitconfig := "[user]\n\tname = SDD Host Test\n\temail = host@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(h.Home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// Env is the environment of a codex process on this host.
func (h *Host) Env() []string {
	return codexcli.Env(h.Home, h.CodexHome, h.Tmp, h.Path)
}

// Session is what one `codex exec --json` run did, from its event stream.
// Only the main thread's items are in it: the CLI reports a subagent's
// calls as collab_tool_call items of the main thread, never its commands
// (0.171.0); those are in the server's requests.
type Session struct {
	Prompt   string
	ThreadID string
	Events   []Event      // every line of the stream, in order
	Items    []ThreadItem // every completed item, in order
	Final    string       // the text of the last agent_message
	Done     bool         // a turn.completed came
	Stderr   string
	Elapsed  time.Duration
	Err      error // how the process ended, if not with status 0
}

// Event is one line of the --json stream.
type Event struct {
	Type     string      `json:"type"` // thread.started, turn.started, item.started, item.completed, turn.completed, turn.failed, error
	ThreadID string      `json:"thread_id"`
	Item     *ThreadItem `json:"item"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"` // an error event's
	Raw     json.RawMessage
}

// ThreadItem is an item of the stream: an agent_message, a
// command_execution, a collab_tool_call, an error, …
type ThreadItem struct {
	ID               string                      `json:"id"`
	Type             string                      `json:"type"`
	Text             string                      `json:"text"`    // agent_message
	Message          string                      `json:"message"` // error
	Command          string                      `json:"command"` // command_execution
	AggregatedOutput string                      `json:"aggregated_output"`
	ExitCode         *int                        `json:"exit_code"`
	Status           string                      `json:"status"`
	Tool             string                      `json:"tool"` // collab_tool_call: spawn_agent, wait, send_input, close_agent
	Prompt           string                      `json:"prompt"`
	ReceiverThreads  []string                    `json:"receiver_thread_ids"`
	AgentsStates     map[string]CollabAgentState `json:"agents_states"`
	Raw              json.RawMessage             `json:"-"`
}

// CollabAgentState is a subagent's state in a collab_tool_call item.
type CollabAgentState struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// Commands are the session's command_execution items, completed.
func (s *Session) Commands() []ThreadItem {
	var out []ThreadItem
	for _, it := range s.Items {
		if it.Type == "command_execution" {
			out = append(out, it)
		}
	}
	return out
}

// ItemsOf are the session's completed items of type typ.
func (s *Session) ItemsOf(typ string) []ThreadItem {
	var out []ThreadItem
	for _, it := range s.Items {
		if it.Type == typ {
			out = append(out, it)
		}
	}
	return out
}

// noMetadata starts the error item the CLI emits once a session for a
// model outside its catalog (codexcli.Model), which is expected.
const noMetadata = "Model metadata for `" + codexcli.Model + "` not found"

// Run runs `codex exec --json prompt` in the repository, script answering
// for the main thread, and checks what every run must hold: the process
// ended well, no script failed, the turn completed, and no error came
// but the expected one about the model's metadata. Failures are the
// test's (t.Errorf), with the session logged; the session is returned
// for the test's own assertions either way.
func (h *Host) Run(prompt string, script Script) *Session {
	t := h.t
	t.Helper()
	h.Server.Handle(prompt, script)
	failuresBefore := len(h.Server.Failures())
	requestsBefore := len(h.Server.Requests())

	s := &Session{Prompt: prompt}
	run, err := scripted.RunCLI(func(ctx context.Context) *exec.Cmd {
		// The prompt is an argument and stdin is /dev/null: exec reads
		// stdin when it is not a terminal, and would append it to the
		// prompt.
		return exec.CommandContext(ctx, h.Codex, "exec", "--skip-git-repo-check", "--json", "--color", "never", prompt)
	}, h.Repo, h.Env(), h.Timeout, h.Server.Failed(), func(r io.Reader) { readStream(r, s) })
	if err != nil {
		t.Fatal(err)
	}
	s.Err, s.Elapsed, s.Stderr = run.Err, run.Elapsed, run.Stderr

	t.Logf("codex exec: %v, %d model requests", s.Elapsed.Round(time.Millisecond), len(h.Server.Requests())-requestsBefore)
	var problems []string
	if s.Err != nil {
		problems = append(problems, fmt.Sprintf("codex: %v\nstderr: %s", s.Err, s.Stderr))
	}
	for _, f := range h.Server.Failures()[failuresBefore:] {
		problems = append(problems, "script failed: "+f)
	}
	if !s.Done {
		problems = append(problems, "the stream has no turn.completed")
	}
	for _, e := range s.Events {
		switch {
		case e.Type == "turn.failed" && e.Error != nil:
			problems = append(problems, "the turn failed: "+e.Error.Message)
		case e.Type == "error":
			problems = append(problems, "error event: "+e.Message)
		}
	}
	for _, it := range s.ItemsOf("error") {
		if !strings.HasPrefix(it.Message, noMetadata) {
			problems = append(problems, "error item: "+it.Message)
		}
	}
	if len(problems) > 0 {
		t.Logf("session (%v):\n%s", s.Elapsed.Round(time.Millisecond), s.Transcript())
		for _, p := range problems {
			t.Errorf("%s", p)
		}
	}
	return s
}

func readStream(r io.Reader, s *Session) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Event
			if json.Unmarshal(line, &e) == nil {
				e.Raw = append(json.RawMessage(nil), bytes.TrimSpace(line)...)
				s.take(e)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.Err = err
			}
			return
		}
	}
}

func (s *Session) take(e Event) {
	s.Events = append(s.Events, e)
	switch e.Type {
	case "thread.started":
		s.ThreadID = e.ThreadID
	case "turn.completed":
		s.Done = true
	case "item.completed":
		if e.Item == nil {
			return
		}
		it := *e.Item
		var raw struct {
			Item json.RawMessage `json:"item"`
		}
		json.Unmarshal(e.Raw, &raw)
		it.Raw = raw.Item
		s.Items = append(s.Items, it)
		if it.Type == "agent_message" {
			s.Final = it.Text
		}
	}
}

// Transcript is the session's completed items, one or two lines each, for
// a failure's log.
func (s *Session) Transcript() string {
	var b strings.Builder
	for _, it := range s.Items {
		switch it.Type {
		case "agent_message":
			fmt.Fprintf(&b, "say %q\n", scripted.Clip(it.Text, 300))
		case "command_execution":
			code := "?"
			if it.ExitCode != nil {
				code = fmt.Sprint(*it.ExitCode)
			}
			fmt.Fprintf(&b, "exec %q\n  -> exit %s %q\n", scripted.Clip(it.Command, 300), code, scripted.Clip(it.AggregatedOutput, 400))
		default:
			fmt.Fprintf(&b, "%s %s\n", it.Type, scripted.Clip(string(it.Raw), 400))
		}
	}
	fmt.Fprintf(&b, "stderr: %s\n", scripted.Clip(s.Stderr, 2000))
	return b.String()
}
