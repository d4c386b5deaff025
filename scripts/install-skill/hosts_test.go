package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// wantSkillFolder is what a Codex or OpenCode install holds: the
// repository's skill/ (every file) at the folder's root, README.md and
// LICENSE, and the binaries from bin in bin/.
func wantSkillFolder(t *testing.T, bin, goos string) map[string]string {
	t.Helper()
	root := repoRoot(t)
	want := readTree(t, filepath.Join(root, "skill"))
	require.Contains(t, want, "SKILL.md")
	want["README.md"] = readFile(t, filepath.Join(root, "README.md"))
	want["LICENSE"] = readFile(t, filepath.Join(root, "LICENSE"))
	for _, name := range ship.Commands {
		exe := ship.BinaryName(name, goos)
		want["bin/"+exe] = readFile(t, filepath.Join(bin, exe))
	}
	return want
}

// placeOf is where the install for host goes without --dir.
func (h *harness) placeOf(host string) string {
	switch host {
	case hostCodex:
		return filepath.Join(h.home, ".codex", "skills", ship.SkillName)
	case hostOpenCode:
		return filepath.Join(h.home, ".config", "opencode", "skills", ship.SkillName)
	case hostCopilot:
		return filepath.Join(h.home, ".copilot", "skills", ship.SkillName)
	case hostGemini:
		return filepath.Join(h.home, ".gemini", "skills", ship.SkillName)
	case hostPi:
		return filepath.Join(h.home, ".pi", "agent", "skills", ship.SkillName)
	case hostDroid:
		return filepath.Join(h.home, ".factory", "skills", ship.SkillName)
	}
	return h.plugin()
}

// TestInstallForEachHost: --host codex, opencode, copilot, gemini, pi and
// droid put the skill folder where each host looks (their own variables first, then HOME), a
// reinstall changes nothing, an edited file is kept without --force and
// overwritten with it, and Claude Code's place is not touched.
func TestInstallForEachHost(t *testing.T) {
	for _, c := range []struct {
		host, key string
		where     func(h *harness) string // with key unset
		under     func(v string) string   // with key set to v
	}{
		{"codex", "CODEX_HOME",
			func(h *harness) string { return filepath.Join(h.home, ".codex", "skills", ship.SkillName) },
			func(v string) string { return filepath.Join(v, "skills", ship.SkillName) }},
		{"opencode", "XDG_CONFIG_HOME",
			func(h *harness) string { return filepath.Join(h.home, ".config", "opencode", "skills", ship.SkillName) },
			func(v string) string { return filepath.Join(v, "opencode", "skills", ship.SkillName) }},
		{"copilot", "COPILOT_HOME",
			func(h *harness) string { return h.placeOf(hostCopilot) },
			func(v string) string { return filepath.Join(v, "skills", ship.SkillName) }},
		{"gemini", "GEMINI_CLI_HOME",
			func(h *harness) string { return h.placeOf(hostGemini) },
			func(v string) string { return filepath.Join(v, ".gemini", "skills", ship.SkillName) }},
		{"pi", "PI_CODING_AGENT_DIR",
			func(h *harness) string { return h.placeOf(hostPi) },
			func(v string) string { return filepath.Join(v, "skills", ship.SkillName) }},
		{"droid", "FACTORY_HOME_OVERRIDE",
			func(h *harness) string { return h.placeOf(hostDroid) },
			func(v string) string { return filepath.Join(v, ".factory", "skills", ship.SkillName) }},
	} {
		t.Run(c.host, func(t *testing.T) {
			h := newHarness(t)
			code, stdout, stderr := h.run("--host", c.host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stdout)
			dir := c.where(h)
			got := readTree(t, dir)
			require.Contains(t, got, manifestName)
			delete(got, manifestName)
			assert.Equal(t, wantSkillFolder(t, h.bin, h.goos), got)
			assert.Contains(t, stderr, filepath.Join(dir, "bin"))
			assertMissing(t, filepath.Join(h.home, ".claude"), "Claude Code's place is not touched")
			fi, err := os.Stat(filepath.Join(dir, "bin", ship.BinaryName("sdd-ledger", h.goos)))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())

			code, _, stderr = h.run("--host", c.host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "is up to date")

			edited := filepath.Join(dir, "SKILL.md")
			require.NoError(t, os.WriteFile(edited, []byte("mine\n"), 0o644))
			code, _, stderr = h.run("--host", c.host, "--bin", h.bin)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "was modified since it was installed")
			assert.Equal(t, "mine\n", readFile(t, edited))
			code, _, stderr = h.run("--host", c.host, "--bin", h.bin, "--force")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, readFile(t, filepath.Join(repoRoot(t), "skill", "SKILL.md")), readFile(t, edited))

			v := t.TempDir()
			h.env[c.key] = v
			code, _, stderr = h.run("--host", c.host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			assert.FileExists(t, filepath.Join(c.under(v), "SKILL.md"))
			assert.FileExists(t, filepath.Join(c.under(v), "host-"+c.host+".md"))
		})
	}
}

func TestHostUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--host", "vim"},
		{"--host", ""},
		{"--host", "codex", "--no-binaries"},
		{"--host", "opencode", "--replace-scripts", "a"},
		{"--uninstall", "--bin", "b"},
		{"--uninstall", "--restore", "a"},
	} {
		h := newHarness(t)
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Empty(t, stdout, "%q", args)
		assert.Contains(t, stderr, "usage: go run ./scripts/install-skill", "%q", args)
		assertMissing(t, filepath.Join(h.home, ".codex"), "%q: nothing installed", args)
		assertMissing(t, filepath.Join(h.home, ".config"), "%q: nothing installed", args)
	}
}

// TestUninstall: for each host, --uninstall removes what the install put
// there and the place itself; an edited file stops it (nothing removed)
// unless --force; a file the installer did not write stays, with its
// directory; with nothing installed it says so and succeeds.
func TestUninstall(t *testing.T) {
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			h := newHarness(t)
			dir, err := defaultDir(host, Env{Getenv: func(k string) string {
				if k == "HOME" || k == "USERPROFILE" {
					return h.home
				}
				return ""
			}, GOOS: h.goos})
			require.NoError(t, err)

			code, _, stderr := h.run("--uninstall", "--host", host)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "nothing to uninstall")

			code, _, stderr = h.run("--host", host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			require.DirExists(t, dir)
			code, _, stderr = h.run("--uninstall", "--host", host)
			require.Equal(t, 0, code, stderr)
			assert.NoDirExists(t, dir)

			code, _, stderr = h.run("--host", host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			before := readTree(t, dir)
			edited := filepath.Join(dir, "LICENSE")
			require.NoError(t, os.WriteFile(edited, []byte("mine\n"), 0o644))
			before["LICENSE"] = "mine\n"
			code, _, stderr = h.run("--uninstall", "--host", host)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "LICENSE (edited)")
			assert.Equal(t, before, readTree(t, dir), "nothing removed")

			mine := filepath.Join(dir, "notes.txt")
			require.NoError(t, os.WriteFile(mine, []byte("keep\n"), 0o644))
			code, _, stderr = h.run("--uninstall", "--host", host, "--force")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, map[string]string{"notes.txt": "keep\n"}, readTree(t, dir))
			assert.Contains(t, stderr, "files the installer did not write")
		})
	}
}

// fakeCheckout is a copy of what an install reads from the checkout
// (go.mod, skill/, README.md, LICENSE) in a folder of the test's, made the
// current directory: a relative path the installer mishandles lands in
// it, not in the real checkout.
func fakeCheckout(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	for _, rel := range []string{"go.mod", "README.md", "LICENSE"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(readFile(t, filepath.Join(root, rel))), 0o644))
	}
	for rel, body := range readTree(t, filepath.Join(root, "skill")) {
		p := filepath.Join(dir, "skill", filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	t.Chdir(dir)
	return dir
}

// TestRelativeCodexHome: Codex reads a relative CODEX_HOME against the
// directory it starts in (and stops where it does not exist there), so an
// install into it would serve one directory only: install and --uninstall
// refuse it, naming the variable, and write nothing.
func TestRelativeCodexHome(t *testing.T) {
	h := newHarness(t)
	cwd := fakeCheckout(t)
	h.env["CODEX_HOME"] = "relcodex"
	for _, args := range [][]string{
		{"--host", "codex", "--bin", h.bin},
		{"--host", "codex", "--uninstall"},
	} {
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 1, code, "%q: %s", args, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, `CODEX_HOME is "relcodex", a relative path`)
		assert.Contains(t, stderr, "absolute")
		assertMissing(t, filepath.Join(cwd, "relcodex"), "%q: nothing in the current directory", args)
		assertMissing(t, filepath.Join(h.home, ".codex"), "%q: nor in HOME", args)
	}
}

// TestRelativeXDGConfigHome: a relative XDG_CONFIG_HOME is refused as a
// relative CODEX_HOME is: OpenCode (1.18.33) takes it relative to the
// directory it starts in, as Codex does (the XDG specification would have
// it ignored, and OpenCode does not), so no install serves it; nothing is
// written, in the current directory or in HOME.
func TestRelativeXDGConfigHome(t *testing.T) {
	h := newHarness(t)
	cwd := fakeCheckout(t)
	h.env["XDG_CONFIG_HOME"] = "relxdg"
	for _, args := range [][]string{{"--host", "opencode", "--bin", h.bin}, {"--host", "opencode", "--uninstall"}} {
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 1, code, "%q: %s", args, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, `XDG_CONFIG_HOME is "relxdg", a relative path: OpenCode takes it relative to the directory it starts in`)
		assertMissing(t, filepath.Join(cwd, "relxdg"), "%q: nothing in the current directory", args)
		assertMissing(t, filepath.Join(h.home, ".config", "opencode"), "%q: nor in HOME", args)
	}
}
