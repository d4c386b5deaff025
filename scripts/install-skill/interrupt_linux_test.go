package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// signalWhileTemporary sends sig to pid at a moment a temporary file of
// it exists in dir: it stops the process (SIGSTOP) as soon as one shows,
// and if one still exists once it is stopped, sends sig and lets it go
// on (SIGCONT), so sig is what it meets next. It reports false if the
// process ended first.
func signalWhileTemporary(t *testing.T, pid int, dir string, sig syscall.Signal) bool {
	t.Helper()
	for {
		if s := procState(pid); s == 0 || s == 'Z' {
			return false
		}
		if len(temporaries(t, dir)) == 0 {
			continue
		}
		require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
		for s := procState(pid); s != 'T' && s != 't'; s = procState(pid) {
			if s == 0 || s == 'Z' {
				return false
			}
		}
		if len(temporaries(t, dir)) > 0 {
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
// would make it fetch and build everything again), and finds no GOBIN of
// the machine's.
func installerEnv(t *testing.T, home string, more ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Len(t, vals, 3)
	env := append(os.Environ(), "HOME="+home, "GOCACHE="+vals[0], "GOMODCACHE="+vals[1], "GOPATH="+vals[2],
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

// TestInterruptLeavesNoTemporaries: Ctrl-C (SIGINT) reaching the installer
// while it writes a binary into the skill's bin/ ends it by SIGINT with no
// temporary file left anywhere in the folder; what it had placed is still
// its own, so the next install needs no --force and --uninstall then
// removes the folder whole.
func TestInterruptLeavesNoTemporaries(t *testing.T) {
	installer := builtInstaller(t)
	home, codexHome, bin, tmp := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	place := filepath.Join(codexHome, "skills", ship.SkillName)
	run := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command(installer, append([]string{"--host", "codex"}, args...)...)
		c.Dir = repoRoot(t)
		c.Env = installerEnv(t, home, "CODEX_HOME="+codexHome, "TMPDIR="+tmp)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		return c, &stderr
	}
	for try := 1; ; try++ {
		require.LessOrEqual(t, try, 20, "the installer was never caught with a temporary file in bin/")
		writeBigBinaries(t, bin, fmt.Sprint("v", try)) // new bytes: every run writes them
		c, stderr := run("--bin", bin)
		require.NoError(t, c.Start())
		caught := signalWhileTemporary(t, c.Process.Pid, filepath.Join(place, "bin"), syscall.SIGINT)
		err := c.Wait()
		if !caught {
			require.NoError(t, err, stderr.String())
			continue
		}
		t.Logf("caught at try %d", try)
		diedOf(t, c, syscall.SIGINT, stderr.String())
		assert.Empty(t, temporaries(t, place), "no temporary file is left")
		break
	}

	c, stderr := run("--bin", bin)
	require.NoError(t, c.Run(), stderr.String())
	c, stderr = run("--uninstall")
	require.NoError(t, c.Run(), stderr.String())
	assert.NoDirExists(t, place, stderr.String())
	assert.Empty(t, dirNames(t, tmp), "nothing in TMPDIR")
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
