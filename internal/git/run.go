package git

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/exit"
)

// Running one git process: its start, the pipe read on the calling
// goroutine, its stop when the context ends, and its errors.

// run runs git with args to completion, its stdout going to stdout (a file
// git writes to directly, or a writer fed through a pipe: then run returns
// how many bytes reached it), its stderr to stderr (nil: the runner's
// Stderr). When ctx ends, git is stopped with the signal that ended ctx
// (see exit.Signaled), so it can tidy up as it would have under the shell,
// and killed if it is still there killDelay later.
//
// The calling goroutine does all of it: it reads the pipe itself, with a
// blocking read on its own thread, and ctx is watched by a callback, not a
// goroutine. A goroutine made while git starts (os/exec's copier of a
// pipe, its watcher of a context) wakes or makes another thread, on every
// call, which on a short command is as dear as its own work.
func (r *Runner) run(ctx context.Context, stdout, stderr io.Writer, args []string) (int64, error) {
	return r.runWith(ctx, nil, stdout, stderr, args)
}

// runWith is run with git's standard input read from stdin (nil: the one
// git inherits, as from a shell).
func (r *Runner) runWith(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) (int64, error) {
	path, lerr := r.lookup()
	if lerr != nil {
		return 0, &Error{Args: args, Status: lerr.Status, Err: lerr.Err, Unstarted: lerr.Unstarted}
	}
	if ctx.Err() != nil {
		return 0, stopped(ctx, args)
	}
	// A literal, not exec.Command, which would look up a GODEBUG setting
	// on every run for a path that needs no lookup.
	cmd := &exec.Cmd{Path: path, Args: append([]string{"git"}, args...)} // argv[0] as the shell passes it
	if r.stdin != nil {
		cmd.Stdin = r.stdin
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	out := &recordingWriter{w: stdout}
	var pipe *os.File // the read end, when git writes into a pipe
	if f, ok := stdout.(*os.File); ok {
		cmd.Stdout = f
	} else {
		pr, pw, err := os.Pipe()
		if err != nil {
			return 0, &Error{Args: args, Status: exit.IO, Err: err}
		}
		defer pr.Close()
		pr.Fd() // blocking from now on: read on this thread, not the poller's
		cmd.Stdout, pipe = pw, pr
	}
	cmd.Stderr = stderr
	if stderr == nil {
		cmd.Stderr = r.stderr()
	}
	cmd.SysProcAttr = sysProcAttr()
	// The thread that starts git must outlive it (see sysProcAttr).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := cmd.Start()
	if pipe != nil {
		_ = cmd.Stdout.(*os.File).Close() // git holds the write end now
	}
	if err != nil {
		return 0, startError(path, args, err)
	}
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(killDelay, func() { _ = cmd.Process.Kill() })
		_ = cmd.Process.Signal(stopSignal(ctx))
	})
	defer stop()
	afterStart()
	var readErr error
	if pipe != nil {
		readErr = copyOut(out, pipe)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out.n, stopped(ctx, args)
	case out.err != nil:
		// Nowhere to put its output: the pipe was closed, and git stopped.
		return out.n, &WriteError{Err: out.err}
	case errors.As(err, &ee):
		ws, _ := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			return out.n, &Error{Args: args, Status: 128 + int(ws.Signal()), Signal: ws.Signal(), Err: err}
		}
		return out.n, &Error{Args: args, Status: ws.ExitStatus(), Err: err}
	case err != nil:
		return out.n, &Error{Args: args, Status: exit.IO, Err: err}
	case readErr != nil:
		return out.n, &Error{Args: args, Status: exit.IO, Err: readErr}
	}
	return out.n, nil
}

// copyOut copies what git writes into pipe to out until git closes it, or
// until out fails: the pipe is then closed, so that git stops at its next
// write (SIGPIPE), as with nobody left to read. It returns a failure to
// read the pipe; out keeps its own. The reads start small and grow with a
// long output: most calls print a line, and io.Copy's 32 KiB buffer, new
// memory, costs such a call more than its read.
func copyOut(out *recordingWriter, pipe *os.File) error {
	buf := make([]byte, 512)
	var err error
	for {
		n, rerr := pipe.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				break
			}
			if n == len(buf) && len(buf) < maxRead {
				buf = make([]byte, min(4*len(buf), maxRead))
			}
		}
		if rerr != nil {
			if rerr != io.EOF {
				err = rerr
			}
			break
		}
	}
	_ = pipe.Close()
	return err
}

// maxRead is the most copyOut reads at once: a pipe's default capacity.
const maxRead = 64 << 10

// afterStart runs between git's start and the wait for it. A test makes
// the goroutine give up its thread there, as it may at any time (a garbage
// collection, a system call's return), to check that the thread that
// started git is kept from every other goroutine all the same.
var afterStart = func() {}

// stopped is the failure of a git stopped on purpose: by a signal (the
// status a shell reports for it), or because the command is ending.
func stopped(ctx context.Context, args []string) error {
	status := exit.IO
	var s *exit.Signaled
	if errors.As(context.Cause(ctx), &s) {
		status = s.ExitStatus()
	}
	return &Error{Args: args, Status: status, Err: context.Cause(ctx)}
}

// recordingWriter counts what it passes on and keeps the first error, which
// exec drops when git then dies of the closed pipe.
type recordingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *recordingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// stopSignal is the signal that stops a git child once ctx has ended.
func stopSignal(ctx context.Context) os.Signal {
	var s *exit.Signaled
	if errors.As(context.Cause(ctx), &s) {
		return s.Signal
	}
	return os.Kill
}

// startError maps a failure to start git as a shell would report it.
func startError(path string, args []string, err error) error {
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
	return &Error{Args: args, Status: status, Err: err, Unstarted: path + ": " + reason}
}
