package opencodecli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlatform(t *testing.T) {
	for _, c := range []struct {
		goos, goarch string
		musl         bool
		want         string
	}{
		{"linux", "amd64", false, "linux-x64"},
		{"linux", "arm64", false, "linux-arm64"},
		{"linux", "amd64", true, "linux-x64-musl"},
		{"linux", "arm64", true, "linux-arm64-musl"},
		{"darwin", "amd64", false, "darwin-x64"},
		{"darwin", "arm64", false, "darwin-arm64"},
		{"windows", "amd64", false, "windows-x64"},
		{"windows", "arm64", false, "windows-arm64"},
	} {
		got, err := Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s musl=%v", c.goos, c.goarch, c.musl)
	}
	for _, c := range [][2]string{{"linux", "386"}, {"freebsd", "amd64"}} {
		_, err := Platform(c[0], c[1], false)
		assert.Error(t, err, "%s/%s", c[0], c[1])
	}
}

// fakeNPM writes an npm stand-in that installs an opencode printing
// version, or the plugin package with the package files npm writes, and
// logs its calls in a file beside it.
func fakeNPM(t *testing.T, version string) (npm, calls string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the npm stand-in is a shell script")
	}
	dir := t.TempDir()
	npm, calls = filepath.Join(dir, "npm"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >> '` + calls + `'
for a; do spec=$a; done
while [ $# -gt 0 ]; do case $1 in --prefix) shift; prefix=$1 ;; esac; shift; done
case $spec in
opencode-*)
	d=$prefix/node_modules/opencode-linux-x64/bin
	mkdir -p "$d" && printf '#!/bin/sh\necho "%s"\n' '` + version + `' > "$d/opencode" && chmod 755 "$d/opencode" ;;
@opencode-ai/plugin@*)
	mkdir -p "$prefix/node_modules/@opencode-ai/plugin"
	echo '{"name":"@opencode-ai/plugin"}' > "$prefix/node_modules/@opencode-ai/plugin/package.json"
	echo '{"dependencies":{"@opencode-ai/plugin":"` + Version + `"}}' > "$prefix/package.json"
	echo '{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"` + Version + `"}}}}' > "$prefix/package-lock.json" ;;
esac
`
	require.NoError(t, os.WriteFile(npm, []byte(script), 0o755))
	return npm, calls
}

func callLines(t *testing.T, calls string) []string {
	b, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestInstallReusesACompleteInstall(t *testing.T) {
	npm, calls := fakeNPM(t, Version)
	dir := filepath.Join(t.TempDir(), "cache", Version)
	ctx := context.Background()

	bin, err := Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "node_modules/opencode-linux-x64/bin/opencode"), bin)
	assert.FileExists(t, bin)
	lines := callLines(t, calls)
	require.Len(t, lines, 2)
	assert.Regexp(t, `^install --ignore-scripts --no-audit --no-fund --save-exact --prefix \S+ opencode-linux-x64@`+Version+`$`, lines[0])
	assert.Regexp(t, `^install --ignore-scripts --no-audit --no-fund --save-exact --prefix \S+/config @opencode-ai/plugin@`+Version+`$`, lines[1])
	assert.FileExists(t, filepath.Join(dir, "config/node_modules/@opencode-ai/plugin/package.json"))

	again, err := Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, bin, again)
	assert.Len(t, callLines(t, calls), 2, "a complete install is reused, npm not run")

	siblings, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, siblings, 1, "no installing directory left beside the cache")
}

func TestInstallRedoesAnIncompleteInstall(t *testing.T) {
	npm, calls := fakeNPM(t, Version)
	dir := filepath.Join(t.TempDir(), Version)
	// What an interrupted npm leaves: a directory, no marker.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755))
	bin, err := Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Len(t, callLines(t, calls), 2)
	assert.FileExists(t, bin)
	assert.FileExists(t, filepath.Join(dir, completeMarker))
}

func TestInstallRefusesAnotherVersion(t *testing.T) {
	npm, _ := fakeNPM(t, "0.0.1")
	dir := filepath.Join(t.TempDir(), Version)
	_, err := Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.ErrorContains(t, err, "want "+Version)
	assert.NoDirExists(t, dir)
}

// A configuration directory gets opencode.json with the scripted model as
// its one provider, and the plugin package as opencode checks for it.
func TestWriteConfig(t *testing.T) {
	npm, _ := fakeNPM(t, Version)
	bin, err := Install(context.Background(), npm, filepath.Join(t.TempDir(), Version), "linux-x64", io.Discard)
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
