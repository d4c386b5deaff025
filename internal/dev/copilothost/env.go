package copilothost

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

// What a session of Copilot CLI is given beside hostcli.Copilot's
// environment: the BYOK provider's variables pointing it at the scripted
// model on loopback, and a cache shared by the sessions.

// Model is the model a session asks for (COPILOT_MODEL): no name of
// GitHub's catalog, which a BYOK provider does not need.
const Model = "sdd-scripted"

// Key is the provider's API key (COPILOT_PROVIDER_API_KEY); the scripted
// model takes any. The CLI masks the key's text wherever it occurs in
// its output (1.0.102: a key "x" made "exit code" read "e******it
// code"), so it is a string no output holds.
const Key = "sdd-offline-provider-key-0f3a"

// Wire APIs of COPILOT_PROVIDER_WIRE_API: Chat Completions, the default,
// or the Responses API.
const (
	Completions = "completions"
	Responses   = "responses"
)

// env is the whole environment of a copilot process
// (hostcli.Copilot.Env): home is its HOME (its ~/.copilot), tmp its
// TMPDIR, cache its XDG_CACHE_HOME (see Cache), baseURL the scripted
// model's loopback address (the provider's base URL is its /v1), wire
// the wire API, and path the PATH its tools see.
func env(home, tmp, cache, baseURL, wire string, path []string) []string {
	return append(hostcli.Copilot.Env(home, tmp, path),
		"XDG_CACHE_HOME="+cache,
		"COPILOT_PROVIDER_BASE_URL="+strings.TrimSuffix(baseURL, "/")+"/v1",
		"COPILOT_PROVIDER_API_KEY="+Key,
		"COPILOT_PROVIDER_WIRE_API="+wire,
		"COPILOT_MODEL="+Model,
		"COPILOT_PROVIDER_MAX_PROMPT_TOKENS="+strconv.Itoa(MaxPromptTokens))
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
	return filepath.Join(hostcli.Copilot.InstallDir(bin), "cache")
}
