package copilothost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Host is one machine for sessions of the real CLI (harness.Machine), its
// model the provider of COPILOT_PROVIDER_BASE_URL.
type Host struct {
	*harness.Machine
	Copilot string // the copilot binary
	WireAPI string // COPILOT_PROVIDER_WIRE_API: Completions or Responses
	// Allow are the --allow-tool rules a session runs with, what a user
	// gives a non-interactive run ("--flag=value" is that flag: --add-dir);
	// AllowAll runs it with --allow-all-tools instead.
	Allow    []string
	AllowAll bool
	// AllowError accepts a tool result that was a failure; nil: none is.
	AllowError func(u ToolUse) bool
}

// New makes a host for sessions in repo whose model speaks the wire API
// wireAPI: Chat Completions (Completions, the CLI's default)
// or the Responses API (Responses). Without the CLI (no
// $SDD_COPILOT_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo, wireAPI string) *Host {
	t.Helper()
	bin := hostcli.Copilot.Installed(t)
	var wire scripted.Wire = scripted.Chat{}
	if wireAPI == Responses {
		wire = scripted.Responses{}
	}
	h := &Host{Machine: harness.NewMachine(t, repo, wire, harness.SystemPath(t)), Copilot: bin, WireAPI: wireAPI}
	h.Server.PromptOf = promptOf
	warm(t, bin)
	return h
}

// promptOf is the prompt a user text is: the CLI puts the time before
// the prompt, "<current_datetime>…</current_datetime>" and a blank line,
// in the same message.
func promptOf(text string) string {
	if rest, ok := strings.CutPrefix(text, "<current_datetime>"); ok {
		if _, p, ok := strings.Cut(rest, "</current_datetime>\n\n"); ok {
			return p
		}
	}
	return text
}

var warmed sync.Once

// warm starts the CLI once in its shared cache (Cache), which
// it unpacks its package into on the first start, before sessions run
// side by side.
func warm(t testing.TB, bin string) {
	warmed.Do(func() {
		home := t.TempDir()
		cmd := exec.Command(bin, "--version")
		cmd.Env = env(home, home, Cache(bin), "http://127.0.0.1:9", Completions, harness.SystemPath(t))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s --version: %v\n%s", bin, err, out)
		}
	})
}

// Env is the environment of a copilot process on this host.
func (h *Host) Env() []string {
	return env(h.Home, h.Tmp, Cache(h.Copilot), h.Server.URL, h.WireAPI, h.Path)
}

// InstallSkill installs the skill for Copilot CLI as a user does, with the
// project's installer: the skill's folder in ~/.copilot/skills/, the four
// commands as they ship in its bin/, which host-copilot.md has the model
// run by path. It returns the skill's directory.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "copilot"})
	return filepath.Join(h.Home, ".copilot", "skills", ship.SkillName)
}

// Session is what one `copilot -p` run did, from its JSON events (the
// process, the follower's steps and the last assistant message's text:
// Played).
type Session struct {
	*harness.Played
	Prompt string
	Events []Event
	Uses   []ToolUse // every tool call the stream reports, the subagents' among them
	Result *Event    // the closing result event; nil if none came
}

// Event is one line of the JSON output.
type Event struct {
	Type     string          `json:"type"`
	Data     json.RawMessage `json:"data"`
	ExitCode *int            `json:"exitCode"` // the result event's
	Raw      json.RawMessage `json:"-"`
}

// ToolUse is one tool call and how it ended.
type ToolUse struct {
	ID, Name string
	Input    json.RawMessage
	Agent    string // the task call whose subagent made it; "" for the session's own
	Done     bool   // a tool.execution_complete came
	Success  bool
	Output   string // result.content
	Error    string
}

