package codexcli

import (
	"context"
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
	for _, c := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "linux-x64"},
		{"linux", "arm64", "linux-arm64"},
		{"darwin", "amd64", "darwin-x64"},
		{"darwin", "arm64", "darwin-arm64"},
		{"windows", "amd64", "win32-x64"},
		{"windows", "arm64", "win32-arm64"},
	} {
		got, err := Platform(c.goos, c.goarch)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s", c.goos, c.goarch)
		assert.NotEmpty(t, triples[got], "no target triple for %s", got)
	}
	for _, c := range [][2]string{{"linux", "386"}, {"freebsd", "amd64"}} {
		_, err := Platform(c[0], c[1])
		assert.Error(t, err, "%s/%s", c[0], c[1])
	}
}

func TestSpec(t *testing.T) {
	assert.Equal(t, "@openai/codex-linux-x64@npm:@openai/codex@"+Version+"-linux-x64", Spec("linux-x64"))
}

// fakeNPM writes an npm stand-in that installs a codex printing version
// and counts its calls in a file beside it.
func fakeNPM(t *testing.T, version string) (npm, calls string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the npm stand-in is a shell script")
	}
	dir := t.TempDir()
	npm, calls = filepath.Join(dir, "npm"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >> '` + calls + `'
while [ $# -gt 0 ]; do case $1 in --prefix) shift; prefix=$1 ;; esac; shift; done
d=$prefix/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin
mkdir -p "$d" && printf '#!/bin/sh\necho "codex-cli %s"\n' '` + version + `' > "$d/codex" && chmod 755 "$d/codex"
`
	require.NoError(t, os.WriteFile(npm, []byte(script), 0o755))
	return npm, calls
}

func callCount(t *testing.T, calls string) int {
	b, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

func TestInstallReusesACompleteInstall(t *testing.T) {
	npm, calls := fakeNPM(t, Version)
	dir := filepath.Join(t.TempDir(), "cache", Version)
	ctx := context.Background()

	bin, err := Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"), bin)
	assert.FileExists(t, bin)
	assert.Equal(t, 1, callCount(t, calls))
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Contains(t, string(b), "install --ignore-scripts --no-audit --no-fund --prefix ")
	assert.Contains(t, string(b), " @openai/codex-linux-x64@npm:@openai/codex@"+Version+"-linux-x64\n")

	again, err := Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, bin, again)
	assert.Equal(t, 1, callCount(t, calls), "a complete install is reused, npm not run")

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
	assert.Equal(t, 1, callCount(t, calls))
	assert.FileExists(t, bin)
	assert.FileExists(t, filepath.Join(dir, completeMarker))
}

func TestInstallRefusesAnotherVersion(t *testing.T) {
	npm, _ := fakeNPM(t, "0.0.1")
	dir := filepath.Join(t.TempDir(), Version)
	_, err := Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.ErrorContains(t, err, "want codex-cli "+Version)
	assert.NoDirExists(t, dir)
}

// The config points the CLI at the scripted model and nowhere else.
func TestConfig(t *testing.T) {
	c := Config("http://127.0.0.1:4242")
	for _, want := range []string{
		`model = "sdd-scripted"`, `model_provider = "sdd"`, `base_url = "http://127.0.0.1:4242/v1"`,
		`wire_api = "responses"`, `env_key = "` + KeyEnv + `"`, `approval_policy = "never"`,
		`check_for_update_on_startup = false`, `allow_login_shell = false`, "[analytics]\nenabled = false",
	} {
		assert.Contains(t, c, want)
	}
}
