package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// These tests signal a real installer process (built from this package)
// as a terminal or a service manager would. Linux's /proc tells when the
// process is stopped; the installer's behaviour is the same on every Unix.

// builtInstaller returns the path of the installer, built from this
// package.
func builtInstaller(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(builtDir(t), ship.BinaryName("install-skill", runtime.GOOS))
	built.installer.once.Do(func() {
		out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput()
		if err != nil {
			built.installer.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, built.installer.err)
	return exe
}

// temporaries lists the temporary files under dir, by this installer's
// naming or the previous one's.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // not made yet, or gone between the listing and here
			}
			return err
		}
		if n := d.Name(); strings.HasPrefix(n, ".") && (strings.Contains(n, tempMark) || strings.Contains(n, ".tmp-")) {
			out = append(out, p)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// procState is the state letter of pid in /proc (R, S, T, Z, …), 0 once
// it is gone.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// writing reports whether dir holds a temporary file for name.
func writing(dir, name string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "."+name+tempMark) {
			return true
		}
	}
	return false
}

// signalWhileTemporary sends sig to pid at a moment it writes name in dir
// (a temporary file for it exists): it stops the process (SIGSTOP) as
// soon as one shows, and if one still exists once it is stopped, sends
// sig and lets it go on (SIGCONT), so sig is what it meets next. It
// reports false if the process ended first.
func signalWhileTemporary(t *testing.T, pid int, dir, name string, sig syscall.Signal) bool {
	t.Helper()
	for {
		if s := procState(pid); s == 0 || s == 'Z' {
			return false
		}
		if !writing(dir, name) {
			continue
		}
		require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
		for s := procState(pid); s != 'T' && s != 't'; s = procState(pid) {
			if s == 0 || s == 'Z' {
				return false
			}
		}
		if writing(dir, name) {
			require.NoError(t, syscall.Kill(pid, sig))
			require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
			return true
		}
		require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	}
}

// writeBigBinaries writes stand-in binaries of 8 MB each (the real ones
// are about 4 MB), so a write takes long enough to be caught at.
func writeBigBinaries(t *testing.T, dir, version string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, name := range ship.Commands {
		b := bytes.Repeat([]byte(fakeBinary(name, version)+"\n"), 8<<20/40)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o755))
	}
}

// installerEnv is the environment of an installer process with home as
// its HOME: the go tool it runs keeps the test's caches (a HOME of its own
// would make it fetch and build everything again) and configuration (its
// telemetry, written by a process that may outlive it, stays out of the
// test's folders), and finds no GOBIN of the machine's.
func installerEnv(t *testing.T, home string, more ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Len(t, vals, 3)
	config, err := os.UserConfigDir()
	require.NoError(t, err)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+config, "GOCACHE="+vals[0], "GOMODCACHE="+vals[1], "GOPATH="+vals[2],
		"GOBIN="+filepath.Join(t.TempDir(), "gobin"))
	return append(env, more...)
}

// diedOf checks that c's process ended by sig.
func diedOf(t *testing.T, c *exec.Cmd, sig syscall.Signal, stderr string) {
	t.Helper()
	ws, ok := c.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled() && ws.Signal() == sig, "ended by %v, not %v: %s", c.ProcessState, sig, stderr)
}

// copyTree copies the files and folders under from to to, modes kept.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), fi.Mode().Perm())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, fi.Mode().Perm())
	}))
}

// TestInterruptLeavesNoTemporaries: Ctrl-C (SIGINT) reaching the installer
// while a first install writes the first binary into the skill's bin/
// ends it by SIGINT with no temporary file left anywhere in the folder.
// What it had placed is still its own: the next install completes it
// without --force, or --uninstall removes the folder whole (bin/ too,
// which the run made and left empty).
func TestInterruptLeavesNoTemporaries(t *testing.T) {
	installer := builtInstaller(t)
	home, bin, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	writeBigBinaries(t, bin, "v1")
	run := func(codexHome string, args ...string) (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command(installer, append([]string{"--host", "codex"}, args...)...)
		c.Dir = repoRoot(t)
		c.Env = installerEnv(t, home, "CODEX_HOME="+codexHome, "TMPDIR="+tmp)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		return c, &stderr
	}
	var interrupted string // a CODEX_HOME holding the interrupted install
	for try := 1; interrupted == ""; try++ {
		require.LessOrEqual(t, try, 20, "the installer was never caught writing bin/review-package")
		codexHome := t.TempDir()
		c, stderr := run(codexHome, "--bin", bin)
		require.NoError(t, c.Start())
		caught := signalWhileTemporary(t, c.Process.Pid, filepath.Join(codexHome, "skills", ship.SkillName, "bin"), "review-package", syscall.SIGINT)
		err := c.Wait()
		if !caught {
			require.NoError(t, err, stderr.String())
			continue
		}
		t.Logf("caught at try %d", try)
		diedOf(t, c, syscall.SIGINT, stderr.String())
		assert.Empty(t, temporaries(t, codexHome), "no temporary file is left")
		interrupted = codexHome
	}
	place := func(codexHome string) string { return filepath.Join(codexHome, "skills", ship.SkillName) }
	other := t.TempDir()
	copyTree(t, interrupted, other)

	c, stderr := run(interrupted, "--bin", bin)
	require.NoError(t, c.Run(), stderr.String())
	assert.Equal(t, wantSkillFolder(t, bin, runtime.GOOS), withoutManifest(readTree(t, place(interrupted))))

	c, stderr = run(other, "--uninstall")
	require.NoError(t, c.Run(), stderr.String())
	assert.NoDirExists(t, place(other), stderr.String())
	assert.Empty(t, dirNames(t, tmp), "nothing in TMPDIR")
}

func withoutManifest(tree map[string]string) map[string]string {
	delete(tree, manifestName)
	return tree
}

// TestTerminateDuringBuildLeavesNoTemporaries: SIGTERM to the installer
// alone while it builds the binaries into its temporary folder: the build
// (which did not get the signal) is let end, the folder is removed, the
// installer ends by SIGTERM, and nothing was installed.
func TestTerminateDuringBuildLeavesNoTemporaries(t *testing.T) {
	installer := builtInstaller(t)
	home, tmp := t.TempDir(), t.TempDir()
	c := exec.Command(installer)
	c.Dir = repoRoot(t)
	c.Env = installerEnv(t, home, "TMPDIR="+tmp)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	require.NoError(t, c.Start())
	deadline := time.Now().Add(time.Minute)
	for {
		building := false
		for _, n := range dirNames(t, tmp) {
			building = building || strings.HasPrefix(n, "sdd-go-install-")
		}
		if building {
			break
		}
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			_ = c.Wait()
			t.Fatalf("no build folder appeared: %s", stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, c.Process.Signal(syscall.SIGTERM))
	_ = c.Wait()
	diedOf(t, c, syscall.SIGTERM, stderr.String())
	assert.Empty(t, dirNames(t, tmp), "the build's folder is gone, and go's own")
	assertMissing(t, filepath.Join(home, ".claude"), "nothing was installed")
}
