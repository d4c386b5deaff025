package claudecode

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlatform(t *testing.T) {
	for _, c := range []struct {
		goos, goarch string
		musl         bool
		want         string
	}{
		{"linux", "amd64", true, "linux-x64-musl"},
		{"linux", "arm64", true, "linux-arm64-musl"},
		{"windows", "amd64", false, "win32-x64"},
		{"windows", "arm64", false, "win32-arm64"},
	} {
		got, err := CLI.Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s musl=%v", c.goos, c.goarch, c.musl)
	}
}

// Install takes the platform package alone, and its claude must print
// "<Version> (Claude Code)".
func TestInstall(t *testing.T) {
	for _, version := range []string{Version, "0.0.1"} {
		npm, calls := npmcli.FakeNPM(t, map[string]map[string]string{"@anthropic-ai/claude-code-linux-x64@" + Version: {
			"node_modules/@anthropic-ai/claude-code-linux-x64/claude": "#!/bin/sh\necho '" + version + " (Claude Code)'\n",
		}})
		dir := filepath.Join(t.TempDir(), Version)
		bin, err := CLI.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
		assert.Regexp(t, `^install .* @anthropic-ai/claude-code-linux-x64@`+Version+`$`, calls()[0])
		if version != Version {
			require.ErrorContains(t, err, "want "+Version+" (Claude Code)")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "node_modules/@anthropic-ai/claude-code-linux-x64/claude"), bin)
	}
}
