// Package geminihost runs the skill in the real Gemini CLI (the version
// pinned in internal/dev/geminicli), offline, against the scripted model
// speaking the Gemini API (scripted.Gemini): one host of the shared
// harness (internal/dev/harness), with its adapter of the follower's
// tools (follow.go) and its session's -o stream-json events (this
// file). docs/host.md says what the CLI did.
package geminihost

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/geminicli"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Host is one machine for sessions of the real CLI (harness.Machine), its
// model the API at GOOGLE_GEMINI_BASE_URL.
type Host struct {
	*harness.Machine
	Gemini string // the CLI's bundle, gemini.js
}

// New makes a host for sessions in repo. Without the CLI (no
// $SDD_GEMINI_CLI) the test is skipped, or fails under make test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	bin := geminicli.Binary(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Gemini{}, harness.SystemPath(t, "node")), Gemini: bin}
	h.Server.PromptOf = promptOf
	return h
}

// promptOf is the prompt a user text is: none for the session context
// the CLI puts before a session's prompt (date, OS, the workspace and
// its tree), which differs from run to run.
func promptOf(text string) string {
	if strings.HasPrefix(text, "<session_context>") {
		return ""
	}
	return text
}

// Identity is the git identity the sessions' commands commit with. The
// CLI runs every command with GIT_CONFIG_GLOBAL=/dev/null, so the
// user.name of ~/.gitconfig is not seen there; a user's exported
// GIT_AUTHOR_*/GIT_COMMITTER_* variables pass through.
var Identity = []string{
	"GIT_AUTHOR_NAME=SDD Host Test", "GIT_AUTHOR_EMAIL=host@example.com",
	"GIT_COMMITTER_NAME=SDD Host Test", "GIT_COMMITTER_EMAIL=host@example.com",
}

// Env is the environment of a gemini process on this host.
func (h *Host) Env() []string {
	return append(geminicli.Env(h.Home, h.Tmp, h.Server.URL, h.Path), Identity...)
}

// Settings are the user's ~/.gemini/settings.json for a run of the
// skill: the session's (geminicli.Settings) and read_file allowed to read
// a file git ignores, as the review packages are (host-gemini.md).
func Settings() map[string]any {
	s := geminicli.Settings()
	s["context"] = map[string]any{"fileFiltering": map[string]any{"respectGitIgnore": false}}
	return s
}

// InstallSkill installs the skill for Gemini CLI as a user does, with the
// project's installer (--host gemini): the skill's folder in
// ~/.gemini/skills/ with the four commands in its bin/, and the policy
// allowing them and the skill's activation. It returns the skill's
// directory.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "gemini"})
	return filepath.Join(geminicli.Dir(h.Home), "skills", SkillName)
}

// Policy writes rules as the user's own policy file,
// ~/.gemini/policies/user.toml, beside the install's.
func (h *Host) Policy(rules string) {
	h.T.Helper()
	dir := filepath.Join(geminicli.Dir(h.Home), "policies")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "user.toml"), []byte(rules), 0o644); err != nil {
		h.T.Fatal(err)
	}
}

// Session is what one `gemini -p` run did: the process, the follower's
// steps and the controller's last words (Played), and its events.
type Session struct {
	*harness.Played
	Events []geminicli.Event
}

// Run runs `gemini -o stream-json -p prompt` in the repository, the
// scripted controller answering for the session, and checks what every
// run must hold: the process ended well, no script failed, the events
// show no failed call, no error and a successful result, every side
// request was answered in its schema, and no call of any conversation
// (the subagents' among them) came back an error. Failures are the
// test's (t.Errorf), with the transcript logged.
func (h *Host) Run(prompt string, controller scripted.Script) *Session {
	h.T.Helper()
	s, readErr := h.session(prompt, controller)
	p := s.Played
	if p.Err != nil || readErr != nil {
		p.Problems = append([]string{fmt.Sprintf("gemini: %v %v\nstderr: %s", p.Err, readErr, p.Stderr)}, p.Problems...)
	}
	p.Problems = append(p.Problems, geminicli.Problems(s.Events)...)
	if strings.Contains(p.Stderr, "[Routing]") {
		p.Problems = append(p.Problems, "the routing classifier could not read its answer: "+scripted.Clip(p.Stderr, 1000))
	}
	for _, conv := range h.Server.Prompts() {
		for _, c := range h.Server.Calls(conv) {
			if c.IsError {
				p.Problems = append(p.Problems, harness.Problem("an error: "+c.Output, c))
			}
		}
	}
	p.Report(h.Machine, s.Transcript)
	return s
}

// session runs `gemini -o stream-json -p prompt` with the extra
// arguments in the repository, the scripted controller answering for the
// session, and checks nothing: a failed script is among the problems
// (Played), the error is the reading of the events'.
func (h *Host) session(prompt string, controller scripted.Script, extra ...string) (*Session, error) {
	h.T.Helper()
	s := &Session{}
	var readErr error
	s.Played = h.Play(prompt, controller, h.Env(), func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.Gemini, geminicli.Args(prompt, extra...)...)
	}, func(r io.Reader) { s.Events, readErr = geminicli.ReadEvents(r) })
	for _, e := range s.Events {
		if e.Type == "message" && e.Role == "assistant" {
			s.Final += e.Content // a text streams in pieces
		}
	}
	return s, readErr
}

// Transcript is the session's events, one line each, for a failure's
// log.
func (s *Session) Transcript() string {
	var b strings.Builder
	for _, e := range s.Events {
		b.WriteString(scripted.Clip(e.Line, 600) + "\n")
	}
	fmt.Fprintf(&b, "final: %q\nstderr: %s\n", scripted.Clip(s.Final, 400), scripted.Clip(s.Stderr, 2000))
	return b.String()
}

// writeSettings writes the user's settings (Settings) into the host's
// HOME.
func writeSettings(h *Host) error { return geminicli.WriteSettings(h.Home, Settings()) }
