// Package geminicli is the Gemini CLI the Gemini host tests run in: the
// one pinned version, how a test finds the installed CLI, and the
// isolated, offline environment a session runs in (its own HOME, whose
// ~/.gemini/settings.json has the CLI use an API key, with usage
// statistics and updates off; the scripted model on loopback as the
// API's base URL; the workspace trusted).
//
// A newer CLI is a deliberate bump of Version that the Gemini tests must
// pass, like a Go version bump (docs/host.md).
package geminicli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Version is the pinned @google/gemini-cli release.
const Version = "0.61.0"

// BinaryEnv names the variable holding the path of the installed CLI
// (its bundle/gemini.js); go run ./scripts/gemini-cli prints it.
const BinaryEnv = "SDD_GEMINI_CLI"

// Binary returns the CLI named by $SDD_GEMINI_CLI. Without it the test is
// skipped (plain go test ./... needs only Go and git), or fails when
// $SDD_HOST_REQUIRED=1.
func Binary(t testing.TB) string {
	t.Helper()
	return CLI.Installed(t, BinaryEnv)
}

// APIKey is the key a session sends (x-goog-api-key); the scripted model
// takes any.
const APIKey = "sdd-offline"

// Env is the whole environment of a gemini process: nothing of the
// caller's leaks in. home is its HOME (~/.gemini: settings, skills,
// agents, policies, its sessions' files), tmp its TMPDIR, baseURL the
// scripted model's address (http://127.0.0.1:PORT; "" for a command that
// asks no model) and path the PATH of the CLI (node) and its shell tool.
//
// GEMINI_CLI_TRUST_WORKSPACE trusts the folder the session runs in
// (otherwise a headless session stops at once: "Gemini CLI is not
// running in a trusted directory");
// GEMINI_CLI_NO_RELAUNCH stops the CLI from starting itself again in a
// second node with a larger heap, which halves its start (3.7 s, not 7.7
// s, on the 2-core machine); the system settings paths point into home,
// so that no /etc/gemini-cli/settings.json of the machine is read.
func Env(home, tmp, baseURL string, path []string) []string {
	env := []string{
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"GEMINI_API_KEY=" + APIKey,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(home, ".gemini-system", "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH=" + filepath.Join(home, ".gemini-system", "system-defaults.json"),
		"GIT_CONFIG_NOSYSTEM=1",
	}
	if baseURL != "" {
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+baseURL)
	}
	return env
}

// Settings is a session's ~/.gemini/settings.json: the API key as the
// way to sign in (without it a session stops at once: "Invalid auth
// method selected."); no usage statistics, which the CLI otherwise posts to
// play.googleapis.com (the one connection off loopback strace showed);
// no update check or notice.
func Settings() map[string]any {
	return map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
}

// Dir is the CLI's directory under home: ~/.gemini.
func Dir(home string) string { return filepath.Join(home, ".gemini") }

// WriteSettings writes settings (Settings, maybe with more) as
// ~/.gemini/settings.json under home, making the directory.
func WriteSettings(home string, settings map[string]any) error {
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(Dir(home), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(Dir(home), "settings.json"), append(b, '\n'), 0o644)
}

// SessionPath is the PATH a session gets: the directories of node (which
// runs the CLI), git, sh and bash (the shell tool's shell), and nothing
// else.
func SessionPath() ([]string, error) {
	var dirs []string
	for _, prog := range []string{"node", "git", "sh", "bash"} {
		p, err := exec.LookPath(prog)
		if err != nil {
			return nil, fmt.Errorf("a Gemini CLI session needs %s: %v", prog, err)
		}
		if d := filepath.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}
