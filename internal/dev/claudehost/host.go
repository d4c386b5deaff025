package claudehost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/plaincmd"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// DefaultAllow are the allow rules of the user's settings a host starts
// with: what a user clicks once for a run of the skill. No Bash: the
// skill's own allowed-tools pre-approve its commands, and a test of a
// plan adds the plan's own (follower.Scenario.UserRules).
var DefaultAllow = []string{"Skill", "Read", "Agent"}

// Host is one machine for sessions of the real CLI (harness.Machine),
// its model the scripted Messages API of ANTHROPIC_BASE_URL, with the
// plugin installed by the project's installer.
type Host struct {
	*harness.Machine
	Claude  string // the claude binary
	Runtime string // XDG_RUNTIME_DIR (RuntimeDir)
	Plugin  string // the installed plugin's directory

	// Allow are the allow rules of the user's settings
	// (~/.claude/settings.json), written before each session; DefaultAllow
	// unless changed. Sessions run in the default permission mode, with
	// no --allowedTools: what no rule allows is refused under claude -p.
	Allow      []string
	AllowError func(u ToolUse, r ToolResult) bool // error results a test expects; nil: none
	// Plain makes every Bash command of a session pass the plain-command
	// check (internal/dev/plaincmd) with the rules it runs under: the
	// controller's with Allow and the skill's allowed-tools, a subagent's
	// with Allow. On unless a test of the host itself turns it off.
	Plain bool
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_CLAUDE_CODE) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	claude := hostcli.Claude.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Messages{}, harness.SystemPath(t)),
		Claude: claude, Runtime: RuntimeDir(t), Allow: DefaultAllow, Plain: true}
	h.Server.PromptOf = promptOf
	h.Plugin = InstallPlugin(t, h.Home)
	return h
}

// promptOf is the prompt a user text is: none for the system reminders
// the CLI puts before it.
func promptOf(text string) string {
	if strings.HasPrefix(text, "<system-reminder>") {
		return ""
	}
	return text
}

// Env is the environment of a claude process on this host.
func (h *Host) Env() []string {
	return env(h.Home, h.Tmp, h.Runtime, h.Server.URL, h.Path)
}

// InstallPlugin installs the sdd-go plugin for Claude Code into home the
// way a user does (harness.Install, --host claude-code) and returns the
// plugin's directory, ~/.claude/skills/sdd-go/.
func InstallPlugin(t testing.TB, home string) string {
	t.Helper()
	harness.Install(t, home, []string{"--host", "claude-code"})
	return filepath.Join(home, ".claude", "skills", "sdd-go")
}

// Session is what one `claude -p` run did, from its stream-json output
// (the process, the follower's steps, the result event's text: Played).
type Session struct {
	*harness.Played
	Prompt  string
	Events  []Event      // every line of the stream, in order
	Uses    []ToolUse    // every tool call, the subagents' included
	Results []ToolResult // every tool result, the subagents' included
	Result  *Event       // the last result event; nil if none came
}

// Event is one line of the stream-json output.
type Event struct {
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	ParentToolUseID string `json:"parent_tool_use_id"`
	Message         *struct {
		Role    string          `json:"role"`
		Content scripted.Blocks `json:"content"`
	} `json:"message"`
	Result   string `json:"result"` // a result event's final text
	IsError  bool   `json:"is_error"`
	NumTurns int    `json:"num_turns"`
	Raw      json.RawMessage
}

// ToolUse is one tool call; Agent is "" for the main session's, else the
// id of the Agent call that started the subagent making it.
type ToolUse struct {
	ID, Name string
	Input    json.RawMessage
	Agent    string
}

// Command is a Bash call's command.
func (u ToolUse) Command() string {
	var in struct{ Command string }
	json.Unmarshal(u.Input, &in)
	return in.Command
}

// ToolResult is what came back for one tool call.
type ToolResult struct {
	ToolUseID string
	Text      string
	IsError   bool
	Agent     string
}

// Use returns the call a result answers.
func (s *Session) Use(r ToolResult) (ToolUse, bool) {
	for _, u := range s.Uses {
		if u.ID == r.ToolUseID {
			return u, true
		}
	}
	return ToolUse{}, false
}

