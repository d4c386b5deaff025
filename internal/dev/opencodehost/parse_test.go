package opencodehost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What opencode 1.18.33 writes that the harness reads: no CLI needed.

func TestRunMessage(t *testing.T) {
	assert.Equal(t, `Go`, RunMessage("Go"))
	assert.Equal(t, `"Run \"echo hi\" now."`, RunMessage(`Run "echo hi" now.`))
	assert.Equal(t, `a "b c" "d"`, RunMessage("a", "b c", `"d"`))
}

// The skill tool's and the task tool's results, as opencode 1.18.33
// words them.
func TestParseSkillAndTask(t *testing.T) {
	skill := "<skill_content name=\"x\">\n# Skill: x\n\n# X\n\nRun helper.sh beside this file.\n\n" +
		"Base directory for this skill: /home/u/.config/opencode/skills/x\n" +
		"Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\nNote: file list is sampled.\n\n" +
		"<skill_files>\n<file>/home/u/.config/opencode/skills/x/helper.sh</file>\n<file>/home/u/.config/opencode/skills/x/notes.md</file>\n</skill_files>\n</skill_content>"
	s := parseSkill(skill)
	assert.Equal(t, "x", s.Name)
	assert.Equal(t, "/home/u/.config/opencode/skills/x", s.Dir)
	assert.Equal(t, []string{"/home/u/.config/opencode/skills/x/helper.sh", "/home/u/.config/opencode/skills/x/notes.md"}, s.Files)

	task := "<task id=\"ses_dbd8119f6ffeDKamm33lemYZdv\" state=\"completed\">\n<task_result>\nREPORT 1: from-sub\n\n</task_result>\n</task>"
	assert.Equal(t, "REPORT 1: from-sub", taskReport(task))
	assert.Equal(t, []string{task[:len(`<task id="ses_dbd8119f6ffeDKamm33lemYZdv" state="completed">`)], "ses_dbd8119f6ffeDKamm33lemYZdv", "completed"}, taskRe.FindStringSubmatch(task))
}

// The log lines of opencode 1.18.33 that say it went for the network.
func TestFetched(t *testing.T) {
	for _, l := range []string{
		`timestamp=2026-12-04T19:22:06.083Z level=WARN run=583f30f2 message="background dependency install failed" dir=/h/.config/opencode error="Cause([Fail(NpmInstallFailedError (cause: FetchError: request to https://registry.npmjs.org/@opencode-ai%2fplugin failed, reason: ECONNREFUSED))])"`,
		`timestamp=2026-12-04T19:28:36.939Z level=INFO run=664f382c message="downloading ripgrep" url=https://github.com/BurntSushi/ripgrep/releases/download/15.1.0/ripgrep-15.1.0-x86_64-unknown-linux-musl.tar.gz`,
	} {
		assert.True(t, fetched(l), l)
	}
	assert.False(t, fetched(`timestamp=2026-12-04T19:16:56.072Z level=INFO run=2e557b73 message=evaluated permission=bash pattern="echo out" action.permission=* action.action=allow action.pattern=*`))
}

// A configuration directory gets opencode.json with the scripted model as
// its one provider, and the plugin package of the install as opencode
// checks for it.
func TestWriteConfig(t *testing.T) {
	install := t.TempDir()
	bin := filepath.Join(install, "node_modules/opencode-linux-x64/bin/opencode")
	home := t.TempDir()
	assert.ErrorContains(t, WriteConfig(home, "http://127.0.0.1:4321", bin), "go run ./scripts/hostcli install opencode")
	for f, content := range map[string]string{
		"node_modules/@opencode-ai/plugin/package.json": `{"name":"@opencode-ai/plugin"}`,
		"package.json":      `{"dependencies":{"@opencode-ai/plugin":"1.0.0"}}`,
		"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.0.0"}}}}`,
	} {
		p := filepath.Join(install, "config", f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	home = t.TempDir()
	require.NoError(t, WriteConfig(home, "http://127.0.0.1:4321", bin))

	dir := filepath.Join(home, ".config", "opencode")
	b, err := os.ReadFile(filepath.Join(dir, "opencode.json"))
	require.NoError(t, err)
	var cfg struct {
		Autoupdate *bool
		Share      string
		Model      string
		Provider   map[string]struct {
			NPM     string
			Options struct{ BaseURL string }
			Models  map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(b, &cfg))
	require.NotNil(t, cfg.Autoupdate)
	assert.False(t, *cfg.Autoupdate)
	assert.Equal(t, "disabled", cfg.Share)
	assert.Equal(t, "sdd/scripted", cfg.Model)
	require.Contains(t, cfg.Provider, "sdd")
	assert.Equal(t, "@ai-sdk/openai-compatible", cfg.Provider["sdd"].NPM)
	assert.Equal(t, "http://127.0.0.1:4321/v1", cfg.Provider["sdd"].Options.BaseURL)
	assert.Contains(t, cfg.Provider["sdd"].Models, "scripted")

	assert.FileExists(t, filepath.Join(dir, "node_modules/@opencode-ai/plugin/package.json"))
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	require.NoError(t, err)
	assert.Contains(t, string(lock), `"@opencode-ai/plugin"`)
}
