// Package git runs the system git binary for the three commands.
//
// There is exactly one way to run git here, so every caller gets the same
// guarantees: no shell in between, the caller's environment, working
// directory and standard input untouched (git must see the user's config
// exactly as the bash scripts let it), stderr passed straight through, a
// git that cannot start reported as a shell reports it, a failure reported
// as one error type that carries the exit status to hand on, and no git
// outliving the command.
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
	NotFoundStatus      = 127 // not on PATH, or its #! interpreter is missing
	NotExecutableStatus = 126 // found, but the kernel refuses to run it
)

const notFoundMessage = "git: command not found (git must be on PATH)"

// killDelay is how long a git that was asked to stop may take before it is
// killed.
const killDelay = time.Second

// Error is a git run that did not succeed: git could not be started, exited
// non-zero, or was killed.
type Error struct {
	Args   []string
	Status int // exit status to hand on: git's own, 127/126, or 128+N when killed by signal N
	Err    error
	// Unstarted says why git could not be started ("" when it ran). Git
	// speaks for itself when it runs; when it cannot, this is the message.
	Unstarted string
	// Signal is the signal that killed git, 0 when it exited.
	Signal syscall.Signal
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

// FileTooLarge reports that git was killed for writing past the file size
// limit: a failure to write the output file git was handed, not git's own.
func (e *Error) FileTooLarge() bool { return e.Signal == fileSizeSignal }

// Runner starts git processes. The zero value is not usable; use New.
type Runner struct {
	// Stderr receives git's diagnostics.
	Stderr io.Writer

	lookOnce sync.Once
	path     string
	lookErr  *Error
	stdin    *os.File
	stderrMu sync.Mutex
}

// New returns a Runner whose git diagnostics go to stderr.
func New(stderr io.Writer) *Runner { return &Runner{Stderr: stderr} }

// stderr is where a run's diagnostics go by default: the runner's Stderr,
// handed to git as is when it is a file, else through a lock, since runs
// started side by side (Start) write to it each from a goroutine of its
// own.
func (r *Runner) stderr() io.Writer {
	if f, ok := r.Stderr.(*os.File); ok {
		return f
	}
	return &lockedWriter{mu: &r.stderrMu, w: r.Stderr}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lookup finds git on PATH (bash's default path when PATH is unset) once
// per process, and the standard input git inherits (none when this process
// has none open).
func (r *Runner) lookup() (string, *Error) {
	r.lookOnce.Do(func() {
		if _, err := os.Stdin.Stat(); err == nil {
			r.stdin = os.Stdin
		}
		dirs, set := searchPath()
		var path string
		var err error
		if set {
			path, err = exec.LookPath("git")
		}
		if !set || errors.Is(err, exec.ErrDot) {
			// A git in a relative PATH entry (".", "") is not the system
			// git (on Windows, any git.exe in the current directory would
			// be run): look on in the absolute entries.
			path, err = lookAbsolute(dirs, "git")
		}
		switch {
		case err == nil:
			r.path = path
		default:
			// A shell that finds only a git it may not execute runs it all
			// the same and reports the refusal: 126, not "not found".
			if p := nonExecutable(dirs, "git"); p != "" {
				r.lookErr = &Error{Status: NotExecutableStatus, Err: fs.ErrPermission, Unstarted: p + ": permission denied"}
			} else {
				r.lookErr = &Error{Status: NotFoundStatus, Err: err, Unstarted: notFoundMessage}
			}
		}
	})
	return r.path, r.lookErr
}

// bashDefaultPath is the search path bash uses when PATH is unset (not
// empty): DEFAULT_PATH_VALUE of bash's config-top.h, which Debian's bash
// 5.2 keeps (`env -u PATH bash -c 'echo $PATH'` prints it). The script
// finds git there (env(1) in its #! line finds bash in libc's own default),
// so the commands do too. Bash keeps that value as a shell variable and
// does not export it: git starts without PATH under the script, and so it
// does here (the environment is passed on untouched), and then gives its
// own helpers its own default. The "." at its end is never searched for
// git (every-git).
const bashDefaultPath = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."

// searchPath is the list git is looked up in, and whether it is PATH
// itself: PATH when set (empty too), bash's default when unset. Windows
// has no bash to follow: PATH, as always.
func searchPath() (string, bool) {
	dirs, set := os.LookupEnv("PATH")
	if !set && runtime.GOOS != "windows" {
		return bashDefaultPath, false
	}
	return dirs, true
}

// lookAbsolute is exec.LookPath over the absolute entries of dirs only.
func lookAbsolute(dirs, name string) (string, error) {
	for _, dir := range filepath.SplitList(dirs) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p, err := exec.LookPath(dir + string(filepath.Separator) + name); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// nonExecutable returns the first regular file named name in dirs that
// exec.LookPath passed over (not executable), or "".
func nonExecutable(dirs, name string) string {
	if runtime.GOOS == "windows" {
		return "" // an .exe is runnable whatever its bits
	}
	for _, dir := range filepath.SplitList(dirs) {
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

// Output runs git with args and returns its stdout. Git's stderr goes to the
// runner's Stderr.
func (r *Runner) Output(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	_, err := r.run(ctx, &out, nil, args)
	return out.Bytes(), err
}

// Filter runs git with args, its standard input read from stdin and its
// stdout copied into w through a pipe (w sees the output as it comes, so
// a long one is never held in memory). Git's stderr goes to the runner's
// Stderr.
func (r *Runner) Filter(ctx context.Context, stdin io.Reader, w io.Writer, args ...string) error {
	_, err := r.runWith(ctx, stdin, struct{ io.Writer }{w}, nil, args)
	return err
}

// ToFile runs git with args, git writing its stdout straight into f (no
// pipe, no copy). Git's stderr goes to the runner's Stderr.
func (r *Runner) ToFile(ctx context.Context, f *os.File, args ...string) error {
	_, err := r.run(ctx, f, nil, args)
	return err
}

// WriteError is a failure to write git's output where the caller wanted it
// (a full disk, a closed pipe): the caller's fault domain, not git's.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Stream runs git with args and copies its stdout into w through a pipe,
// returning how many bytes reached w. It is for outputs git cannot be
// handed (a FIFO, a device): a failure to write them is ours to report,
// as a *WriteError, and git is stopped.
func (r *Runner) Stream(ctx context.Context, w io.Writer, args ...string) (int64, error) {
	return r.run(ctx, struct{ io.Writer }{w}, nil, args) // not an *os.File, even if w is: a pipe
}

// Started is a git run under way (Runner.Start).
type Started struct {
	done chan struct{}
	n    int64
	err  error
}

// Start runs git with args in the background and returns at once: for
// calls that may run side by side. Its stdout goes to stdout as in Stream
// (an *os.File git writes itself, any other writer through a pipe), its
// stderr to stderr (nil: the runner's Stderr). Each run holds an OS thread
// of its own until git is reaped (see sysProcAttr).
func (r *Runner) Start(ctx context.Context, stdout, stderr io.Writer, args ...string) *Started {
	s := &Started{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.n, s.err = r.run(ctx, stdout, stderr, args)
	}()
	return s
}

// Done is closed when the run has ended.
func (s *Started) Done() <-chan struct{} { return s.done }

// Wait waits for the run to end and returns what run returns: the bytes
// that went through a pipe to stdout, and its failure as a *Error or a
// *WriteError.
func (s *Started) Wait() (int64, error) {
	<-s.done
	return s.n, s.err
}

// TrimCommandSubstitution drops every trailing newline, as the shell's $(…)
// does to what git prints.
func TrimCommandSubstitution(b []byte) string {
	return string(bytes.TrimRight(b, "\n"))
}
