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

// The states one command's files can be in when --replace-scripts or
// --restore runs: the extensionless scripts/<name> (S), the original set
// aside, <name>.bash-orig (O), and on Windows the binary's
// scripts/<name>.exe (E). Every state in which a file install-skill did not
// write would be overwritten or deleted is refused (exit 1, nothing
// changed, the files named and what --force does said), and --force does
// what the message says. The tests act on task-brief; the other two
// commands stay as the first --replace-scripts left them.

const (
	newerScript = "#!/usr/bin/env bash\necho the NEWER bash task-brief\n"
	userBinary  = "\x7fELF the user's own task-brief"
)

// swapCase is a superpowers install replaced once with the v1 stand-ins.
type swapCase struct {
	h              *harness
	skill, scripts string
	s, o, e        string // task-brief's paths (e only on Windows)
	windows        bool
}

func newSwapCase(t *testing.T, windows bool) *swapCase {
	t.Helper()
	c := &swapCase{windows: windows}
	if windows {
		c.h = newWindowsHarness(t)
	} else {
		// The Unix layout on any OS, as newWindowsHarness is the
		// Windows one.
		c.h = newHarness(t)
		c.h.goos = "linux"
		writeFakeBinaries(t, c.h.bin, c.h.goos, "v1")
	}
	c.skill = fakeSuperpowers(t)
	c.scripts = filepath.Join(c.skill, "scripts")
	c.s = filepath.Join(c.scripts, "task-brief")
	c.o = c.s + origSuffix
	c.e = c.s + ".exe"
	code, _, stderr := c.h.run("--replace-scripts", c.skill, "--bin", c.h.bin)
	require.Equal(t, 0, code, stderr)
	return c
}

// target is where the binary stands: S on Unix, E on Windows.
func (c *swapCase) target() string {
	if c.windows {
		return c.e
	}
	return c.s
}

func (c *swapCase) write(t *testing.T, p, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(p, []byte(body), 0o755))
}

func (c *swapCase) remove(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, os.Remove(p))
}

// refused runs args and checks the run is refused with nothing changed
// and every want in the message.
func (c *swapCase) refused(t *testing.T, want []string, args ...string) {
	t.Helper()
	before := readTree(t, c.scripts)
	code, stdout, stderr := c.h.run(args...)
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout)
	for _, w := range want {
		assert.Contains(t, stderr, w)
	}
	assert.Equal(t, before, readTree(t, c.scripts), "nothing was changed")
}

func (c *swapCase) ok(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := c.h.run(args...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	return stderr
}

func (c *swapCase) replace(force bool) []string {
	args := []string{"--replace-scripts", c.skill, "--bin", c.h.bin}
	if force {
		args = append(args, "--force")
	}
	return args
}

func (c *swapCase) restore(force bool) []string {
	args := []string{"--restore", c.skill}
	if force {
		args = append(args, "--force")
	}
	return args
}

// otherTwoReplaced: sdd-workspace and review-package are replaced by
// version's binaries, their originals kept.
func (c *swapCase) otherTwoReplaced(t *testing.T, version string) {
	t.Helper()
	for _, name := range []string{"sdd-workspace", "review-package"} {
		p := filepath.Join(c.scripts, ship.BinaryName(name, c.h.goos))
		assert.Equal(t, fakeBinary(name, version), readFile(t, p), name)
		assert.Equal(t, origScript(name), readFile(t, filepath.Join(c.scripts, name+origSuffix)), name)
	}
}

// otherTwoRestored: sdd-workspace and review-package are the original
// scripts again.
func (c *swapCase) otherTwoRestored(t *testing.T) {
	t.Helper()
	for _, name := range []string{"sdd-workspace", "review-package"} {
		p := filepath.Join(c.scripts, name)
		assert.Equal(t, origScript(name), readFile(t, p), name)
		assertMissing(t, p+origSuffix, name)
		assertMissing(t, p+".exe", name)
	}
	assertMissing(t, filepath.Join(c.scripts, manifestName), "the record goes with the binaries")
}

func forBothLayouts(t *testing.T, f func(t *testing.T, windows bool)) {
	t.Run("unix", func(t *testing.T) { f(t, false) })
	t.Run("windows", func(t *testing.T) { f(t, true) })
}

// TestReplaceKeepsANewerScript is finding 1: after --replace-scripts, a
// superpowers update (or a reset and pull) puts a new task-brief script
// in place. Replacing again must not delete it and keep the stale
// original; --force sets the new script aside as the original.
func TestReplaceKeepsANewerScript(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		c := newSwapCase(t, windows)
		c.write(t, c.s, newerScript)
		writeFakeBinaries(t, c.h.bin, c.h.goos, "v2")
		c.refused(t, []string{c.s, "task-brief.bash-orig", "--force", "sets it aside as task-brief.bash-orig", "the old original is deleted"},
			c.replace(false)...)

		stderr := c.ok(t, c.replace(true)...)
		assert.Contains(t, stderr, "--force: "+c.s)
		assert.Equal(t, newerScript, readFile(t, c.o), "the newer script is the original now")
		assert.Equal(t, fakeBinary("task-brief", "v2"), readFile(t, c.target()))
		if windows {
			assertMissing(t, c.s)
		}
		c.otherTwoReplaced(t, "v2")

		c.ok(t, c.restore(false)...)
		assert.Equal(t, newerScript, readFile(t, c.s), "--restore brings back the newer script")
	})
}

