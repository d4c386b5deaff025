package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertLink checks that link is still the symlink to target it was.
func assertLink(t *testing.T, link, target string) {
	t.Helper()
	got, err := os.Readlink(link)
	if assert.NoError(t, err, "%s is still a symlink", link) {
		assert.Equal(t, target, got)
	}
}

// symlink makes link lead to target, or skips where the OS will not.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
}

// refusedEveryWay checks that an install and an --uninstall for host,
// each with and without --force, are refused with every want in the
// message, and then check holds.
func refusedEveryWay(t *testing.T, h *harness, host string, want []string, check func(args []string)) {
	t.Helper()
	for _, args := range [][]string{
		{"--host", host, "--bin", h.bin},
		{"--host", host, "--bin", h.bin, "--force"},
		{"--host", host, "--uninstall"},
		{"--host", host, "--uninstall", "--force"},
	} {
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 1, code, "%q: %s", args, stderr)
		assert.Empty(t, stdout)
		for _, w := range want {
			assert.Contains(t, stderr, w, "%q", args)
		}
		check(args)
	}
}

// TestSymlinkedPlaceIsRefused: where the folder the installer fills (the
// plugin's, or the skill's for Codex and OpenCode) is a symlink to a
// folder of the user's, install and --uninstall are refused, --force or
// not, with the link named and --dir offered: nothing is written or
// removed in the folder it leads to, and the link stays. The user's folder
// here even holds an install made there with --dir, which is what
// --uninstall would have emptied.
func TestSymlinkedPlaceIsRefused(t *testing.T) {
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			h := newHarness(t)
			mine := filepath.Join(t.TempDir(), "mine")
			code, _, stderr := h.run("--host", host, "--bin", h.bin, "--dir", mine)
			require.Equal(t, 0, code, stderr)
			require.NoError(t, os.WriteFile(filepath.Join(mine, "my-notes.md"), []byte("mine\n"), 0o644))
			before := readTree(t, mine)
			place := h.placeOf(host)
			require.NoError(t, os.MkdirAll(filepath.Dir(place), 0o755))
			symlink(t, mine, place)

			writeFakeBinaries(t, h.bin, h.goos, "v2")
			// --dir: the way to act on the folder it leads to.
			refusedEveryWay(t, h, host, []string{place + " is a symbolic link to " + mine, "--dir"}, func(args []string) {
				assert.Equal(t, before, readTree(t, mine), "%q: nothing written or removed through the link", args)
				assertLink(t, place, mine)
			})
		})
	}
}

// TestSymlinkInsideIsRefused: a symlink the user put inside an install,
// where a file or folder of the installer's was (bin/ leading to a folder
// of theirs, a file leading to one of theirs, a link leading nowhere), is
// neither written through nor removed, --force or not, by an upgrade or
// --uninstall; the message names it and says what to do, and doing it
// works.
func TestSymlinkInsideIsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		rel  string                       // the installer's path the link takes
		make func(t *testing.T, p string) // turns the installer's p into a link
	}{
		{"folder", "bin", func(t *testing.T, p string) {
			mine := filepath.Join(t.TempDir(), "my-bin")
			require.NoError(t, os.Rename(p, mine))
			symlink(t, mine, p)
		}},
		{"file", "README.md", func(t *testing.T, p string) {
			mine := filepath.Join(t.TempDir(), "README.md")
			require.NoError(t, os.Rename(p, mine))
			symlink(t, mine, p)
		}},
		{"dangling", "LICENSE", func(t *testing.T, p string) {
			require.NoError(t, os.Remove(p))
			symlink(t, filepath.Join(t.TempDir(), "gone"), p)
		}},
	} {
		for k, host := range hosts {
			if testing.Short() && k%3 != len(c.name)%3 {
				continue // some hosts each way; make test-full, every host every way
			}
			t.Run(c.name+"/"+host, func(t *testing.T) {
				h := newHarness(t)
				code, _, stderr := h.run("--host", host, "--bin", h.bin)
				require.Equal(t, 0, code, stderr)
				place := h.placeOf(host)
				link := filepath.Join(place, filepath.FromSlash(c.rel))
				c.make(t, link)
				target, err := os.Readlink(link)
				require.NoError(t, err)
				var theirs map[string]string
				if fi, err := os.Stat(link); err == nil && fi.IsDir() {
					theirs = readTree(t, target)
				} else if err == nil {
					theirs = map[string]string{"": readFile(t, target)}
				}
				before := readTree(t, place)

				writeFakeBinaries(t, h.bin, h.goos, "v2")
				refusedEveryWay(t, h, host, []string{link + ": a symbolic link to " + target, "remove each"}, func(args []string) {
					assert.Equal(t, before, readTree(t, place), "%q: nothing changed", args)
					assertLink(t, link, target)
					if fi, err := os.Stat(link); err == nil && fi.IsDir() {
						assert.Equal(t, theirs, readTree(t, target), "%q: the folder it leads to is untouched", args)
					} else if err == nil {
						assert.Equal(t, theirs, map[string]string{"": readFile(t, target)}, "%q", args)
					}
				})

				// What the message says: remove the link; an install then
				// puts the installer's files back with --force.
				require.NoError(t, os.Remove(link))
				code, _, stderr = h.run("--host", host, "--bin", h.bin, "--force")
				require.Equal(t, 0, code, stderr)
				code, _, stderr = h.run("--host", host, "--uninstall")
				require.Equal(t, 0, code, stderr)
				assert.NoDirExists(t, place)
			})
		}
	}
}

