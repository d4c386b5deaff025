package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// entriesFor are the allowlist entries of the skill in dir.
func entriesFor(dir string) []string {
	var out []string
	for _, c := range ship.Commands {
		out = append(out, "'"+filepath.ToSlash(dir)+"/bin/"+c+"'")
	}
	return out
}

// TestDroidAllowlist: --host droid adds the four commands, by their
// single-quoted paths in the install, to the commandAllowlist of
// ~/.factory/settings.json, keeping the user's settings, entries, order
// and the file's mode; a reinstall writes nothing; --uninstall removes
// these entries and nothing else.
func TestDroidAllowlist(t *testing.T) {
	h := newHarness(t)
	settings := filepath.Join(h.home, ".factory", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	before := `{"customModels": [{"model": "m", "apiKey": "k"}], "commandAllowlist": ["ls"], "z": 1, "a": {"b": true}}`
	require.NoError(t, os.WriteFile(settings, []byte(before), 0o600))

	code, _, stderr := h.run("--host", "droid", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	skill := h.placeOf(hostDroid)
	want := "{\n  \"customModels\": [\n    {\n      \"model\": \"m\",\n      \"apiKey\": \"k\"\n    }\n  ],\n" +
		"  \"commandAllowlist\": [\n    \"ls\",\n    \"" + strings.Join(entriesFor(skill), "\",\n    \"") + "\"\n  ],\n" +
		"  \"z\": 1,\n  \"a\": {\n    \"b\": true\n  }\n}\n"
	got := readFile(t, settings)
	assert.Equal(t, want, got)
	if fi, err := os.Stat(settings); assert.NoError(t, err) && runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "its mode is kept")
	}
	assert.Contains(t, stderr, "commandAllowlist")
	assert.Contains(t, stderr, "--auto high")

	code, _, stderr = h.run("--host", "droid", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, got, readFile(t, settings), "a reinstall writes nothing")

	code, _, stderr = h.run("--host", "droid", "--uninstall")
	require.Equal(t, 0, code, stderr)
	assert.NoDirExists(t, skill)
	assert.Equal(t, `{
  "customModels": [
    {
      "model": "m",
      "apiKey": "k"
    }
  ],
  "commandAllowlist": [
    "ls"
  ],
  "z": 1,
  "a": {
    "b": true
  }
}
`, readFile(t, settings))
}

// TestDroidAllowlistNew: without a settings file the install makes one
// holding the allowlist alone, and --uninstall leaves it empty of it (the
// list, emptied, goes).
func TestDroidAllowlistNew(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--host", "droid", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	settings := filepath.Join(h.home, ".factory", "settings.json")
	var v map[string][]string
	require.NoError(t, json.Unmarshal([]byte(readFile(t, settings)), &v))
	assert.Equal(t, map[string][]string{"commandAllowlist": entriesFor(h.placeOf(hostDroid))}, v)
	code, _, stderr = h.run("--host", "droid", "--uninstall")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "{}\n", readFile(t, settings))
}

// TestDroidAllowlistRefused: a settings file that is no plain JSON object
// (Droid also reads comments) stops the install and the uninstall before
// anything is changed, naming what to add by hand; an allowlist that is
// no list of strings is refused alike.
func TestDroidAllowlistRefused(t *testing.T) {
	for _, body := range []string{
		"{\n  // my model\n  \"customModels\": []\n}\n",
		`{"commandAllowlist": "ls"}`,
		`[1]`,
	} {
		h := newHarness(t)
		settings := filepath.Join(h.home, ".factory", "settings.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
		require.NoError(t, os.WriteFile(settings, []byte(body), 0o644))
		code, _, stderr := h.run("--host", "droid", "--bin", h.bin)
		assert.Equal(t, 1, code, "%q: %s", body, stderr)
		assert.Contains(t, stderr, settings)
		assert.Equal(t, body, readFile(t, settings))
		assert.NoDirExists(t, h.placeOf(hostDroid), "%q: nothing installed", body)
		if !strings.Contains(body, `"ls"`) {
			assert.Contains(t, stderr, "by hand")
		}
	}
}

// TestDroidAllowlistThroughLinks: a settings.json that is a link (a
// dotfiles manager's) is changed where it leads, the link kept; with
// --dir through a link the entries name the folder as named and as
// resolved, and --uninstall removes both.
func TestDroidAllowlistThroughLinks(t *testing.T) {
	h := newHarness(t)
	real := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(real, []byte(`{"z": 1}`), 0o644))
	settings := filepath.Join(h.home, ".factory", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	symlink(t, real, settings)
	target := filepath.Join(t.TempDir(), "real")
	require.NoError(t, os.MkdirAll(target, 0o755))
	link := filepath.Join(t.TempDir(), "link")
	symlink(t, target, link)
	dir := link + "/skill"

	code, _, stderr := h.run("--host", "droid", "--bin", h.bin, "--dir", dir)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Lstat(settings)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link stays")
	text := readFile(t, real)
	for _, e := range append(entriesFor(dir), entriesFor(filepath.Join(target, "skill"))...) {
		assert.Contains(t, text, e)
	}
	assert.Contains(t, text, `"z": 1`)

	code, _, stderr = h.run("--host", "droid", "--uninstall", "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "{\n  \"z\": 1\n}\n", readFile(t, real))
}
