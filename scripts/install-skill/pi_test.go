package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePi is a Pi package as npm installs it, with its subagent extension,
// and a bin folder whose pi is npm's link to its dist/cli.js. It returns
// the package and the bin folder.
func fakePi(t *testing.T, version string) (pkg, bin string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("npm's link to the CLI is a symbolic link")
	}
	root := t.TempDir()
	pkg = filepath.Join(root, "node_modules", "@mariozechner", "pi-coding-agent")
	files := map[string]string{
		"package.json":                             `{"name": "@mariozechner/pi-coding-agent", "version": "` + version + `"}`,
		"dist/cli.js":                              "#!/usr/bin/env node\n",
		"examples/extensions/subagent/index.ts":    "// the extension " + version + "\n",
		"examples/extensions/subagent/agents.ts":   "// its agents " + version + "\n",
		"examples/extensions/subagent/README.md":   "not copied\n",
		"examples/extensions/subagent/agents/x.md": "not copied\n",
	}
	for rel, body := range files {
		p := filepath.Join(pkg, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
	}
	bin = filepath.Join(root, "node_modules", ".bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink("../@mariozechner/pi-coding-agent/dist/cli.js", filepath.Join(bin, "pi")))
	return pkg, bin
}

// TestPiExtension: --host pi installs, beside the skill, the subagent
// extension of the Pi on PATH into ~/.pi/agent/extensions/subagent/ and
// the agent host-pi.md names into ~/.pi/agent/agents/, each with a
// manifest; a reinstall changes nothing, a new Pi's extension replaces an
// untouched one, an edited one is kept without --force, and --uninstall
// removes them, leaving the user's own agents.
func TestPiExtension(t *testing.T) {
	h := newHarness(t)
	_, bin := fakePi(t, "1")
	h.env["PATH"] = bin
	agentDir := filepath.Join(h.home, ".pi", "agent")
	ext, agents := filepath.Join(agentDir, "extensions", "subagent"), filepath.Join(agentDir, "agents")
	require.NoError(t, os.MkdirAll(agents, 0o755))
	mine := filepath.Join(agents, "scout.md")
	require.NoError(t, os.WriteFile(mine, []byte("mine\n"), 0o644))

	code, _, stderr := h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	got := readTree(t, ext)
	assert.Contains(t, got, manifestName)
	delete(got, manifestName)
	assert.Equal(t, map[string]string{"index.ts": "// the extension 1\n", "agents.ts": "// its agents 1\n"}, got)
	assert.Equal(t, piAgentText, readFile(t, filepath.Join(agents, piAgent+".md")))
	assert.Contains(t, piAgentText, "name: "+piAgent+"\n")
	assert.NotContains(t, piAgentText, "model:", "the agent runs on Pi's default model")
	assert.Contains(t, stderr, "installed Pi's subagent extension")
	assert.FileExists(t, filepath.Join(h.placeOf(hostPi), "host-pi.md"))

	code, _, stderr = h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "installed Pi's subagent extension", "a reinstall changes nothing")

	_, bin2 := fakePi(t, "2")
	h.env["PATH"] = bin2
	code, _, stderr = h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "// the extension 2\n", readFile(t, filepath.Join(ext, "index.ts")), "an upgraded Pi's extension")

	require.NoError(t, os.WriteFile(filepath.Join(ext, "index.ts"), []byte("edited\n"), 0o644))
	code, _, stderr = h.run("--host", "pi", "--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "was modified since it was installed")
	assert.Equal(t, "edited\n", readFile(t, filepath.Join(ext, "index.ts")))
	code, _, stderr = h.run("--host", "pi", "--bin", h.bin, "--force")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "// the extension 2\n", readFile(t, filepath.Join(ext, "index.ts")))

	code, _, stderr = h.run("--host", "pi", "--uninstall")
	require.Equal(t, 0, code, stderr)
	assert.NoDirExists(t, ext)
	assert.NoDirExists(t, h.placeOf(hostPi))
	assertMissing(t, filepath.Join(agents, piAgent+".md"), "the agent is removed")
	assertMissing(t, filepath.Join(agents, manifestName), "and its manifest")
	assert.Equal(t, "mine\n", readFile(t, mine), "the user's agent stays")
}

// TestPiExtensionFound: the Pi package is $PI_PACKAGE_DIR (Pi's own
// override) before the pi on PATH; without either the skill and the
// agent are installed, and the step that is left is named.
func TestPiExtensionFound(t *testing.T) {
	h := newHarness(t)
	pkg, _ := fakePi(t, "env")
	_, bin := fakePi(t, "path")
	h.env["PATH"], h.env["PI_PACKAGE_DIR"] = bin, pkg
	code, _, stderr := h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	ext := filepath.Join(h.home, ".pi", "agent", "extensions", "subagent")
	assert.Equal(t, "// the extension env\n", readFile(t, filepath.Join(ext, "index.ts")))

	h = newHarness(t)
	code, _, stderr = h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no Pi found")
	assert.Contains(t, stderr, "examples/extensions/subagent")
	assert.NoDirExists(t, filepath.Join(h.home, ".pi", "agent", "extensions"))
	assert.FileExists(t, filepath.Join(h.home, ".pi", "agent", "agents", piAgent+".md"))
	assert.FileExists(t, filepath.Join(h.placeOf(hostPi), "SKILL.md"))
}

// TestPiExtensionOfTheUser: a subagent extension the installer did not
// write (the user's copy, or their links to Pi's package) is left as it
// is, by the install and by --uninstall.
func TestPiExtensionOfTheUser(t *testing.T) {
	h := newHarness(t)
	_, bin := fakePi(t, "1")
	h.env["PATH"] = bin
	ext := filepath.Join(h.home, ".pi", "agent", "extensions", "subagent")
	require.NoError(t, os.MkdirAll(ext, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ext, "index.ts"), []byte("theirs\n"), 0o644))
	code, _, stderr := h.run("--host", "pi", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "the installer did not write")
	assert.Equal(t, map[string]string{"index.ts": "theirs\n"}, readTree(t, ext))
	code, _, stderr = h.run("--host", "pi", "--uninstall")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, map[string]string{"index.ts": "theirs\n"}, readTree(t, ext))
}