// Run runs `claude -p prompt` in the repository, the scripted controller
// answering for the main session, and checks what every run must hold:
// the process ended well, no script failed, the last result is no error,
// no tool result was an error (but those AllowError accepts), and every
// Bash command of the controller passes CheckCommand. Failures are the
// test's (t.Errorf), with the transcript logged; the session is returned
// for the test's own assertions either way.
func (h *Host) Run(prompt string, controller Script) *Session {
	t := h.T
	t.Helper()
	h.writeSettings()
	s := &Session{Prompt: prompt}
	var readErr error
	p := h.Play(prompt, controller.Play(), h.Env(), func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.Claude, "-p", prompt, "--output-format", "stream-json", "--verbose")
	}, func(r io.Reader) { readErr = harness.ReadEvents(r, s.take) })
	s.Played = p
	p.Ended("claude", readErr)
	switch {
	case s.Result == nil:
		p.Problems = append(p.Problems, "the stream has no result event")
	case s.Result.IsError:
		p.Problems = append(p.Problems, fmt.Sprintf("the session ended in error (%s): %s", s.Result.Subtype, s.Result.Result))
	default:
		p.Final = s.Result.Result
	}
	for _, r := range s.Results {
		u, _ := s.Use(r)
		switch {
		case r.IsError && (h.AllowError == nil || !h.AllowError(u, r)):
			p.Problems = append(p.Problems, fmt.Sprintf("%s %s came back an error: %s", u.Name, scripted.Clip(string(u.Input), 300), scripted.Clip(r.Text, 1000)))
		case permissionRefusal(r.Text):
			p.Problems = append(p.Problems, fmt.Sprintf("%s %s was refused for want of a person's approval: %s", u.Name, scripted.Clip(string(u.Input), 300), scripted.Clip(r.Text, 300)))
		}
	}
	if h.Plain {
		p.Problems = append(p.Problems, h.checkPlain(s.Uses)...)
	}
	// A test's long name makes a long TMPDIR: the CLI's sockets go to the
	// short XDG_RUNTIME_DIR, not to /tmp/cc-socks-<uid>, which it would
	// leave on the machine.
	if _, err := os.Stat(filepath.Join(h.Runtime, "cc-socks")); err != nil {
		p.Problems = append(p.Problems, "the CLI's sockets are not in its XDG_RUNTIME_DIR: "+err.Error())
	}
	p.Report(h.Machine, s.Transcript)
	return s
}

func (s *Session) take(e Event, line json.RawMessage) {
	e.Raw = line
	s.Events = append(s.Events, e)
	if e.Type == "result" {
		ev := e
		s.Result = &ev
	}
	if e.Message == nil {
		return
	}
	for _, b := range e.Message.Content {
		switch b.Type {
		case "tool_use":
			s.Uses = append(s.Uses, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input, Agent: e.ParentToolUseID})
		case "tool_result":
			s.Results = append(s.Results, ToolResult{ToolUseID: b.ToolUseID, Text: b.Content.Text(), IsError: b.IsError, Agent: e.ParentToolUseID})
		}
	}
}

// Transcript is the session's calls and results, one or two lines each,
// for a failure's log.
func (s *Session) Transcript() string {
	var b strings.Builder
	for _, e := range s.Events {
		if e.Message == nil {
			continue
		}
		who := "main"
		if e.ParentToolUseID != "" {
			who = "agent " + e.ParentToolUseID
		}
		for _, c := range e.Message.Content {
			switch c.Type {
			case "text":
				fmt.Fprintf(&b, "[%s] %s: %q\n", who, e.Type, scripted.Clip(c.Text, 300))
			case "tool_use":
				fmt.Fprintf(&b, "[%s] %s %s\n", who, c.Name, scripted.Clip(string(c.Input), 400))
			case "tool_result":
				mark := "->"
				if c.IsError {
					mark = "-> ERROR"
				}
				fmt.Fprintf(&b, "[%s]   %s %q\n", who, mark, scripted.Clip(c.Content.Text(), 400))
			}
		}
	}
	return b.String()
}

// writeSettings writes the user's settings: the allow rules, in the
// default permission mode.
func (h *Host) writeSettings() {
	settings := map[string]any{"permissions": map[string]any{"allow": h.Allow}}
	if err := harness.WriteJSON(filepath.Join(h.Home, ".claude", "settings.json"), settings, 0o644); err != nil {
		h.T.Fatal(err)
	}
}

// permissionRefusal says whether a tool result is the host refusing a
// call no rule allows (Claude Code 2.1.328's words).
func permissionRefusal(text string) bool {
	for _, s := range []string{"requested permissions", "requires approval", "needs approval", "haven't granted", "permission to use"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// checkPlain holds every Bash command of a session to the plain-command
// check, with the rules it runs under.
func (h *Host) checkPlain(uses []ToolUse) []string {
	skillMD, err := os.ReadFile(filepath.Join(h.Plugin, "skills", ship.SkillName, "SKILL.md"))
	if err != nil {
		return []string{err.Error()}
	}
	user := plaincmd.Rules(h.Allow)
	controller := append(plaincmd.Rules(follower.AllowedTools(string(skillMD))), user...)
	var problems []string
	for _, u := range uses {
		if u.Name != "Bash" {
			continue
		}
		rules, who := controller, "the controller's"
		if u.Agent != "" {
			rules, who = user, "a subagent's"
		}
		if err := plaincmd.Check(u.Command(), rules); err != nil {
			problems = append(problems, fmt.Sprintf("%s command %q would wait for a person: %v", who, scripted.Clip(u.Command(), 300), err))
		}
	}
	return problems
}
