package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/claudehost"
	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

// TestClaudeCodeLoadsThePluginArchive runs the pinned Claude Code CLI
// ($SDD_CLAUDE_CODE; skipped without it) on the plugin archive make dist
// builds for this machine: extracted, it passes `claude plugin validate
// --strict` and provides the skill and the four binaries; as it is, the
// zip loads with `claude --plugin-dir ARCHIVE.zip`.
func TestClaudeCodeLoadsThePluginArchive(t *testing.T) {
	hostcli.Claude.Installed(t)
	target, _ := hostTarget()
	out := t.TempDir()
	err := Run(context.Background(), Config{
		Root: repoRoot, Out: out, Version: testVersion, GoCmd: "go",
		Targets: []Target{target}, ModTime: testTime, Log: testLog{t},
	})
	require.NoError(t, err)
	zip := filepath.Join(out, PluginArchiveName(testVersion, target))
	home := t.TempDir()

	b, err := os.ReadFile(zip)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "sdd-go")
	_, members := readZip(t, b)
	for name, m := range members {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if m.mode.IsDir() {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, m.content, m.mode))
	}
	p := claudehost.ValidateStrict(t, home, dir)
	assert.Equal(t, []string{"sdd-go:subagent-driven-development"}, p.Skills)
	assert.Equal(t, []string{"review-package", "sdd-ledger", "sdd-workspace", "task-brief"}, p.Bin)

	stdout, stderr, code := claudehost.Offline(t, home, "--plugin-dir", zip, "plugin", "list")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `❯ sdd-go@inline\n    Version: `+testVersion+`\n(?:    .*\n)*?    Status: ✔ loaded\n`, stdout)
}

// testLog sends dist's progress to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
