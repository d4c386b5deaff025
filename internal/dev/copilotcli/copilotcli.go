// Package copilotcli is the GitHub Copilot CLI the Copilot host tests run
// in: the one pinned version, how a test finds the installed binary, and
// the isolated, offline environment a session runs in (its own HOME,
// COPILOT_OFFLINE, and the BYOK provider variables pointing the CLI at
// the scripted model on loopback).
//
// A newer CLI is a deliberate bump of Version that the Copilot host suite
// must pass, like a Go version bump (docs/host.md).
package copilotcli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Version is the pinned @github/copilot release.
const Version = "1.0.102"

// BinaryEnv names the variable holding the path of the installed copilot
// binary; make test-host sets it after installing Version.
const BinaryEnv = "SDD_COPILOT_CLI"

// Model is the model a session asks for (COPILOT_MODEL): no name of
// GitHub's catalog, which a BYOK provider does not need.
const Model = "sdd-scripted"

// Key is the provider's API key (COPILOT_PROVIDER_API_KEY); the scripted
// model takes any. The CLI masks the key's text wherever it occurs in
// its output (1.0.102: a key "x" made "exit code" read "e******it
// code"), so it is a string no output holds.
const Key = "sdd-offline-provider-key-0f3a"

// Binary returns the copilot binary named by $SDD_COPILOT_CLI. Without it
// the test is skipped (plain go test ./... needs only Go and git), or
// fails when $SDD_HOST_REQUIRED=1.
func Binary(t testing.TB) string {
	t.Helper()
	return CLI.Installed(t, BinaryEnv)
}

// Wire APIs of COPILOT_PROVIDER_WIRE_API: Chat Completions, the default,
// or the Responses API.
const (
	Completions = "completions"
	Responses   = "responses"
)

// Env is the whole environment of a copilot process: nothing of the
// caller's leaks in. home is its HOME (its ~/.copilot), tmp its TMPDIR,
// cache its XDG_CACHE_HOME (see Cache), baseURL the scripted model's
// loopback address (the provider's base URL is its /v1), wire the wire
// API, and path the PATH its tools see.
func Env(home, tmp, cache, baseURL, wire string, path []string) []string {
	return []string{
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + cache,
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL=" + strings.TrimSuffix(baseURL, "/") + "/v1",
		"COPILOT_PROVIDER_API_KEY=" + Key,
		"COPILOT_PROVIDER_WIRE_API=" + wire,
		"COPILOT_MODEL=" + Model,
		"COPILOT_PROVIDER_MAX_PROMPT_TOKENS=" + strconv.Itoa(MaxPromptTokens),
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// MaxPromptTokens is the model's prompt limit the CLI is told
// (COPILOT_PROVIDER_MAX_PROMPT_TOKENS). Without it, a BYOK model's
// conversation is compacted once it nears about 400 KB (1.0.102: a
// reviewer's, after twenty views of a 300 KB package): the history is
// summarized into a new first message, which no script answers, and the
// calls already made are made again. A scripted model has no limit.
const MaxPromptTokens = 10_000_000

// Cache is the XDG_CACHE_HOME the sessions of bin share, beside its
// install: on its first start in a cache the CLI unpacks its own
// package there (~/.cache/copilot/pkg/<platform>/<version>, 235 MB,
// about 3 s), which every later start reuses.
func Cache(bin string) string {
	// bin is <install>/node_modules/@github/copilot-<platform>/copilot.
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(bin)))), "cache")
}
