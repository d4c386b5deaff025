package host

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
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/claudecode"
	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/plaincmd"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// DefaultAllow are the allow rules of the user's settings a host starts
// with: what a user clicks once for a run of the skill. No Bash: the
// skill's own allowed-tools pre-approve its commands, and a test of a
// plan adds the plan's own (follower.Scenario.UserRules).
var DefaultAllow = []string{"Skill", "Read", "Agent"}

// Host is one machine for sessions of the real CLI: an isolated HOME with
// the plugin installed and a git identity, an isolated TMPDIR, a PATH of
// system directories only, the scripted model, and the repository the
// sessions run in. Sessions run one after another in the same HOME and
// repository, so a later one resumes where an earlier one stopped.
type Host struct {
	t       testing.TB
	Claude  string   // the claude binary
	Home    string   // HOME, with ~/.claude in it
	Tmp     string   // TMPDIR
	Runtime string   // XDG_RUNTIME_DIR (claudecode.RuntimeDir)
	Repo    string   // the sessions' working directory
	Plugin  string   // the installed plugin's directory
	Path    []string // the sessions' PATH, before the host appends the plugin's bin/
	Server  *Server

	// Allow are the allow rules of the user's settings
	// (~/.claude/settings.json), written before each session; DefaultAllow
	// unless changed. Sessions run in the default permission mode, with
	// no --allowedTools: what no rule allows is refused under claude -p.
	Allow      []string
	Timeout    time.Duration                      // of one session; 3 minutes unless changed
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
	claude := claudecode.Binary(t)
	base := testutil.RealTempDir(t)
	h := &Host{
		t: t, Claude: claude, Repo: repo,
		Home: filepath.Join(base, "home"), Tmp: filepath.Join(base, "tmp"), Runtime: claudecode.RuntimeDir(t),
		Path: SystemPath(t), Server: NewServer(t),
		Allow: DefaultAllow, Timeout: 3 * time.Minute, Plain: true,
	}
	for _, d := range []string{h.Home, h.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitconfig := "[user]\n\tname = SDD Host Test\n\temail = host@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(h.Home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Plugin = InstallPlugin(t, h.Home)
	return h
}

// Env is the environment of a claude process on this host.
func (h *Host) Env() []string {
	return claudecode.Env(h.Home, h.Tmp, h.Runtime, h.Server.URL, h.Path)
}

// SystemPath is the PATH a session gets: the directories of git, sh and
// bash (the Bash tool's shell) and nothing else, so a command can only be
// found in the plugin's bin/, never in GOPATH/bin or ~/go/bin. It fails
// the test if one of them holds a command of ours.
func SystemPath(t testing.TB) []string {
	t.Helper()
	var dirs []string
	for _, prog := range []string{"git", "sh", "bash"} {
		p, err := exec.LookPath(prog)
		if err != nil {
			t.Fatalf("a session needs %s: %v", prog, err)
		}
		d := filepath.Dir(p)
		if !contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for _, c := range ship.Commands {
			if _, err := os.Stat(filepath.Join(d, c)); err == nil {
				t.Fatalf("%s holds %s: a session could not tell it from the plugin's", d, c)
			}
		}
	}
	return dirs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var installer struct {
	once sync.Once
	bin  string // the installer, built once per process
	cmds string // the commands' binaries, as they ship
	err  error
}

// InstallPlugin installs the sdd-go plugin for Claude Code into home the
// way a user does (Install) and returns the plugin's directory,
// ~/.claude/skills/sdd-go/.
func InstallPlugin(t testing.TB, home string) string {
	t.Helper()
	Install(t, home, "claude-code")
	return filepath.Join(home, ".claude", "skills", "sdd-go")
}

// Install installs sdd-go for a host (claude-code, codex, opencode) into
// home the way a user does: the project's installer (scripts/install-skill,
// built once per process) runs with HOME set to home, --host, and the
// commands as they ship (testutil's build, passed with --bin, so nothing
// is compiled twice). env are more variables of its environment, such as
// the CODEX_HOME or XDG_CONFIG_HOME that says where that host looks.
func Install(t testing.TB, home, hostName string, env ...string) {
	t.Helper()
	installer.once.Do(func() {
		if installer.cmds, installer.err = testutil.BuildBinaries(); installer.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "sdd-installer-")
		if err != nil {
			installer.err = err
			return
		}
		installer.bin = filepath.Join(dir, ship.BinaryName("install-skill", runtime.GOOS))
		cmd := exec.Command("go", "build", "-o", installer.bin, "./scripts/install-skill")
		cmd.Dir = testutil.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			installer.err = fmt.Errorf("go build ./scripts/install-skill: %v\n%s", err, out)
		}
	})
	if installer.err != nil {
		t.Fatal(installer.err)
	}
	cmd := exec.Command(installer.bin, "--host", hostName, "--bin", installer.cmds)
	cmd.Dir = testutil.ModuleRoot()
	cmd.Env = append(append(os.Environ(), "HOME="+home, "USERPROFILE="+home, "CODEX_HOME=", "XDG_CONFIG_HOME="), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install-skill --host %s --bin %s: %v\n%s", hostName, installer.cmds, err, out)
	}
}

