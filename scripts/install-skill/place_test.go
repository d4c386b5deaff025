package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// TestRefusesModifiedPlugin: a file of the plugin that was edited or
// deleted since the last install (skill text, a binary, plugin.json, or
// the manifest itself) stops the install with nothing changed, until
// --force.
func TestRefusesModifiedPlugin(t *testing.T) {
	for name, modify := range map[string]func(t *testing.T, dir string){
		"edited skill": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "skills", ship.SkillName, "SKILL.md"), []byte("my local notes\n"), 0o644))
		},
		"edited binary": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", ship.BinaryName("task-brief", "windows")), []byte("patched"), 0o755))
		},
		"edited plugin.json": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte("{}\n"), 0o644))
		},
		"deleted": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "skills", ship.SkillName, "re-review-prompt.md")))
		},
		"manifest lost": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := newWindowsHarness(t) // any OS will do; the binary edited above is the .exe
			code, _, stderr := h.run("--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			modify(t, h.plugin())
			before := readTree(t, h.plugin())

			writeFakeBinaries(t, h.bin, h.goos, "v2")
			code, stdout, stderr := h.run("--bin", h.bin)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			if name == "manifest lost" {
				// No record: the binaries that differ are not the
				// installer's as far as it can tell.
				assert.Contains(t, stderr, " holds files install-skill did not write:\n  bin/review-package.exe\n")
			} else {
				assert.Contains(t, stderr, "was modified since it was installed")
			}
			assert.Contains(t, stderr, "--force")
			assert.Equal(t, before, readTree(t, h.plugin()), "a refused install changes nothing")

			code, _, stderr = h.run("--bin", h.bin, "--force")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "--force: overwriting local changes")
			assertPlugin(t, h.plugin(), h.bin, h.goos)

			code, _, stderr = h.run("--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "is up to date", "after --force the plugin is untouched again")
		})
	}
}

// TestRefusesForeignFiles: a plugin directory the installer did not write
// (a skill copied by hand, an unpacked archive of another version) is not
// overwritten either, and the refusal says the files are not the
// installer's (not that they were modified since an install there never
// was); files already holding what would be written are no loss, so they
// do not stop it.
func TestRefusesForeignFiles(t *testing.T) {
	h := newHarness(t)
	skill := filepath.Join(h.plugin(), "skills", ship.SkillName)
	require.NoError(t, os.MkdirAll(skill, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("someone else's\n"), 0o644))
	code, _, stderr := h.run("--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, h.plugin()+" holds files install-skill did not write:\n  skills/subagent-driven-development/SKILL.md\n")
	assert.NotContains(t, stderr, "modified since it was installed", "it never was installed")
	assert.Contains(t, stderr, "--force")
	assert.Equal(t, "someone else's\n", readFile(t, filepath.Join(skill, "SKILL.md")))

	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(readFile(t, filepath.Join(repoRoot(t), "skill", "SKILL.md"))), 0o644))
	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assertPlugin(t, h.plugin(), h.bin, h.goos)
}

func TestExtraLocalFilesAreKept(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	notes := filepath.Join(h.plugin(), "skills", ship.SkillName, "my-notes.md")
	require.NoError(t, os.WriteFile(notes, []byte("mine\n"), 0o644))
	writeFakeBinaries(t, h.bin, h.goos, "v2")
	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "mine\n", readFile(t, notes))
}

// TestInterruptedInstallIsStillOurs: until an install ends, its manifest
// lists the old and the new sum of every file, so a run cut short after
// placing some files (here: the last one cannot be written) leaves files
// the next run still knows as its own, not as edits.
func TestInterruptedInstallIsStillOurs(t *testing.T) {
	dir := t.TempDir()
	env := testEnv()
	env.Stderr = io.Discard
	version := func(v string) map[string]newFile {
		return map[string]newFile{"a.md": {[]byte("a " + v), 0o644}, "bin/b": {[]byte("b " + v), 0o755}}
	}
	_, err := place(dir, version("v1"), false, env)
	require.NoError(t, err)

	cut := version("v2")
	cut["zz/c.md"] = newFile{[]byte("c"), 0o644} // placed last, and cannot be: zz is a file
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zz"), nil, 0o644))
	_, err = place(dir, cut, false, env)
	require.Error(t, err)
	assert.Equal(t, "a v2", readFile(t, filepath.Join(dir, "a.md")), "the run was cut short after placing files")
	require.NoError(t, os.Remove(filepath.Join(dir, "zz")))

	did, err := place(dir, version("v3"), false, env)
	require.NoError(t, err, "no file counts as edited")
	assert.Equal(t, placed{written: 2}, did)
	assert.Equal(t, formatManifest(map[string][]string{"a.md": {sum([]byte("a v3"))}, "bin/b": {sum([]byte("b v3"))}}),
		[]byte(readFile(t, filepath.Join(dir, manifestName))), "the manifest ends with one sum a file")
}

// TestInterruptedFirstInstall: a first install cut short (here: a file
// cannot be placed) leaves files it placed and files it never got to; the
// next install completes it without --force (a file never placed is not
// one the user deleted), and --uninstall instead removes every file it
// placed and the folder.
func TestInterruptedFirstInstall(t *testing.T) {
	env := testEnv()
	env.Stderr = io.Discard
	files := map[string]newFile{"a.md": {[]byte("a"), 0o644}, "bin/b": {[]byte("b"), 0o755}, "c.md": {[]byte("c"), 0o644}}
	cut := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "skill")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "bin"), nil, 0o644)) // bin/b cannot be placed
		_, err := place(dir, files, false, env)
		require.Error(t, err)
		require.NoError(t, os.Remove(filepath.Join(dir, "bin")))
		assert.Equal(t, map[string]string{"a.md": "a", manifestName: readFile(t, filepath.Join(dir, manifestName))}, readTree(t, dir),
			"a.md placed, bin/b and c.md not")
		return dir
	}

	dir := cut(t)
	did, err := place(dir, files, false, env)
	require.NoError(t, err, "nothing counts as deleted")
	assert.Equal(t, placed{written: 2, unchanged: 1}, did)

	dir = cut(t)
	_, err = place(dir, map[string]newFile{}, false, env) // what --uninstall does first
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
	assert.NoError(t, os.Remove(dir), "nothing is left in the folder")
}

func TestBadManifestIsAnError(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, os.MkdirAll(h.plugin(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.plugin(), manifestName), []byte("not a sum  README.md\n"), 0o644))
	code, _, stderr := h.run("--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, manifestName+":1: not a manifest line")
	assert.Equal(t, []string{manifestName}, dirNames(t, h.plugin()))
}
