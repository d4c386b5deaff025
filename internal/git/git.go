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
