package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// wantPlugin is what an installed plugin must hold, by path: the
// repository's skill/ (every file) under skills/subagent-driven-development/,
// README.md and LICENSE, the binaries from bin (none when bin is ""), and
// plugin.json, which is checked apart (checkPluginJSON).
func wantPlugin(t *testing.T, bin, goos string) map[string]string {
	t.Helper()
	root := repoRoot(t)
	want := map[string]string{
		"README.md": readFile(t, filepath.Join(root, "README.md")),
		"LICENSE":   readFile(t, filepath.Join(root, "LICENSE")),
	}
	for rel, b := range readTree(t, filepath.Join(root, "skill")) {
		want["skills/subagent-driven-development/"+rel] = b
	}
	require.Contains(t, want, "skills/subagent-driven-development/SKILL.md")
	if bin != "" {
		for _, name := range ship.Commands {
			exe := ship.BinaryName(name, goos)
			want["bin/"+exe] = readFile(t, filepath.Join(bin, exe))
		}
	}
	return want
}

// assertPlugin checks dir holds exactly the plugin, a manifest that lists
// every other file with its sum, and the modes a release has.
func assertPlugin(t *testing.T, dir, bin, goos string) {
	t.Helper()
	got := readTree(t, dir)
	mf, ok := got[manifestName]
	require.True(t, ok, "a manifest is written")
	delete(got, manifestName)
	checkPluginJSON(t, got[".claude-plugin/plugin.json"])
	delete(got, ".claude-plugin/plugin.json")
	assert.Equal(t, wantPlugin(t, bin, goos), got)

	var lines []string
	for _, rel := range sortedKeys(readTree(t, dir)) {
		if rel != manifestName {
			lines = append(lines, sum([]byte(readFile(t, filepath.Join(dir, rel))))+"  "+rel)
		}
	}
	assert.Equal(t, strings.Join(lines, "\n")+"\n", mf, "the manifest covers every file written")
	if runtime.GOOS == "windows" {
		return
	}
	for rel := range got {
		fi, err := os.Stat(filepath.Join(dir, rel))
		require.NoError(t, err)
		want := fs.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") {
			want = 0o755
		}
		assert.Equal(t, want, fi.Mode().Perm(), rel)
	}
}

// checkPluginJSON: the manifest Claude Code reads names the plugin sdd-go
// and carries the version the binaries are stamped with.
func checkPluginJSON(t *testing.T, b string) {
	t.Helper()
	var m struct {
		Name, Version, Description, License, Homepage, Repository string
		Author                                                    struct{ Name string }
		Keywords                                                  []string
	}
	require.NoError(t, json.Unmarshal([]byte(b), &m), b)
	assert.Equal(t, "sdd-go", m.Name)
	assert.Equal(t, ship.DefaultVersion(ship.GitIn(repoRoot(t))), m.Version)
	assert.Equal(t, "MIT", m.License)
	assert.Equal(t, "https://github.com/sdd-go/sdd-go", m.Homepage)
	assert.Equal(t, "https://github.com/sdd-go/sdd-go", m.Repository)
	assert.NotEmpty(t, m.Description)
	assert.NotEmpty(t, m.Author.Name)
	assert.NotEmpty(t, m.Keywords)
}

func TestFreshInstallIsThePlugin(t *testing.T) {
	h := newHarness(t)
	code, stdout, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "installed plugin sdd-go")
	assert.Contains(t, stderr, "sdd-go:subagent-driven-development")
	assertPlugin(t, h.plugin(), h.bin, h.goos)
}

// TestWindowsPluginHasExeNames: for Windows the binaries are bin\<name>.exe,
// which Git Bash, cmd and PowerShell find by the bare name.
func TestWindowsPluginHasExeNames(t *testing.T) {
	h := newWindowsHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"review-package.exe", "sdd-ledger.exe", "sdd-workspace.exe", "task-brief.exe"}, dirNames(t, filepath.Join(h.plugin(), "bin")))
	assertPlugin(t, h.plugin(), h.bin, "windows")
}

func TestInstallIntoDir(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(t.TempDir(), "project", ".claude", "skills", "sdd-go")
	code, _, stderr := h.run("--bin", h.bin, "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assertPlugin(t, dir, h.bin, h.goos)
	assertMissing(t, filepath.Join(h.home, ".claude"), "nothing written under HOME with --dir")
}

func TestReinstallIsSilent(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	before := readTree(t, h.plugin())
	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "is up to date")
	assert.Equal(t, before, readTree(t, h.plugin()))
}

// TestUpgradeUntouchedPlugin: a plugin left as an older install wrote it
// is brought up to date without --force: new binaries, new text, and a
// file the new skill no longer ships removed with its emptied directory.
func TestUpgradeUntouchedPlugin(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	// What an older version shipped beside today's files.
	old := map[string]string{
		"skills/subagent-driven-development/retired-prompt.md": "# gone in the new version\n",
		"skills/retired-skill/SKILL.md":                        "---\nname: retired-skill\n---\n",
	}
	manifest, err := readManifest(filepath.Join(h.plugin(), manifestName))
	require.NoError(t, err)
	for rel, b := range old {
		p := filepath.Join(h.plugin(), filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(b), 0o644))
		manifest[rel] = []string{sum([]byte(b))}
	}
	require.NoError(t, writeManifest(h.plugin(), manifest))

	writeFakeBinaries(t, h.bin, h.goos, "v2")
	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "4 file(s) written, 2 removed")
	assertPlugin(t, h.plugin(), h.bin, h.goos)
	assertMissing(t, filepath.Join(h.plugin(), "skills", "retired-skill"), "an emptied directory goes too")
}

// TestNoBinaries: --no-binaries installs the plugin without bin/, and
// takes away binaries an earlier install put there, so a plugin never
// holds binaries older than its text.
func TestNoBinaries(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "4 removed")
	assert.Contains(t, stderr, "the plugin has no bin/")
	assertPlugin(t, h.plugin(), "", h.goos)
	assertMissing(t, filepath.Join(h.plugin(), "bin"))

	h = newHarness(t)
	code, _, stderr = h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	assertPlugin(t, h.plugin(), "", h.goos)
}

// TestInstallBuildsTheBinaries: without --bin the commands are built as
// they ship, straight into the plugin's bin/ (not go install's directory),
// stamped with the version plugin.json carries.
func TestInstallBuildsTheBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	h := newHarness(t)
	code, _, stderr := h.run()
	require.Equal(t, 0, code, stderr)
	var m struct{ Version string }
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(h.plugin(), ".claude-plugin", "plugin.json"))), &m))
	for _, name := range ship.Commands {
		out, err := exec.Command(filepath.Join(h.plugin(), "bin", ship.BinaryName(name, runtime.GOOS)), "--version").Output()
		require.NoError(t, err, name)
		assert.Equal(t, name+" "+m.Version+"\n", string(out))
	}
	assertMissing(t, h.env["GOBIN"], "nothing goes where go install puts binaries")
	code, _, stderr = h.run()
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "is up to date", "the build is reproducible, so a reinstall changes nothing")
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