// TestReplaceWhenTheOriginalIsDeletedInstead: the message's other way out
// of the newer-script state, deleting the stale .bash-orig, works: the
// newer script is set aside as usual.
func TestReplaceWhenTheOriginalIsDeletedInstead(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		c := newSwapCase(t, windows)
		c.write(t, c.s, newerScript)
		c.remove(t, c.o)
		c.ok(t, c.replace(false)...)
		assert.Equal(t, newerScript, readFile(t, c.o))
		assert.Equal(t, fakeBinary("task-brief", "v1"), readFile(t, c.target()))
	})
}

// TestRestoreKeepsANewerScript: --restore in the same state must not put
// the stale original over the new script; --force does, as it says.
func TestRestoreKeepsANewerScript(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		c := newSwapCase(t, windows)
		c.write(t, c.s, newerScript)
		c.refused(t, []string{c.s, "task-brief.bash-orig", "--force", "puts task-brief.bash-orig back over it", "delete " + c.o},
			c.restore(false)...)

		stderr := c.ok(t, c.restore(true)...)
		assert.Contains(t, stderr, "--force: "+c.s)
		assert.Equal(t, origScript("task-brief"), readFile(t, c.s))
		assertMissing(t, c.o)
		assertMissing(t, c.e)
		c.otherTwoRestored(t)
	})
}

// TestRestoreAfterTheOriginalIsDeletedInstead: the other way out: with
// the stale original deleted, --restore keeps the newer script (and on
// Windows removes the binary that would shadow it).
func TestRestoreAfterTheOriginalIsDeletedInstead(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		c := newSwapCase(t, windows)
		c.write(t, c.s, newerScript)
		c.remove(t, c.o)
		stderr := c.ok(t, c.restore(false)...)
		assert.Contains(t, stderr, c.s+": already the original script")
		assert.Equal(t, newerScript, readFile(t, c.s))
		assertMissing(t, c.e, "the binary install-skill put there goes")
		c.otherTwoRestored(t)
	})
}

// TestSwapForeignBinary: a file that is not a script and not what
// install-skill wrote (the user's own build) stands where the binary goes.
// --replace-scripts does not overwrite it without --force; --restore does
// not delete it without --force.
func TestSwapForeignBinary(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		c := newSwapCase(t, windows)
		c.write(t, c.target(), userBinary)
		c.refused(t, []string{c.target(), "not written by install-skill", "--force overwrites it with the binary"}, c.replace(false)...)
		c.ok(t, c.replace(true)...)
		assert.Equal(t, fakeBinary("task-brief", "v1"), readFile(t, c.target()))
		assert.Equal(t, origScript("task-brief"), readFile(t, c.o), "the original is kept")

		c.write(t, c.target(), userBinary)
		want := "--force puts task-brief.bash-orig back over it"
		if windows {
			want = "--force deletes it"
		}
		c.refused(t, []string{c.target(), "not written by install-skill", want}, c.restore(false)...)
		c.ok(t, c.restore(true)...)
		assert.Equal(t, origScript("task-brief"), readFile(t, c.s))
		assertMissing(t, c.o)
		assertMissing(t, c.e)
		c.otherTwoRestored(t)
	})
}

