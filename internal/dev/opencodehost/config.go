package opencodehost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// What a session of OpenCode is given beside hostcli.OpenCode's
// environment: a configuration whose one provider is the scripted model
// on loopback, with the plugin package opencode wants in it, and the
// skill.

// Provider and Model name the scripted model in the configuration: a
// session's model is Provider/Model.
const (
	Provider = "sdd"
	Model    = "scripted"
)

// ConfigDir is the global configuration directory of a session whose
// HOME is home (XDG_CONFIG_HOME/opencode): opencode.json, skills/,
// plugins/.
func ConfigDir(home string) string {
	return filepath.Join(home, ".config", "opencode")
}

// Config is the global opencode.json of a session: the scripted model at
// baseURL (http://127.0.0.1:PORT, the server's root; the provider speaks
// the Chat Completions API under /v1) as the one provider and the model of
// every agent, the title agent's included, with sharing and updates off.
func Config(baseURL string) map[string]any {
	model := Provider + "/" + Model
	return map[string]any{
		"autoupdate":        false,
		"share":             "disabled",
		"model":             model,
		"small_model":       model,
		"enabled_providers": []string{Provider},
		"provider": map[string]any{
			Provider: map[string]any{
				// Built into the binary: nothing is fetched.
				"npm":  "@ai-sdk/openai-compatible",
				"name": "sdd-go scripted model",
				"options": map[string]any{
					"baseURL": strings.TrimSuffix(baseURL, "/") + "/v1",
					"apiKey":  "sdd-offline",
				},
				"models": map[string]any{
					Model: map[string]any{
						"name":      "scripted",
						"tool_call": true,
						"limit":     map[string]int{"context": 200000, "output": 32000},
					},
				},
			},
		},
	}
}

// WriteConfig makes home's configuration directory for a session against
// the model at baseURL: opencode.json (Config), and @opencode-ai/plugin
// preinstalled from the install of bin (PreinstallPlugin).
func WriteConfig(home, baseURL, bin string) error {
	dir := ConfigDir(home)
	if err := harness.WriteJSON(filepath.Join(dir, "opencode.json"), Config(baseURL), 0o644); err != nil {
		return err
	}
	return PreinstallPlugin(dir, bin)
}

// PreinstallPlugin makes @opencode-ai/plugin installed in a configuration
// directory (the global one, or a repository's .opencode), as opencode
// wants it there. At start opencode checks each configuration directory:
// unless it has a node_modules and a package-lock.json whose root lists
// every dependency of its package.json and @opencode-ai/plugin, it
// installs them from the npm registry in the background (offline: a
// failed fetch; online: a download the tests must not make). The install
// of bin (hostcli.OpenCode) holds that package installed once; dir gets
// copies of its package.json and package-lock.json and a symbolic link
// to its node_modules (64 MB, not copied for every session).
func PreinstallPlugin(dir, bin string) error {
	deps, err := pluginDeps(bin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(deps, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return os.Symlink(filepath.Join(deps, "node_modules"), filepath.Join(dir, "node_modules"))
}

// pluginDeps is the directory where hostcli.OpenCode's install of bin
// put @opencode-ai/plugin: config/ in the install.
func pluginDeps(bin string) (string, error) {
	deps := filepath.Join(hostcli.OpenCode.InstallDir(bin), "config")
	if _, err := os.Stat(filepath.Join(deps, "node_modules", "@opencode-ai", "plugin", "package.json")); err != nil {
		return "", fmt.Errorf("%s was not installed by go run ./scripts/hostcli install opencode (no @opencode-ai/plugin beside it): %v", bin, err)
	}
	return deps, nil
}

// InstallSkill installs the skill for OpenCode in the host's HOME as a
// user does, with the project's installer (harness.Install, --host
// opencode): the skill's folder in ~/.config/opencode/skills/, the four
// commands as they ship in its bin/, which the skill's host-opencode.md
// has the model run by path (the session's PATH holds no copy:
// harness.SystemPath). It returns the skill's directory.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "opencode"}, "XDG_CONFIG_HOME="+filepath.Dir(h.ConfigDir()))
	return filepath.Join(h.ConfigDir(), "skills", ship.SkillName)
}
