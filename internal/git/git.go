// Package git runs the system git binary for the three commands.
//
// There is exactly one way to run git here, so every caller gets the same
// guarantees: no shell in between, the caller's environment and working
// directory untouched (git must see the user's config exactly as the bash
// scripts let it), stderr passed straight through unless the caller asks for
// it, a git that cannot start reported as a shell reports it, and a failure
// reported as one error type that carries the exit status to hand on.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/exit"
)

// The statuses a shell gives a command it cannot run; the bash scripts exit
// with them when git cannot be started.
const (
	NotFoundStatus       = 127 // not on PATH, or its #! interpreter is missing
	NotExecutableStatus  = 126 // found, but the kernel refuses to run it
	notFoundMessage      = "git: command not found (git must be on PATH)"
	interruptedKillDelay = time.Second
)

// Error is a git run that did not succeed: git could not be started, exited
// non-zero, or was killed.
type Error struct {
	Args   []string
	Status int // exit status to hand on: git's own, 127/126, or 128+N when killed by signal N
	Err    error
	// Unstarted says why git could not be started ("" when it ran). Git
	// speaks for itself when it runs; when it cannot, this is the message.
	Unstarted string
}

func (e *Error) Error() string {
	if e.Unstarted != "" {
		return e.Unstarted
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
	lookErr  *Error
}

// New returns a Runner whose git diagnostics go to stderr.
func New(stderr io.Writer) *Runner { return &Runner{Stderr: stderr} }

// gitPath looks git up on PATH once per process; every later call reuses it.
func (r *Runner) gitPath() (string, *Error) {
	r.lookOnce.Do(func() {
		path, err := exec.LookPath("git")
		switch {
		case err == nil:
			r.path = path
		case errors.Is(err, exec.ErrDot):
			// A git.exe in the current directory is not the system git.
			r.lookErr = &Error{Status: NotFoundStatus, Err: err, Unstarted: notFoundMessage}
		default:
			// A shell that finds only a git it may not execute runs it all
			// the same and reports the refusal: 126, not "not found".
			if p := nonExecutable("git"); p != "" {
				r.lookErr = &Error{Status: NotExecutableStatus, Err: fs.ErrPermission, Unstarted: p + ": permission denied"}
			} else {
				r.lookErr = &Error{Status: NotFoundStatus, Err: err, Unstarted: notFoundMessage}
			}
		}
	})
	return r.path, r.lookErr
}

// nonExecutable returns the first regular file named name on PATH that
// exec.LookPath passed over (not executable), or "".
func nonExecutable(name string) string {
	if runtime.GOOS == "windows" {
		return "" // an .exe is runnable whatever its bits
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // the current directory is never searched for git
		}
		p := dir + "/" + name
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// command prepares git with args. When ctx ends, git is stopped: with the
// signal that ended ctx (see exit.Signaled), so git can tidy up as it
// would have under the shell, else killed; one that outlives
// interruptedKillDelay is killed.
func (r *Runner) command(ctx context.Context, args []string) (*exec.Cmd, *Error) {
	path, err := r.gitPath()
	if err != nil {
		return nil, &Error{Args: args, Status: err.Status, Err: err.Err, Unstarted: err.Unstarted}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(stopSignal(ctx)) }
	cmd.WaitDelay = interruptedKillDelay
	return cmd, nil
}

// stopSignal is the signal that stops a git child once ctx has ended.
func stopSignal(ctx context.Context) os.Signal {
	var s *exit.Signaled
	if errors.As(context.Cause(ctx), &s) {
		return s.Signal
	}
	return os.Kill
}

// start starts cmd, mapping a failure to start as a shell would report it.
func start(cmd *exec.Cmd, args []string) error {
	err := cmd.Start()
	if err == nil {
		return nil
	}
	status, reason := NotExecutableStatus, "cannot execute: "+err.Error()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The file is there (LookPath found it): what is missing is the
		// interpreter its #! line names.
		status, reason = NotFoundStatus, "cannot execute: required file not found"
	case errors.Is(err, fs.ErrPermission):
		reason = "permission denied"
	case errors.Is(err, syscall.ENOEXEC):
		reason = "cannot execute binary file: exec format error"
	}
	return &Error{Args: args, Status: status, Err: err, Unstarted: cmd.Path + ": " + reason}
}

// finish maps the end of a started run to an *Error (nil on success).
func finish(ctx context.Context, args []string, err error) error {
	if err == nil {
		return nil
	}
	var s *exit.Signaled
	if errors.As(context.Cause(ctx), &s) {
		return &Error{Args: args, Status: s.ExitStatus(), Err: context.Cause(ctx)}
	}
	return &Error{Args: args, Status: exitStatus(err), Err: err}
}

// Output runs git with args and returns its stdout. Git's stderr goes to the
// runner's Stderr.
func (r *Runner) Output(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	err := r.run(ctx, &out, r.Stderr, args)
	return out.Bytes(), err
}

func (r *Runner) run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	cmd, gerr := r.command(ctx, args)
	if gerr != nil {
		return gerr
	}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if err := start(cmd, args); err != nil {
		return err
	}
	return finish(ctx, args, cmd.Wait())
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
	cmd, gerr := r.command(ctx, args)
	if gerr != nil {
		return 0, gerr
	}
	cmd.Stderr = r.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, &Error{Args: args, Status: exit.IO, Err: err}
	}
	if err := start(cmd, args); err != nil {
		return 0, err
	}
	// On interruption git is stopped (command), but a process git started
	// (a textconv or external diff driver) may still hold the pipe open:
	// closing our end stops the copy at once all the same.
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
	if copyErr != nil && ctx.Err() == nil {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return n, finish(ctx, args, ctx.Err())
	case copyErr != nil:
		return n, &WriteError{Err: copyErr}
	}
	return n, finish(ctx, args, waitErr)
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
	return exit.IO
}

// TrimCommandSubstitution drops every trailing newline, as the shell's $(…)
// does to what git prints.
func TrimCommandSubstitution(b []byte) string {
	return string(bytes.TrimRight(b, "\n"))
}