// TestSwapStatesThatLoseNothing: the states in which the file in the way
// is the installer's own, the same bytes as the kept original, or absent:
// both commands go ahead without --force.
func TestSwapStatesThatLoseNothing(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		for _, st := range []struct {
			name  string
			setup func(t *testing.T, c *swapCase)
		}{
			{"binary as written", func(t *testing.T, c *swapCase) {}},
			{"script is a copy of the original", func(t *testing.T, c *swapCase) { c.write(t, c.s, origScript("task-brief")) }},
			{"binary deleted", func(t *testing.T, c *swapCase) { c.remove(t, c.target()) }},
			{"binary is the one to install", func(t *testing.T, c *swapCase) {
				// Not recorded, but the very bytes: rewriting them loses nothing.
				writeFakeBinaries(t, c.h.bin, c.h.goos, "v2")
				c.write(t, c.target(), fakeBinary("task-brief", "v2"))
			}},
		} {
			t.Run(st.name, func(t *testing.T) {
				c := newSwapCase(t, windows)
				st.setup(t, c)
				version := "v1"
				if st.name == "binary is the one to install" {
					version = "v2"
				}
				c.ok(t, c.replace(false)...)
				assert.Equal(t, fakeBinary("task-brief", version), readFile(t, c.target()))
				assert.Equal(t, origScript("task-brief"), readFile(t, c.o))
				if windows {
					assertMissing(t, c.s, "nothing under the extensionless name")
				}
				c.otherTwoReplaced(t, version)

				st.setup(t, c)
				c.ok(t, c.restore(false)...)
				assert.Equal(t, origScript("task-brief"), readFile(t, c.s))
				assertMissing(t, c.o)
				assertMissing(t, c.e)
				c.otherTwoRestored(t)
			})
		}
	})
}

// TestSwapWithoutAnOriginal: with no .bash-orig and no script to set
// aside there is nothing to go by: both commands refuse, --force or not,
// and say what would let them go on.
func TestSwapWithoutAnOriginal(t *testing.T) {
	forBothLayouts(t, func(t *testing.T, windows bool) {
		for _, force := range []bool{false, true} {
			c := newSwapCase(t, windows)
			c.remove(t, c.o)
			if windows {
				// Only the .exe is left: S is missing.
				c.refused(t, []string{c.s + " is missing and there is no task-brief.bash-orig"}, c.replace(force)...)
			} else {
				c.refused(t, []string{c.s, "task-brief.bash-orig, the original script, is gone"}, c.replace(force)...)
			}
			c.refused(t, []string{"no task-brief.bash-orig to restore it from"}, c.restore(force)...)
			c.remove(t, c.target())
			c.refused(t, []string{c.s + " is missing and there is no task-brief.bash-orig"}, c.replace(force)...)
			c.refused(t, []string{c.s + " is missing and there is no task-brief.bash-orig"}, c.restore(force)...)
			c.write(t, c.s, userBinary)
			c.refused(t, []string{c.s + " is not a script (no #! line) and there is no task-brief.bash-orig"}, c.replace(force)...)
			c.refused(t, []string{c.s + " is not the bash script and there is no task-brief.bash-orig"}, c.restore(force)...)
		}
	})
}

