// Package git runs the system git binary for the three commands.
//
// There is exactly one way to run git here, so every caller gets the same
// guarantees: no shell in between, the caller's environment and working
// directory untouched (git must see the user's config exactly as the bash
// scripts let it), stderr passed straight through unless the caller asks for
// it, and a failure reported as one error type that carries git's own exit
// status, because the commands hand that status on to their caller.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// NotFoundStatus is the exit status a shell uses for a missing command; the
// bash scripts exit with it when git is not on PATH.
const NotFoundStatus = 127

// Error is a git run that did not succeed: git could not be started, exited
// non-zero, or was killed.
type Error struct {
	Args     []string
	Status   int    // exit status to hand on: git's own, 127 when missing, 128+signal when killed
	Stderr   string // what git printed on stderr, when the caller captured it
	NotFound bool   // git is not on PATH
	Err      error
}

func (e *Error) Error() string {
	if e.NotFound {
		return "git: command not found (git must be on PATH)"
	}
	return fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitStatus is the status a command hands on for this failure.
func (e *Error) ExitStatus() int { return e.Status }

// Runner starts git processes. The zero value is not usable; use New.
type Runner struct {
	// Stderr receives git's diagnostics when a call does not capture them.
	Stderr io.Writer

	lookOnce sync.Once
	path     string
	lookErr  error
}

// New returns a Runner whose git diagnostics go to stderr.
func New(stderr io.Writer) *Runner { return &Runner{Stderr: stderr} }

// gitPath looks git up on PATH once per process; every later call reuses it.
func (r *Runner) gitPath() (string, error) {
	r.lookOnce.Do(func() {
		r.path, r.lookErr = exec.LookPath("git")
		if r.lookErr != nil && errors.Is(r.lookErr, exec.ErrDot) {
			// A git.exe in the current directory is not the system git.
			r.path, r.lookErr = "", exec.ErrNotFound
		}
	})
	return r.path, r.lookErr
}

// Output runs git with args and returns its stdout. Git's stderr goes to the
// runner's Stderr.
func (r *Runner) Output(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := r.Run(ctx, &out, args...)
	return out.Bytes(), err
}

// Quiet runs git with args, discarding stdout and capturing stderr into the
// returned error rather than printing it.
func (r *Runner) Quiet(ctx context.Context, args ...string) error {
	var errBuf bytes.Buffer
	err := r.run(ctx, io.Discard, &errBuf, args)
	var gerr *Error
	if errors.As(err, &gerr) {
		gerr.Stderr = errBuf.String()
	}
	return err
}

// Run runs git with args, streaming its stdout into stdout. When stdout is
// an *os.File, git writes to it directly, with no copy through this process.
func (r *Runner) Run(ctx context.Context, stdout io.Writer, args ...string) error {
	return r.run(ctx, stdout, r.Stderr, args)
}

func (r *Runner) run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	path, err := r.gitPath()
	if err != nil {
		return &Error{Args: args, Status: NotFoundStatus, NotFound: true, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = nil
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Kill) }
	if err := cmd.Run(); err != nil {
		return &Error{Args: args, Status: exitStatus(err), Err: err}
	}
	return nil
}

// Pending is a git run started ahead of time with its output captured, so
// that a command can overlap the short git calls it will need and still
// show their output in the order the script would have run them.
type Pending struct {
	done           chan struct{}
	stdout, stderr bytes.Buffer
	err            error
}

// Start runs git with args in the background, capturing stdout and stderr.
func (r *Runner) Start(ctx context.Context, args ...string) *Pending {
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = r.run(ctx, &p.stdout, &p.stderr, args)
	}()
	return p
}

// Result waits for the run, replays its stderr to the runner's Stderr (as
// if it had run just now) and returns its stdout.
func (p *Pending) Result(r *Runner) ([]byte, error) {
	<-p.done
	_, _ = r.Stderr.Write(p.stderr.Bytes())
	return p.stdout.Bytes(), p.err
}

// WriteError is a failure to write git's output where the caller wanted it
// (a full disk, a closed pipe): the caller's fault domain, not git's.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Stream runs git with args and copies its stdout into w through a pipe,
// returning how many bytes reached w. Copying through this process (rather
// than handing git the file) keeps a failure to write — a full disk, a file
// size limit — ours to report as a *WriteError naming our file; on Linux the
// copy into an *os.File is done by the kernel (splice), so it costs little.
// When the write fails, git is killed.
func (r *Runner) Stream(ctx context.Context, w io.Writer, args ...string) (int64, error) {
	path, err := r.gitPath()
	if err != nil {
		return 0, &Error{Args: args, Status: NotFoundStatus, NotFound: true, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stderr = r.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Kill) }
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, &Error{Args: args, Status: 1, Err: err}
	}
	if err := cmd.Start(); err != nil {
		return 0, &Error{Args: args, Status: 126, Err: err}
	}
	// On interruption git is killed (CommandContext), but a process git
	// started (a textconv or external diff driver) may still hold the pipe
	// open: closing our end stops the copy at once all the same.
	copied := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = pipe.Close()
		case <-copied:
		}
	}()
	n, copyErr := io.Copy(w, pipe)
	close(copied)
	if copyErr != nil {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return n, &Error{Args: args, Status: 128 + 15, Err: ctx.Err()}
	}
	if copyErr != nil {
		return n, &WriteError{Err: copyErr}
	}
	if waitErr != nil {
		return n, &Error{Args: args, Status: exitStatus(waitErr), Err: waitErr}
	}
	return n, nil
}

// exitStatus maps a failed run to the status a shell would report for it.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		if code := ee.ExitCode(); code >= 0 {
			return code
		}
	}
	return 1
}

// TrimCommandSubstitution drops every trailing newline, as the shell's $(…)
// does to what git prints.
func TrimCommandSubstitution(b []byte) string {
	return string(bytes.TrimRight(b, "\n"))
}