// TestSymlinkedOldSkillIsLeft: the previous installer's plain skill folder
// in ~/.claude/skills is a symlink to a folder of the user's (holding that
// installer's untouched files): installing the plugin neither removes the
// link nor empties the folder, and says what the user can do.
func TestSymlinkedOldSkillIsLeft(t *testing.T) {
	h := newHarness(t)
	old := oldInstall(h)
	mine := filepath.Join(t.TempDir(), "mine")
	require.NoError(t, os.Rename(old, mine))
	symlink(t, mine, old)
	before := readTree(t, mine)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assertPlugin(t, h.plugin(), h.bin, h.goos)
	assertLink(t, old, mine)
	assert.Equal(t, before, readTree(t, mine))
	assert.Contains(t, stderr, old+" is a symbolic link to "+mine)
	assert.Contains(t, stderr, "remove the link")
}

// TestSymlinkAmongScriptsIsRefused: --replace-scripts and --restore
// neither write through, rename nor delete a symlink the user put among
// a superpowers install's scripts (where the binary stands, or the
// .bash-orig), --force or not.
func TestSymlinkAmongScriptsIsRefused(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		for _, which := range []string{"binary", "original"} {
			c := newSwapCase(t, windows)
			p := c.target()
			if which == "original" {
				p = c.o
			}
			mine := filepath.Join(t.TempDir(), "my-task-brief")
			c.write(t, mine, newerScript)
			c.remove(t, p)
			symlink(t, mine, p)
			for _, args := range [][]string{c.replace(false), c.replace(true), c.restore(false), c.restore(true)} {
				c.refused(t, []string{p + ": a symbolic link to " + mine}, args...)
				assertLink(t, p, mine)
				assert.Equal(t, newerScript, readFile(t, mine), "%s: %q", which, args)
			}
		}
	})
}

// TestDirIsTheKernels: --dir reaches the kernel as given, nothing cleaned
// away first: link/../x is x beside the folder link leads to, not x beside
// link, as open(2) has it.
func TestDirIsTheKernels(t *testing.T) {
	h := newHarness(t)
	here, there := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(there, "a"), 0o755))
	symlink(t, filepath.Join(there, "a"), filepath.Join(here, "link"))
	dir := filepath.Join(here, "link") + string(filepath.Separator) + ".." + string(filepath.Separator) + "x"
	code, _, stderr := h.run("--bin", h.bin, "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assertPlugin(t, filepath.Join(there, "x"), h.bin, h.goos)
	assertMissing(t, filepath.Join(here, "x"))
	code, _, stderr = h.run("--uninstall", "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assertMissing(t, filepath.Join(there, "x"))
}