// Run runs `copilot -p prompt --output-format json` in the repository, the
// scripted controller answering for the session, with the host's
// permissions, and checks what every run must hold: the process ended
// well, no script failed, the result came with exit code 0, and every
// tool call ended in success (but those AllowError accepts). Failures
// are the test's (t.Errorf), with the transcript logged.
func (h *Host) Run(prompt string, controller scripted.Script) *Session {
	t := h.T
	t.Helper()
	s := &Session{Prompt: prompt}
	args := []string{"-p", prompt, "--output-format", "json", "--no-ask-user"}
	if h.AllowAll {
		args = append(args, "--allow-all-tools")
	}
	for _, a := range h.Allow {
		if strings.HasPrefix(a, "--") {
			args = append(args, strings.SplitN(a, "=", 2)...)
			continue
		}
		args = append(args, "--allow-tool", a)
	}
	var readErr error
	var final string
	p := h.Play(prompt, controller, h.Env(), func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.Copilot, args...)
	}, func(r io.Reader) { readErr = readStream(r, s, &final) })
	s.Played, p.Final = p, final
	p.Ended("copilot", readErr)
	switch {
	case s.Result == nil:
		p.Problems = append(p.Problems, "the stream has no result event")
	case s.Result.ExitCode == nil || *s.Result.ExitCode != 0:
		p.Problems = append(p.Problems, "the result event's exit code is not 0: "+string(s.Result.Raw))
	}
	for _, u := range s.Uses {
		if u.Done && u.Success || h.AllowError != nil && h.AllowError(u) {
			continue
		}
		p.Problems = append(p.Problems, fmt.Sprintf("%s %s came back failed (done %v): %s %s", u.Name, scripted.Clip(string(u.Input), 300), u.Done, scripted.Clip(u.Error, 500), scripted.Clip(u.Output, 500)))
	}
	p.Report(h.Machine, s.Transcript)
	return s
}

func readStream(r io.Reader, s *Session, final *string) error {
	return harness.ReadEvents(r, func(e Event, line json.RawMessage) {
		e.Raw = line
		s.Events = append(s.Events, e)
		s.take(e, final)
	})
}

func (s *Session) take(e Event, final *string) {
	var d struct {
		ToolCallID      string          `json:"toolCallId"`
		ToolName        string          `json:"toolName"`
		Arguments       json.RawMessage `json:"arguments"`
		ParentToolCall  string          `json:"parentToolCallId"`
		Success         bool            `json:"success"`
		Result          struct{ Content string }
		Error           json.RawMessage `json:"error"`
		Content         string          `json:"content"`
		ToolRequests    []json.RawMessage
		ParentAgentTask string `json:"parentAgentTaskId"`
	}
	json.Unmarshal(e.Data, &d)
	switch e.Type {
	case "result":
		ev := e
		s.Result = &ev
	case "assistant.message":
		if d.ParentToolCall == "" && len(d.ToolRequests) == 0 {
			*final = d.Content
		}
	case "tool.execution_start":
		s.Uses = append(s.Uses, ToolUse{ID: d.ToolCallID, Name: d.ToolName, Input: d.Arguments, Agent: d.ParentToolCall})
	case "tool.execution_complete":
		for i := range s.Uses {
			if s.Uses[i].ID == d.ToolCallID {
				u := &s.Uses[i]
				u.Done, u.Success, u.Output = true, d.Success, d.Result.Content
				if len(d.Error) > 0 && string(d.Error) != "null" {
					u.Error = string(d.Error)
				}
			}
		}
	}
}

// Transcript is the session's calls and results, one or two lines each,
// for a failure's log.
func (s *Session) Transcript() string {
	var b strings.Builder
	for _, u := range s.Uses {
		who := "main"
		if u.Agent != "" {
			who = "agent " + u.Agent
		}
		fmt.Fprintf(&b, "[%s] %s %s\n  -> %v %q %s\n", who, u.Name, scripted.Clip(string(u.Input), 400), u.Success, scripted.Clip(u.Output, 400), scripted.Clip(u.Error, 300))
	}
	fmt.Fprintf(&b, "final: %q\nstderr: %s\n", scripted.Clip(s.Final, 400), scripted.Clip(s.Stderr, 2000))
	return b.String()
}
