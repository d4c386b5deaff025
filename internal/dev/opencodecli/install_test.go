package opencodecli

import (
	"context"
	"encoding/json"
	"io"
	"os"
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
		{"windows", "amd64", false, "windows-x64"},
		{"windows", "arm64", false, "windows-arm64"},
	} {
		got, err := CLI.Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s musl=%v", c.goos, c.goarch, c.musl)
	}
}

// fakeNPM installs an opencode printing version, and the plugin package
// with the package files npm writes.
func fakeNPM(t *testing.T, version string) (npm string, calls func() []string) {
	return npmcli.FakeNPM(t, map[string]map[string]string{
		"opencode-linux-x64@" + Version: {
			"node_modules/opencode-linux-x64/bin/opencode": "#!/bin/sh\necho '" + version + "'\n",
		},
		"@opencode-ai/plugin@" + Version: {
			"node_modules/@opencode-ai/plugin/package.json": `{"name":"@opencode-ai/plugin"}`,
			"package.json":      `{"dependencies":{"@opencode-ai/plugin":"` + Version + `"}}`,
			"package-lock.json": `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"` + Version + `"}}}}`,
		},
	})
}

// Install takes the platform package and, in config/, the plugin
// package; its opencode must print Version alone.
func TestInstall(t *testing.T) {
	npm, calls := fakeNPM(t, Version)
	dir := filepath.Join(t.TempDir(), Version)
	bin, err := CLI.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "node_modules/opencode-linux-x64/bin/opencode"), bin)
	lines := calls()
	require.Len(t, lines, 2)
	assert.Regexp(t, `^install .* --prefix \S+ opencode-linux-x64@`+Version+`$`, lines[0])
	assert.Regexp(t, `^install .* --prefix \S+/config @opencode-ai/plugin@`+Version+`$`, lines[1])
	assert.FileExists(t, filepath.Join(dir, "config/node_modules/@opencode-ai/plugin/package.json"))

	npm, _ = fakeNPM(t, "0.0.1")
	_, err = CLI.Install(context.Background(), npm, filepath.Join(t.TempDir(), Version), "linux-x64", io.Discard)
	require.ErrorContains(t, err, `printed "0.0.1", want `+Version)
}

// A configuration directory gets opencode.json with the scripted model as
// its one provider, and the plugin package as opencode checks for it.
func TestWriteConfig(t *testing.T) {
	npm, _ := fakeNPM(t, Version)
	bin, err := CLI.Install(context.Background(), npm, filepath.Join(t.TempDir(), Version), "linux-x64", io.Discard)
	require.NoError(t, err)
	home := t.TempDir()
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

func TestPreinstallPluginNeedsTheInstall(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "node_modules/opencode-linux-x64/bin/opencode")
	err := PreinstallPlugin(t.TempDir(), bin)
	assert.ErrorContains(t, err, "go run ./scripts/opencode-cli")
}
