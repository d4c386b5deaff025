package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// fakeSuperpowers lays out an installed superpowers skill with bash
// scripts.
func fakeSuperpowers(t *testing.T) (skillDir string) {
	t.Helper()
	base := t.TempDir()
	skillDir = filepath.Join(base, "superpowers", "skills", ship.SkillName)
	scripts := filepath.Join(skillDir, "scripts")
	require.NoError(t, os.MkdirAll(scripts, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("upstream\n"), 0o644))
	for _, name := range ship.DropIns {
		require.NoError(t, os.WriteFile(filepath.Join(scripts, name), []byte(origScript(name)), 0o755))
	}
	return skillDir
}

func origScript(name string) string {
	return "#!/usr/bin/env bash\necho the bash " + name + "\n"
}

func assertReplaced(t *testing.T, scripts, version string) {
	t.Helper()
	for _, name := range ship.DropIns {
		p := filepath.Join(scripts, name)
		assert.Equal(t, fakeBinary(name, version), readFile(t, p))
		assert.Equal(t, origScript(name), readFile(t, p+origSuffix))
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), name)
		}
	}
}

func assertOriginal(t *testing.T, scripts string) {
	t.Helper()
	for _, name := range ship.DropIns {
		p := filepath.Join(scripts, name)
		assert.Equal(t, origScript(name), readFile(t, p))
		_, err := os.Lstat(p + origSuffix)
		assert.True(t, os.IsNotExist(err), "%s has no .bash-orig left", name)
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "%s keeps its mode", name)
		}
	}
}

