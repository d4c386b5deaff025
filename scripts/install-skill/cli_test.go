package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/claudehost"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// These tests run the pinned Claude Code CLI ($SDD_CLAUDE_CODE; skipped
// without it) in the harness's temporary HOME.

// TestClaudeCodeLoadsThePlugin: the installed plugin passes `claude
// plugin validate --strict` (no error, no warning, the manifest file
// included), provides the skill as sdd-go:subagent-driven-development and
// the four binaries, and `claude plugin list` shows sdd-go@skills-dir
// loaded from where it was installed.
func TestClaudeCodeLoadsThePlugin(t *testing.T) {
	hostcli.Claude.Installed(t)
	h := newHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)

	p := claudehost.ValidateStrict(t, h.home, h.plugin())
	assert.Equal(t, []string{"sdd-go:subagent-driven-development"}, p.Skills)
	assert.Equal(t, []string{"review-package", "sdd-ledger", "sdd-workspace", "task-brief"}, p.Bin)

	stdout, stderr, code := claudehost.Offline(t, h.home, "plugin", "list")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `❯ sdd-go@skills-dir\n(?:    .*\n)*?    Status: ✔ loaded\n`, stdout)
	var m struct{ Version string }
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(h.plugin(), ".claude-plugin", "plugin.json"))), &m))
	assert.Contains(t, stdout, "Version: "+m.Version+"\n")
}

// TestClaudeCodeSuperpowersChoice: with superpowers installed by Claude
// Code itself (from a local marketplace), the installer finds it, and both
// of the choices it prints work: --replace-scripts on the directory it
// names, and the exact `claude plugin disable` command, after which it no
// longer speaks of two skills.
func TestClaudeCodeSuperpowersChoice(t *testing.T) {
	hostcli.Claude.Installed(t)
	h := newHarness(t)
	market := filepath.Join(t.TempDir(), "market")
	for rel, body := range map[string]string{
		".claude-plugin/marketplace.json": `{"name": "superpowers-dev", "owner": {"name": "test"},
  "plugins": [{"name": "superpowers", "source": "./", "version": "6.2.0", "description": "stand-in"}]}`,
		".claude-plugin/plugin.json":                  `{"name": "superpowers", "version": "6.2.0"}`,
		"skills/subagent-driven-development/SKILL.md": "---\nname: subagent-driven-development\ndescription: stand-in\n---\nupstream\n",
	} {
		p := filepath.Join(market, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, name := range ship.DropIns {
		p := filepath.Join(market, "skills", ship.SkillName, "scripts", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(origScript(name)), 0o755))
	}
	for _, args := range [][]string{
		{"plugin", "marketplace", "add", market},
		{"plugin", "install", "superpowers@superpowers-dev"},
	} {
		_, stderr, code := claudehost.Offline(t, h.home, args...)
		require.Equal(t, 0, code, "claude %v: %s", args, stderr)
	}

	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "\n  claude plugin disable superpowers@superpowers-dev\n")
	m := regexp.MustCompile(`\n  go run \./scripts/install-skill --replace-scripts (.*)\n`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	skill := strings.Trim(m[1], `'"`)
	require.True(t, strings.HasPrefix(skill, filepath.Join(h.home, ".claude", "plugins")), skill)

	code, _, stderr = h.run("--replace-scripts", skill)
	require.Equal(t, 0, code, stderr)
	assertReplaced(t, filepath.Join(skill, "scripts"), "v1")

	_, stderr, code = claudehost.Offline(t, h.home, "plugin", "disable", "superpowers@superpowers-dev")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "same name")
}
