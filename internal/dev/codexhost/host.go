package codexhost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Host is one machine for sessions of the real Codex CLI
// (harness.Machine) with its CODEX_HOME, whose config.toml names the
// scripted model, speaking the Responses API, as the only provider.
type Host struct {
	*harness.Machine
	Codex     string // the codex binary
	CodexHome string // CODEX_HOME: Home/.codex
	// AllowError accepts a call of a conversation of the session whose
	// result is a failure (an exit code but 0); nil: none is.
	AllowError func(c scripted.CallResult) bool
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_CODEX_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	codex := hostcli.Codex.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Responses{}, harness.SystemPath(t)), Codex: codex}
	h.Server.PromptOf = promptOf
	h.CodexHome = filepath.Join(h.Home, ".codex")
	if err := WriteConfig(h.CodexHome, h.Server.URL); err != nil {
		t.Fatal(err)
	}
	return h
}

// contextTags open the user-role texts the CLI itself puts in a
// conversation before the prompt (0.171.0): they are never its prompt.
var contextTags = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions"}

func promptOf(text string) string {
	for _, tag := range contextTags {
		if strings.HasPrefix(text, tag) {
			return ""
		}
	}
	return text
}

// Env is the environment of a codex process on this host.
func (h *Host) Env() []string {
	return env(h.Home, h.CodexHome, h.Tmp, h.Path)
}

// InstallSkill installs the skill for Codex the way a user does, with the
// project's installer (harness.Install, --host codex) run with HOME and
// CODEX_HOME set to the host's: the skill in $CODEX_HOME/skills/
// <ship.SkillName>/ with the commands as they ship in its bin/. Codex
// lists the folder's SKILL.md in the instructions; nothing puts its bin/
// on PATH. It returns the skill's directory.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "codex"}, "CODEX_HOME="+h.CodexHome)
	return filepath.Join(h.CodexHome, "skills", ship.SkillName)
}

// Session is what one `codex exec --json` run did, from its event stream.
// Only the main thread's items are in it: the CLI reports a subagent's
// calls as collab_tool_call items of the main thread, never its commands
// (0.171.0); those are in the server's requests.
type Session struct {
	*harness.Played // the process, the follower's steps, the last agent_message's text
	Prompt          string
	ThreadID        string
	Events          []Event      // every line of the stream, in order
	Items           []ThreadItem // every completed item, in order
	Done            bool         // a turn.completed came
	final           string
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
// model outside its catalog (Model), which is expected.
const noMetadata = "Model metadata for `" + Model + "` not found"

// Run runs `codex exec --json prompt` in the repository, script answering
// for the main thread, and checks what every run must hold: the process
// ended well, no script failed, the turn completed, no error came but
// the expected one about the model's metadata, no conversation went
// unanswered by a script, and no call of any conversation of the session
// came back a failure (a command's exit code but 0, an agent call the
// CLI did not carry out; but those AllowError accepts). Failures are the
// test's (t.Errorf), with the session logged; the session is returned
// for the test's own assertions either way.
func (h *Host) Run(prompt string, script Script) *Session {
	t := h.T
	t.Helper()
	before := len(h.Server.Requests())
	s := &Session{Prompt: prompt}
	var readErr error
	p := h.Play(prompt, script.Play(), h.Env(), func(ctx context.Context) *exec.Cmd {
		// The prompt is an argument and stdin is /dev/null: exec reads
		// stdin when it is not a terminal, and would append it to the
		// prompt.
		return exec.CommandContext(ctx, h.Codex, "exec", "--skip-git-repo-check", "--json", "--color", "never", prompt)
	}, func(r io.Reader) { readErr = harness.ReadEvents(r, s.take) })
	s.Played, p.Final = p, s.final
	t.Logf("codex exec: %v, %d model requests", p.Elapsed.Round(time.Millisecond), len(h.Server.Requests())-before)
	p.Ended("codex", readErr)
	if !s.Done {
		p.Problems = append(p.Problems, "the stream has no turn.completed")
	}
	for _, e := range s.Events {
		switch {
		case e.Type == "turn.failed" && e.Error != nil:
			p.Problems = append(p.Problems, "the turn failed: "+e.Error.Message)
		case e.Type == "error":
			p.Problems = append(p.Problems, "error event: "+e.Message)
		}
	}
	for _, it := range s.ItemsOf("error") {
		if !strings.HasPrefix(it.Message, noMetadata) {
			p.Problems = append(p.Problems, "error item: "+it.Message)
		}
	}
	p.Problems = append(p.Problems, h.CallProblems(before, h.failed)...)
	p.Report(h.Machine, s.Transcript)
	return s
}

// failed says what in a call's result marks it failed, "" when nothing
// does (or AllowError accepts it): a command's exit code but 0, an answer
// with neither an exit code nor a session, an agent call the CLI did not
// carry out (no JSON).
func (h *Host) failed(c scripted.CallResult) string {
	if h.AllowError != nil && h.AllowError(c) {
		return ""
	}
	switch c.Name {
	case "exec_command", "write_stdin":
		_, code, exited, running := parseExec(c.Output)
		if exited && code != 0 || !exited && running == 0 {
			return c.Output
		}
	case "spawn_agent", "wait_agent", "close_agent":
		var v map[string]any
		if json.Unmarshal([]byte(c.Output), &v) != nil {
			return c.Output
		}
	}
	return ""
}

func (s *Session) take(e Event, line json.RawMessage) {
	e.Raw = line
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
			s.final = it.Text
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
