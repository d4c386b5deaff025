// Package opencodecli is the OpenCode CLI the OpenCode host tests run in:
// the one pinned version, how a test finds the installed binary, and the
// isolated, offline environment a session runs in (its own HOME and XDG
// directories, a configuration whose one provider is the scripted model on
// loopback, a PATH of system directories only).
//
// A newer CLI is a deliberate bump of Version that the suite must pass,
// like a Go version bump (docs/host.md).
package opencodecli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Version is the pinned opencode-ai release.
const Version = "1.18.33"

// BinaryEnv names the variable holding the path of the installed opencode
// binary; make test-host sets it after installing Version.
const BinaryEnv = "SDD_OPENCODE_CLI"

// Provider and Model name the scripted model in the configuration: a
// session's model is Provider/Model.
const (
	Provider = "sdd"
	Model    = "scripted"
)

// Binary returns the opencode binary named by $SDD_OPENCODE_CLI. Without
// it the test is skipped (plain go test ./... needs only Go and git), or
// fails when $SDD_HOST_REQUIRED=1.
func Binary(t testing.TB) string {
	t.Helper()
	return CLI.Installed(t, BinaryEnv)
}

// Env is the whole environment of an opencode process: nothing of the
// caller's leaks in. home is its HOME, under which every XDG directory
// lies (so its configuration, database, logs, snapshots and caches are
// the test's), tmp its TMPDIR, and path the PATH its shell tool sees.
//
// The OPENCODE_DISABLE_* switches keep it off the network: no models.dev
// catalogue, no update check, no default plugins fetched from npm, no
// language server downloads.
func Env(home, tmp string, path []string) []string {
	return []string{
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(Config(baseURL), "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), append(b, '\n'), 0o644); err != nil {
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
// of bin (CLI.Install) holds that package installed once; dir gets copies of
// its package.json and package-lock.json and a symbolic link to its
// node_modules (64 MB, not copied for every session).
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

// pluginDeps is the directory where CLI.Install put @opencode-ai/plugin for
// bin: config/ beside the node_modules holding bin.
func pluginDeps(bin string) (string, error) {
	// bin is <install>/node_modules/opencode-<platform>/bin/opencode.
	install := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(bin))))
	deps := filepath.Join(install, configDeps)
	if _, err := os.Stat(filepath.Join(deps, filepath.FromSlash(pluginManifest))); err != nil {
		return "", fmt.Errorf("%s was not installed by go run ./scripts/opencode-cli (no @opencode-ai/plugin beside it): %v", bin, err)
	}
	return deps, nil
}
