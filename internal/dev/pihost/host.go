package pihost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Provider and Model name the scripted model in ~/.pi/agent/models.json:
// a session runs with --model Provider/Model, and the agents the
// subagent extension runs, which name no model, on Pi's default model,
// the same one (settings.json).
const (
	Provider = "sdd"
	Model    = "sdd-scripted"
)

// Host is one machine for sessions of the real Pi (harness.Machine), its
// model the scripted one on the Chat wire (models.json's provider, its
// api openai-completions).
type Host struct {
	*harness.Machine
	Pi       string // the CLI's script, dist/cli.js
	AgentDir string // ~/.pi/agent
}

// New makes a host for sessions in repo, the scripted model configured
// as a user configures a model of their own (WriteModels). Without the
// CLI (no $SDD_PI_CLI) the test is skipped, or fails under make
// test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	bin := hostcli.Pi.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Chat{}, harness.SystemPath(t, "node")), Pi: bin}
	h.Server.PromptOf = promptOf
	h.AgentDir = filepath.Join(h.Home, ".pi", "agent")
	if err := h.WriteModels(); err != nil {
		t.Fatal(err)
	}
	return h
}

// promptOf is the prompt a user text is: a subagent's pi process gets
// "Task: " and the call's task as its message (TaskPrefix), which is
// the prompt the dispatch gave.
func promptOf(text string) string { return strings.TrimPrefix(text, TaskPrefix) }

// Env is the environment of a pi process on this host
// (hostcli.Pi.Env: PI_OFFLINE among it, which the subagents' pi
// processes inherit).
func (h *Host) Env() []string { return hostcli.Pi.Env(h.Home, h.Tmp, h.Path) }

// WriteModels writes the user's ~/.pi/agent/models.json, a provider of
// the scripted model on Chat Completions, and settings.json, which makes
// it Pi's default model.
func (h *Host) WriteModels() error {
	models := map[string]any{"providers": map[string]any{Provider: map[string]any{
		"baseUrl": h.Server.URL + "/v1", "api": "openai-completions", "apiKey": "sdd-offline",
		"models": []map[string]any{{"id": Model}},
	}}}
	settings := map[string]any{"defaultProvider": Provider, "defaultModel": Model}
	if err := harness.WriteJSON(filepath.Join(h.AgentDir, "models.json"), models, 0o644); err != nil {
		return err
	}
	return harness.WriteJSON(filepath.Join(h.AgentDir, "settings.json"), settings, 0o644)
}

// InstallSkill installs the skill for Pi as a user does, with the
// project's installer (--host pi), the pi of the install on its PATH
// (npm's node_modules/.bin), from whose package it copies the subagent
// extension: the skill's folder in ~/.pi/agent/skills/ with the four
// commands in its bin/, the extension in ~/.pi/agent/extensions/subagent/
// and its agent in ~/.pi/agent/agents/. It returns the skill's folder.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	bin := filepath.Join(hostcli.Pi.InstallDir(h.Pi), "node_modules", ".bin")
	harness.Install(h.T, h.Home, []string{"--host", "pi"}, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PI_CODING_AGENT_DIR=", "PI_PACKAGE_DIR=")
	return filepath.Join(h.AgentDir, "skills", ship.SkillName)
}

// Args are the arguments of a headless session: prompt as its one
// message (-p), offline, its events as JSON lines (--mode json), on the
// scripted model.
func Args(prompt string) []string {
	return []string{"-p", "--offline", "--mode", "json", "--model", Provider + "/" + Model, prompt}
}

// Session is what one `pi -p` run did: the process, the follower's steps
// and the controller's last words (Played), and its events.
type Session = harness.EventSession[Event]

// events is how a session's --mode json output reads (events.go), and
// what every session is held to: no failed tool or error in its events,
// and no call of any conversation (the subagents' among them) that came
// back a failure (Failed).
var events = harness.Events[Event]{CLI: "pi", Read: ReadEvents, Line: func(e Event) string { return e.Line },
	Final: Final, Problems: Problems, Failed: Failed}

// Run runs `pi -p --mode json prompt` in the repository, the scripted
// controller answering for the session, and checks what every run must
// hold (harness.Events.Run): the process ended well, no script failed,
// no conversation went unanswered by a script, the events show no failed
// tool and an agent_end, and no call of any conversation came back a
// failure. Failures are the test's (t.Errorf), with the transcript
// logged.
func (h *Host) Run(prompt string, controller scripted.Script) *Session {
	h.T.Helper()
	return events.Run(h.Machine, prompt, controller, h.Env(), h.Pi, Args(prompt)...)
}
