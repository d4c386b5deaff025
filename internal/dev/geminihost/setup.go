package geminihost

import (
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Identity is the git identity the sessions' commands commit with. The
// CLI runs every command with GIT_CONFIG_GLOBAL=/dev/null, so the
// user.name of ~/.gitconfig is not seen there; a user's exported
// GIT_AUTHOR_*/GIT_COMMITTER_* variables pass through.
var Identity = []string{
	"GIT_AUTHOR_NAME=SDD Host Test", "GIT_AUTHOR_EMAIL=host@example.com",
	"GIT_COMMITTER_NAME=SDD Host Test", "GIT_COMMITTER_EMAIL=host@example.com",
}

// Env is the environment of a gemini process on this host
// (hostcli.Gemini.Env), the scripted model the API's base URL:
//
//   - GEMINI_CLI_TRUST_WORKSPACE trusts the folder the session runs in
//     (otherwise a headless session stops at once: "Gemini CLI is not
//     running in a trusted directory");
//   - the system settings paths point into HOME, so that no
//     /etc/gemini-cli/settings.json of the machine is read;
//   - the git identity (Identity).
func (h *Host) Env() []string {
	env := append(hostcli.Gemini.Env(h.Home, h.Tmp, h.Path),
		"GEMINI_API_KEY=sdd-offline", // the scripted model takes any
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(h.Home, ".gemini-system", "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+filepath.Join(h.Home, ".gemini-system", "system-defaults.json"),
		"GOOGLE_GEMINI_BASE_URL="+h.Server.URL)
	return append(env, Identity...)
}

// sessionSettings is what every session's ~/.gemini/settings.json holds:
// the API key as the way to sign in (without it a session stops at
// once: "Invalid auth method selected."); no usage statistics, which the
// CLI otherwise posts to play.googleapis.com (the one connection off
// loopback strace showed); no update check or notice.
func sessionSettings() map[string]any {
	return map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
}

// Settings are the user's ~/.gemini/settings.json for a run of the
// skill: the session's and read_file allowed to read a file git ignores,
// as the review packages are (host-gemini.md).
func Settings() map[string]any {
	s := sessionSettings()
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
	return filepath.Join(h.Home, ".gemini", "skills", ship.SkillName)
}

// Policy writes rules as the user's own policy file,
// ~/.gemini/policies/user.toml, beside the install's.
func (h *Host) Policy(rules string) {
	h.T.Helper()
	dir := filepath.Join(filepath.Join(h.Home, ".gemini"), "policies")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "user.toml"), []byte(rules), 0o644); err != nil {
		h.T.Fatal(err)
	}
}

// WriteSettings writes settings as the host's ~/.gemini/settings.json.
func (h *Host) WriteSettings(settings map[string]any) error {
	return harness.WriteJSON(filepath.Join(h.Home, ".gemini", "settings.json"), settings, 0o644)
}
