package droidhost

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Model is the scripted model as settings.json names it (customModels);
// a session runs with --model custom:Model, and its subagents on the
// session's model.
const Model = "sdd-scripted"

// Host is one machine for sessions of the real Droid (harness.Machine),
// its model the scripted one on the Chat wire (a custom model of
// provider generic-chat-completion-api).
type Host struct {
	*harness.Machine
	Droid string // the droid binary
	// Auto is the session's autonomy, --auto: high unless changed, the
	// only level at which droid exec offers its Task tool.
	Auto string
	// Settings are the user's ~/.factory/settings.json before the
	// install adds its allowlist (WriteSettings).
	Settings map[string]any
}

// New makes a host for sessions in repo, the scripted model configured
// as a user configures a model of their own (UserSettings). Without the
// CLI (no $SDD_DROID_CLI) the test is skipped, or fails under make
// test-host.
func New(t testing.TB, repo string) *Host {
	t.Helper()
	bin := hostcli.Droid.Installed(t)
	h := &Host{Machine: harness.NewMachine(t, repo, scripted.Chat{}, harness.SystemPath(t)), Droid: bin, Auto: "high"}
	h.Server.PromptOf = promptOf
	h.Settings = UserSettings(h.Server.URL)
	if err := h.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return h
}

var (
	taskPromptRe     = regexp.MustCompile(`(?s)\n---BEGIN TASK FROM PARENT AGENT---\n(.*)\n---END TASK FROM PARENT AGENT---\s*$`)
	followUpPromptRe = regexp.MustCompile(`(?s)^# Follow-up Instructions\n\n(.*)\n\n## Reporting\n`)
)

// promptOf is the prompt a user text is: none for the system reminders
// Droid puts before a conversation's prompt (the skills, the subagent
// types, the machine, the repository's state), which differ from run to
// run; a subagent's prompt, between the markers of the "# Task Tool
// Invocation" message Droid wraps it in; the prompt of a message sent to
// a subagent that answered (Task's resume), in its "# Follow-up
// Instructions".
func promptOf(text string) string {
	if strings.HasPrefix(text, "<system-reminder>") {
		return ""
	}
	if m := taskPromptRe.FindStringSubmatch(text); m != nil && strings.HasPrefix(text, "# Task Tool Invocation\n") {
		return m[1]
	}
	if m := followUpPromptRe.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return text
}

// UserSettings are what a user's ~/.factory/settings.json holds for a run
// of the skill, beside the install's allowlist: the model, a custom
// model of a Chat Completions provider at url/v1; and the subagents'
// autonomy, medium, which their git commit and test commands need and no
// more (the session's --auto high is for its Task tool).
func UserSettings(url string) map[string]any {
	return map[string]any{
		"customModels": []map[string]any{{"model": Model, "displayName": "SDD scripted", "baseUrl": url + "/v1",
			"apiKey": "sdd-offline", "provider": "generic-chat-completion-api"}},
		"subagentAutonomyLevel": "medium",
	}
}

// WriteSettings writes h.Settings as ~/.factory/settings.json.
func (h *Host) WriteSettings() error {
	return harness.WriteJSON(filepath.Join(h.Home, ".factory", "settings.json"), h.Settings, 0o600)
}

// Env is the environment of a droid process on this host
// (hostcli.Droid.Env: FACTORY_AIRGAP_ENABLED among it).
func (h *Host) Env() []string { return hostcli.Droid.Env(h.Home, h.Tmp, h.Path) }

// InstallSkill installs the skill for Droid as a user does, with the
// project's installer (--host droid): the skill's folder in
// ~/.factory/skills/ with the four commands in its bin/, and the four
// commands by path in settings.json's commandAllowlist. It returns the
// skill's folder.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "droid"}, "FACTORY_HOME_OVERRIDE=")
	return filepath.Join(h.Home, ".factory", "skills", ship.SkillName)
}

// Args are the arguments of a headless session: prompt as its one
// message, its events as JSON lines (-o stream-json), at autonomy auto,
// on the scripted model.
func Args(prompt, auto string) []string {
	return []string{"exec", "-o", "stream-json", "--auto", auto, "--model", "custom:" + Model, prompt}
}

// Session is what one `droid exec` run did: the process, the follower's
// steps and the controller's last words (Played), and its events.
type Session = harness.EventSession[Event]

// events is how a session's -o stream-json output reads (events.go), and
// what every session is held to: no failed tool, no error and a
// completion in its events, and no call of any conversation (the
// subagents' among them) that came back an error (Failed).
var events = harness.Events[Event]{CLI: "droid", Read: ReadEvents, Line: func(e Event) string { return e.Line },
	Final: Final, Problems: Problems, Failed: Failed}

// Run runs `droid exec -o stream-json prompt` in the repository, the
// scripted controller answering for the session, and checks what every
// run must hold (harness.Events.Run): the process ended well, no script
// failed, no conversation went unanswered by a script, the events show
// no failed tool, no error and a completion, and no call of any
// conversation came back an error. Failures are the test's (t.Errorf),
// with the transcript logged.
func (h *Host) Run(prompt string, controller scripted.Script) *Session {
	h.T.Helper()
	return events.Run(h.Machine, prompt, controller, h.Env(), h.Droid, Args(prompt, h.Auto)...)
}
