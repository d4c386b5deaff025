package copilotcli

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

func TestPlatform(t *testing.T) {
	for _, c := range []struct {
		goos, goarch string
		musl         bool
		want         string
	}{
		{"linux", "amd64", false, "linux-x64"},
		{"linux", "amd64", true, "linuxmusl-x64"},
		{"linux", "arm64", true, "linuxmusl-arm64"},
		{"darwin", "arm64", false, "darwin-arm64"},
		{"windows", "amd64", false, "win32-x64"},
	} {
		got, err := CLI.Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s musl=%v", c.goos, c.goarch, c.musl)
	}
}

// Install takes the platform package alone, and its copilot must print
// the pinned version's two lines.
func TestInstall(t *testing.T) {
	for _, version := range []string{Version, "0.0.1"} {
		npm, calls := npmcli.FakeNPM(t, map[string]map[string]string{"@github/copilot-linux-x64@" + Version: {
			"node_modules/@github/copilot-linux-x64/copilot": "#!/bin/sh\necho 'GitHub Copilot CLI " + version + ".'\necho \"Run 'copilot update' to check for updates.\"\n",
		}})
		dir := filepath.Join(t.TempDir(), Version)
		bin, err := CLI.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
		assert.Regexp(t, `^install .* @github/copilot-linux-x64@`+Version+`$`, calls()[0])
		if version != Version {
			require.ErrorContains(t, err, "want GitHub Copilot CLI "+Version+".")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "node_modules/@github/copilot-linux-x64/copilot"), bin)
		assert.Equal(t, filepath.Join(dir, "cache"), Cache(bin))
	}
}
