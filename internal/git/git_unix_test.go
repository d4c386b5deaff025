//go:build !windows

package git_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

// A git that cannot be started is reported as a shell reports it: 127 for
// nothing to run, 126 for a file the kernel refuses, and words naming it
// (docs/spec.md every-git-start).
func TestGitThatCannotStart(t *testing.T) {
	inRepo(t)
	for _, tc := range []struct {
		name    string
		content string
		mode    os.FileMode
		status  int
		reason  string // after "<path>: "; "" when no path is named
		message string // the whole message, when no path is named
	}{
		{name: "not on PATH", status: 127, message: "git: command not found (git must be on PATH)"},
		{"not executable", "#!/bin/sh\n", 0o644, 126, "permission denied", ""},
		{"interpreter missing", "#!/nonexistent/sh\n", 0o755, 127, "cannot execute: required file not found", ""},
		{"not a program", "\x00\x01\x02\x03 not an executable format", 0o755, 126, "cannot execute binary file: exec format error", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(tc.content), tc.mode))
			}
			t.Setenv("PATH", dir)
			_, err := git.New(os.Stderr).Output(context.Background(), "rev-parse", "HEAD")
			var ge *git.Error
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, tc.status, ge.Status)
			want := tc.message
			if want == "" {
				want = filepath.Join(dir, "git") + ": " + tc.reason
			}
			assert.Equal(t, want, ge.Unstarted)
			assert.Equal(t, want, ge.Error())
		})
	}
}

// A git in a relative PATH entry is not the system git: it is passed over
// for the one in an absolute entry.
func TestGitInARelativePathEntryIsPassedOver(t *testing.T) {
	r := inRepo(t)
	head := r.Git("rev-parse", "HEAD")
	require.NoError(t, os.WriteFile("git", []byte("#!/bin/sh\necho impostor\n"), 0o755))
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	t.Setenv("PATH", "."+string(os.PathListSeparator)+filepath.Dir(real))
	out, err := git.New(os.Stderr).Output(context.Background(), "rev-parse", "HEAD")
	require.NoError(t, err)
	assert.Equal(t, head+"\n", string(out))
}

// With PATH unset (not empty), git is looked up where bash looks then, and
// started without PATH, as bash starts it: its own helpers (an alias here)
// see the PATH they see under bash. PATH set but empty finds no git.
func TestGitWithoutPATH(t *testing.T) {
	inRepo(t)
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	alias := `alias.seen=!printf '%s' "${PATH-unset}"`
	cmd := exec.Command("/usr/bin/env", "-u", "PATH", bash, "-c", `git -c "$0" seen`, alias)
	want, err := cmd.Output()
	if err != nil {
		t.Skipf("bash finds no git without PATH here: %v", err)
	}
	t.Setenv("PATH", "")
	require.NoError(t, os.Unsetenv("PATH"))
	out, err := git.New(os.Stderr).Output(context.Background(), "-c", alias, "seen")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(out))

	t.Setenv("PATH", "")
	_, err = git.New(os.Stderr).Output(context.Background(), "rev-parse", "HEAD")
	var ge *git.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 127, ge.Status)
}

// A git killed by signal N hands on 128+N, as a shell reports it; killed
// by SIGXFSZ it wrote past the file size limit, which is the output's
// failure.
func TestGitKilledBySignal(t *testing.T) {
	inRepo(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGXFSZ} {
		var stderr bytes.Buffer
		_, err := git.New(&stderr).Output(context.Background(), "-c", "alias.die=!kill -"+sigName(sig)+" $PPID", "die")
		var ge *git.Error
		require.ErrorAs(t, err, &ge, stderr.String())
		assert.Equal(t, 128+int(sig), ge.Status, sig)
		assert.Equal(t, sig, ge.Signal)
		assert.Equal(t, sig == syscall.SIGXFSZ, ge.FileTooLarge(), sig)
		assert.Equal(t, 128+int(sig), exit.Status(err), sig)
	}
}

func sigName(s syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGKILL: "KILL", syscall.SIGXFSZ: "XFSZ"}[s]
}

// A command stopped by a signal stops git with that signal at once (not
// by a kill after the delay), so that git can stop what it runs in turn
// (here a shell alias, which records the signal), and hands on the status
// a shell reports for it.
func TestSignalStopsGit(t *testing.T) {
	inRepo(t)
	dir := t.TempDir()
	started, got := filepath.Join(dir, "started"), filepath.Join(dir, "got")
	alias := "alias.nap=!trap 'echo TERM > " + got + "; kill $!; exit 1' TERM; : > " + started + "; sleep 5 >/dev/null 2>&1 & wait"
	ctx, stop := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := git.New(os.Stderr).Output(ctx, "-c", alias, "nap")
		done <- err
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	begin := time.Now()
	stop(&exit.Signaled{Signal: syscall.SIGTERM})
	err := <-done
	assert.Less(t, time.Since(begin), 900*time.Millisecond, "stopped by the signal, not killed after the delay")
	var ge *git.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 128+int(syscall.SIGTERM), ge.Status)
	b, _ := os.ReadFile(got)
	assert.Equal(t, "TERM\n", string(b), "git passed SIGTERM on to its alias")

	// Already stopped: git is not started at all.
	_, err = git.New(os.Stderr).Output(ctx, "-c", "alias.touch=!: > "+started+"2", "touch")
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 128+int(syscall.SIGTERM), ge.Status)
	assert.NoFileExists(t, started+"2")
}

// Stream always goes through a pipe, even to an *os.File: a device that
// fails the write is our failure to report, not git's.
func TestStreamToAFullDevice(t *testing.T) {
	inRepo(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	_, err = git.New(os.Stderr).Stream(context.Background(), full, "log")
	var we *git.WriteError
	require.ErrorAs(t, err, &we)
	assert.ErrorIs(t, err, syscall.ENOSPC)
}