// TestWindowsForeignExeBesideAScript: on Windows a fresh install whose
// scripts/ already holds a task-brief.exe install-skill did not write: the
// script may be set aside, but the .exe is not overwritten without
// --force.
func TestWindowsForeignExeBesideAScript(t *testing.T) {
	skill := fakeSuperpowers(t)
	scripts := filepath.Join(skill, "scripts")
	exe := filepath.Join(scripts, "task-brief.exe")
	require.NoError(t, os.WriteFile(exe, []byte(userBinary), 0o755))
	h := newWindowsHarness(t)
	before := readTree(t, scripts)
	code, _, stderr := h.run("--replace-scripts", skill, "--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, exe+": not written by install-skill")
	assert.Equal(t, before, readTree(t, scripts))
	code, _, stderr = h.run("--replace-scripts", skill, "--bin", h.bin, "--force")
	require.Equal(t, 0, code, stderr)
	assertWindowsReplaced(t, scripts)
}

// sddBinaries builds the three commands as a release would, for the cases
// that stand for an install made before install-skill kept a record of
// what it wrote: then a file counts as the installer's when it is an
// sdd-go build of that command.
// TestSwapBeforeTheRecord: an install replaced by an earlier installer,
// which kept no record: its binaries (sdd-go builds) are refreshed or
// removed as the installer's own; a binary that is no sdd-go build is not.
func TestSwapBeforeTheRecord(t *testing.T) {
	built := builtBinaries(t)
	forBothLayouts(t, func(t *testing.T, windows bool) {
		for _, cmd := range []string{"replace", "restore"} {
			c := newSwapCase(t, windows)
			c.remove(t, filepath.Join(c.scripts, manifestName))
			for _, name := range ship.DropIns {
				b, err := os.ReadFile(filepath.Join(built, ship.BinaryName(name, runtime.GOOS)))
				require.NoError(t, err)
				c.write(t, filepath.Join(c.scripts, ship.BinaryName(name, c.h.goos)), string(b))
			}
			if cmd == "replace" {
				c.ok(t, c.replace(false)...)
				for _, name := range ship.DropIns {
					assert.Equal(t, fakeBinary(name, "v1"), readFile(t, filepath.Join(c.scripts, ship.BinaryName(name, c.h.goos))))
				}
			} else {
				c.ok(t, c.restore(false)...)
				assertOriginal(t, c.scripts)
				c.otherTwoRestored(t)
			}
		}
		c := newSwapCase(t, windows)
		c.remove(t, filepath.Join(c.scripts, manifestName))
		writeFakeBinaries(t, c.h.bin, c.h.goos, "v2")
		c.refused(t, []string{c.target(), "not written by install-skill"}, c.replace(false)...)
		c.refused(t, []string{c.target(), "not written by install-skill"}, c.restore(false)...)
	})
}

// TestForceGoesWithSwaps: --force is part of both command lines now.
func TestForceGoesWithSwaps(t *testing.T) {
	for _, args := range [][]string{
		{"--replace-scripts", "a", "--force"},
		{"--restore", "a", "--force"},
		{"--replace-scripts", "a", "--bin", "b", "--force"},
	} {
		_, _, err := parseArgs(args)
		assert.NoError(t, err, "%q", args)
	}
}

// TestWindowsForeignExtensionlessFile: on Windows nothing of the
// installer's stays under the extensionless name, so a file there that is
// neither a script nor the installer's (beside the .bash-orig) would be
// deleted: refused, and --force deletes it and keeps the original.
func TestWindowsForeignExtensionlessFile(t *testing.T) {
	c := newSwapCase(t, true)
	c.write(t, c.s, userBinary)
	c.refused(t, []string{c.s + ": not written by install-skill", "--force deletes it (task-brief.bash-orig is kept)"}, c.replace(false)...)
	c.ok(t, c.replace(true)...)
	assertMissing(t, c.s)
	assertWindowsReplaced(t, c.scripts)

	c.write(t, c.s, userBinary)
	c.refused(t, []string{c.s + ": not written by install-skill", "--force puts task-brief.bash-orig back over it"}, c.restore(false)...)
	c.ok(t, c.restore(true)...)
	assertOriginal(t, c.scripts)
	c.otherTwoRestored(t)
}
