package codexhost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

// What a session of the Codex CLI is given beside hostcli.Codex's
// environment: its CODEX_HOME, whose config.toml names the scripted model
// on loopback as the one provider.

// Model is the model name a session asks for. It is no name of Codex's
// model catalog on purpose: for a catalog name the CLI changes the shape
// of its tools (measured with 0.171.0), and the scripted model speaks the
// plain one. The CLI says once per session that it has no metadata for
// it, as an error item of the event stream.
const Model = "sdd-scripted"

// KeyEnv is the variable the model provider reads its API key from
// (env_key); the scripted model accepts any.
const KeyEnv = "SDD_CODEX_MODEL_KEY"

// Config is the config.toml of a session's CODEX_HOME: the scripted model
// at baseURL (http://127.0.0.1:PORT) as the only provider, speaking the
// Responses API; no approval asked and no sandbox, as the Claude Code
// suite runs without one (workspace-write works too, measured with
// 0.171.0: a write outside the workspace fails with "Read-only file
// system"; which one the skill runs under is for later); no update
// check, no analytics; and no login shell, whose profile would reset the
// PATH the session gives the tools.
func Config(baseURL string) string {
	q := strconv.Quote
	return strings.Join([]string{
		"model = " + q(Model),
		`model_provider = "sdd"`,
		`approval_policy = "never"`,
		`sandbox_mode = "danger-full-access"`,
		`check_for_update_on_startup = false`,
		`allow_login_shell = false`,
		``,
		`[analytics]`,
		`enabled = false`,
		``,
		`[model_providers.sdd]`,
		`name = "sdd scripted model"`,
		`base_url = ` + q(baseURL+"/v1"),
		`env_key = ` + q(KeyEnv),
		`wire_api = "responses"`,
		``,
	}, "\n")
}

// WriteConfig writes Config(baseURL) into codexHome, making it.
func WriteConfig(codexHome, baseURL string) error {
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(Config(baseURL)), 0o644)
}

// env is the whole environment of a codex process (hostcli.Codex.Env):
// home is its HOME, codexHome its CODEX_HOME (usually home/.codex), tmp
// its TMPDIR and path the PATH its tools see.
//
// tmp must not hold codexHome: the CLI links its helpers (apply_patch,
// codex-linux-sandbox) into CODEX_HOME/tmp/arg0-linux on every start, and
// under the temporary directory it refuses to and warns on stderr
// (0.171.0).
func env(home, codexHome, tmp string, path []string) []string {
	return append(hostcli.Codex.Env(home, tmp, path), "CODEX_HOME="+codexHome, KeyEnv+"=sk-sdd-offline")
}