func TestReplaceThenRestore(t *testing.T) {
	skillDir := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	h := newHarness(t)

	code, stdout, stderr := h.run("--replace-scripts", skillDir, "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "original kept as task-brief.bash-orig")
	assertReplaced(t, scripts, "v1")

	// Again: nothing to do, and the originals are not overwritten by the
	// binaries.
	code, _, stderr = h.run("--replace-scripts", skillDir, "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already replaced, up to date")
	assertReplaced(t, scripts, "v1")

	// New binaries: the replaced copies are refreshed, the originals kept.
	writeFakeBinaries(t, h.bin, runtime.GOOS, "v2")
	code, _, stderr = h.run("--replace-scripts", scripts, "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "binary updated")
	assertReplaced(t, scripts, "v2")

	code, _, stderr = h.run("--restore", skillDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "original script restored")
	assertOriginal(t, scripts)

	code, _, stderr = h.run("--restore", scripts)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already the original script")
	assertOriginal(t, scripts)
	assert.Equal(t, "upstream\n", readFile(t, filepath.Join(skillDir, "SKILL.md")), "the skill text is not touched")
}

// TestReplaceTakesThePluginsBinaries: without --bin the binaries come
// from the installed plugin's bin/; with no plugin there, nothing changes.
func TestReplaceTakesThePluginsBinaries(t *testing.T) {
	skillDir := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	h := newHarness(t)
	code, _, stderr := h.run("--replace-scripts", skillDir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no sdd-workspace binary")
	assert.Contains(t, stderr, "install the plugin with go run ./scripts/install-skill, or pass --bin DIR")
	assertOriginal(t, scripts)

	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = h.run("--replace-scripts", skillDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "replaced by "+filepath.Join(h.plugin(), "bin", "sdd-workspace"))
	assertReplaced(t, scripts, "v1")
}

func TestReplaceRefusals(t *testing.T) {
	t.Run("not a superpowers dir", func(t *testing.T) {
		h := newHarness(t)
		code, _, stderr := h.run("--replace-scripts", t.TempDir(), "--bin", h.bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "not a superpowers subagent-driven-development skill")
	})
	t.Run("binary missing", func(t *testing.T) {
		skillDir := fakeSuperpowers(t)
		h := newHarness(t)
		require.NoError(t, os.Remove(filepath.Join(h.bin, ship.BinaryName("review-package", runtime.GOOS))))
		code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", h.bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "no review-package binary")
		assertOriginal(t, filepath.Join(skillDir, "scripts"))
	})
	t.Run("unknown file in place of a script", func(t *testing.T) {
		skillDir := fakeSuperpowers(t)
		scripts := filepath.Join(skillDir, "scripts")
		require.NoError(t, os.WriteFile(filepath.Join(scripts, "task-brief"), []byte("MZ not a script"), 0o755))
		h := newHarness(t)
		code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", h.bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "is not a script")
		for _, name := range []string{"sdd-workspace", "review-package"} {
			assert.Equal(t, origScript(name), readFile(t, filepath.Join(scripts, name)), "checked before any change")
			_, err := os.Lstat(filepath.Join(scripts, name+origSuffix))
			assert.True(t, os.IsNotExist(err))
		}
	})
	t.Run("restore without originals", func(t *testing.T) {
		skillDir := fakeSuperpowers(t)
		scripts := filepath.Join(skillDir, "scripts")
		require.NoError(t, os.WriteFile(filepath.Join(scripts, "sdd-workspace"), []byte("binary"), 0o755))
		code, _, stderr := newHarness(t).run("--restore", skillDir)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "no sdd-workspace.bash-orig to restore it from")
	})
}

// TestReplaceThenRestoreWindowsLayout: for Windows the binaries land as
// scripts/<name>.exe, since cmd and PowerShell run no extensionless file
// (and find scripts\<name>.exe when told scripts\<name>, as Git Bash does);
// the bash scripts move aside, and --restore removes the .exe files again.
// The layout is decided by the target OS, so it is checked here on every
// OS; make test-windows runs it for real through cmd under Wine.
func TestReplaceThenRestoreWindowsLayout(t *testing.T) {
	skillDir := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	h := newWindowsHarness(t)

	code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assertWindowsReplaced(t, scripts)

	code, _, stderr = h.run("--replace-scripts", skillDir, "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already replaced, up to date")

	code, _, stderr = h.run("--restore", skillDir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"review-package", "sdd-workspace", "task-brief"}, dirNames(t, scripts))
	assertOriginal(t, scripts)
}

// TestRestoreWindowsAfterExtensionlessCopy: an install replaced by an older
// installer holds the binary as an extensionless scripts/<name> (which no
// Windows shell runs) and no record of what it wrote; the copies are
// sdd-go builds, which is how they are known as the installer's. Replacing
// again moves to <name>.exe, and --restore still brings the scripts back.
func TestRestoreWindowsAfterExtensionlessCopy(t *testing.T) {
	built := builtBinaries(t)
	for _, cmd := range []string{"replace", "restore"} {
		skillDir := fakeSuperpowers(t)
		scripts := filepath.Join(skillDir, "scripts")
		for _, name := range ship.DropIns {
			p := filepath.Join(scripts, name)
			require.NoError(t, os.Rename(p, p+origSuffix))
			require.NoError(t, os.WriteFile(p, []byte(readFile(t, filepath.Join(built, ship.BinaryName(name, runtime.GOOS)))), 0o755))
		}
		h := newWindowsHarness(t)
		if cmd == "replace" {
			code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			assertWindowsReplaced(t, scripts)
		}
		code, _, stderr := h.run("--restore", skillDir)
		require.Equal(t, 0, code, stderr)
		assertOriginal(t, scripts)
		assert.Equal(t, []string{"review-package", "sdd-workspace", "task-brief"}, dirNames(t, scripts))
	}
}

// assertWindowsReplaced: the scripts are set aside and the binaries are
// <name>.exe, nothing under the extensionless names.
func assertWindowsReplaced(t *testing.T, scripts string) {
	t.Helper()
	assert.Equal(t, []string{
		manifestName,
		"review-package.bash-orig", "review-package.exe",
		"sdd-workspace.bash-orig", "sdd-workspace.exe",
		"task-brief.bash-orig", "task-brief.exe",
	}, dirNames(t, scripts))
	for _, name := range ship.DropIns {
		assert.Equal(t, fakeBinary(name, "v1"), readFile(t, filepath.Join(scripts, name+".exe")))
		assert.Equal(t, origScript(name), readFile(t, filepath.Join(scripts, name+origSuffix)))
	}
}