// RemoveInstaller removes the installer InstallPlugin built (TestMain
// calls it).
func RemoveInstaller() {
	if installer.bin != "" {
		os.RemoveAll(filepath.Dir(installer.bin))
	}
}

// Session is what one `claude -p` run did, from its stream-json output.
type Session struct {
	Prompt  string
	Events  []Event      // every line of the stream, in order
	Uses    []ToolUse    // every tool call, the subagents' included
	Results []ToolResult // every tool result, the subagents' included
	Final   *Event       // the last result event; nil if none came
	Stderr  string
	Elapsed time.Duration
	Err     error // how the process ended, if not with status 0
}

// Event is one line of the stream-json output.
type Event struct {
	Type            string   `json:"type"`
	Subtype         string   `json:"subtype"`
	ParentToolUseID string   `json:"parent_tool_use_id"`
	Message         *Message `json:"message"`
	Result          string   `json:"result"` // a result event's final text
	IsError         bool     `json:"is_error"`
	NumTurns        int      `json:"num_turns"`
	Raw             json.RawMessage
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

// ResultOf returns the result of the call with id.
func (s *Session) ResultOf(id string) (ToolResult, bool) {
	for _, r := range s.Results {
		if r.ToolUseID == id {
			return r, true
		}
	}
	return ToolResult{}, false
}

// Commands are the main session's Bash commands, in order.
func (s *Session) Commands() []string {
	var out []string
	for _, u := range s.Uses {
		if u.Agent == "" && u.Name == "Bash" {
			out = append(out, u.Command())
		}
	}
	return out
}

// Run runs `claude -p prompt` in the repository, the scripted controller
// answering for the main session, and checks what every run must hold:
// the process ended well, no script failed, the last result is no error,
// no tool result was an error (but those AllowError accepts), and every
// Bash command of the controller passes CheckCommand. Failures are the
// test's (t.Errorf), with the transcript logged; the session is returned
// for the test's own assertions either way.
func (h *Host) Run(prompt string, controller Script) *Session {
	t := h.t
	t.Helper()
	h.Server.Handle(prompt, controller)
	failuresBefore := len(h.Server.Failures())

	h.writeSettings()
	s := &Session{Prompt: prompt}
	run, err := scripted.RunCLI(func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.Claude, "-p", prompt, "--output-format", "stream-json", "--verbose")
	}, h.Repo, h.Env(), h.Timeout, h.Server.Failed(), func(r io.Reader) { readStream(r, s) })
	if err != nil {
		t.Fatal(err)
	}
	s.Err, s.Elapsed, s.Stderr = run.Err, run.Elapsed, run.Stderr

	var problems []string
	if s.Err != nil {
		problems = append(problems, fmt.Sprintf("claude: %v\nstderr: %s", s.Err, s.Stderr))
	}
	for _, f := range h.Server.Failures()[failuresBefore:] {
		problems = append(problems, "script failed: "+f)
	}
	switch {
	case s.Final == nil:
		problems = append(problems, "the stream has no result event")
	case s.Final.IsError:
		problems = append(problems, fmt.Sprintf("the session ended in error (%s): %s", s.Final.Subtype, s.Final.Result))
	}
	for _, r := range s.Results {
		if !r.IsError {
			continue
		}
		u, _ := s.Use(r)
		if h.AllowError == nil || !h.AllowError(u, r) {
			problems = append(problems, fmt.Sprintf("%s %s came back an error: %s", u.Name, scripted.Clip(string(u.Input), 300), scripted.Clip(r.Text, 1000)))
		}
	}
	for _, r := range s.Results {
		if permissionRefusal(r.Text) {
			u, _ := s.Use(r)
			problems = append(problems, fmt.Sprintf("%s %s was refused for want of a person's approval: %s", u.Name, scripted.Clip(string(u.Input), 300), scripted.Clip(r.Text, 300)))
		}
	}
	if h.Plain {
		problems = append(problems, h.checkPlain(s.Uses)...)
	}
	if len(problems) > 0 {
		t.Logf("transcript of the session (%v):\n%s", s.Elapsed.Round(time.Millisecond), s.Transcript())
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
				s.Events = append(s.Events, e)
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
	if e.Type == "result" {
		ev := e
		s.Final = &ev
	}
	if e.Message == nil {
		return
	}
	for _, b := range e.Message.Content {
		switch b.Type {
		case "tool_use":
			s.Uses = append(s.Uses, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input, Agent: e.ParentToolUseID})
		case "tool_result":
			s.Results = append(s.Results, ToolResult{ToolUseID: b.ToolUseID, Text: b.ResultText(), IsError: b.IsError, Agent: e.ParentToolUseID})
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
				fmt.Fprintf(&b, "[%s]   %s %q\n", who, mark, scripted.Clip(c.ResultText(), 400))
			}
		}
	}
	return b.String()
}

// writeSettings writes the user's settings: the allow rules, in the
// default permission mode.
func (h *Host) writeSettings() {
	b, err := json.Marshal(map[string]any{"permissions": map[string]any{"allow": h.Allow}})
	if err != nil {
		h.t.Fatal(err)
	}
	dir := filepath.Join(h.Home, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o644); err != nil {
		h.t.Fatal(err)
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
	skillMD, err := os.ReadFile(filepath.Join(h.Plugin, "skills", "subagent-driven-development", "SKILL.md"))
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
