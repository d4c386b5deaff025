package codexcli

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One build serves glibc and musl; every platform has its target triple.
func TestPlatform(t *testing.T) {
	for _, c := range []struct {
		goos, goarch string
		musl         bool
		want         string
	}{
		{"linux", "amd64", false, "linux-x64"},
		{"linux", "arm64", true, "linux-arm64"},
		{"darwin", "amd64", false, "darwin-x64"},
		{"darwin", "arm64", false, "darwin-arm64"},
		{"windows", "amd64", false, "win32-x64"},
		{"windows", "arm64", false, "win32-arm64"},
	} {
		got, err := CLI.Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s/%s musl=%v", c.goos, c.goarch, c.musl)
		assert.NotEmpty(t, triples[got], "no target triple for %s", got)
	}
}

// Install takes the npm alias of the platform build alone, and its codex
// must print "codex-cli <Version>".
func TestInstall(t *testing.T) {
	for _, version := range []string{Version, "0.0.1"} {
		npm, calls := npmcli.FakeNPM(t, map[string]map[string]string{spec("linux-x64"): {
			"node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex": "#!/bin/sh\necho 'codex-cli " + version + "'\n",
		}})
		dir := filepath.Join(t.TempDir(), Version)
		bin, err := CLI.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
		assert.Regexp(t, `^install .* @openai/codex-linux-x64@npm:@openai/codex@`+Version+`-linux-x64$`, calls()[0])
		if version != Version {
			require.ErrorContains(t, err, "want codex-cli "+Version)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"), bin)
	}
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
