// Package exit gives errors the process exit status they stand for, so that
// the status is decided where the failure is understood and mapped to a
// number in one place (Status).
package exit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// The statuses the commands document. Git's own status is handed on as is.
const (
	OK       = 0
	IO       = 1 // an output file or workspace could not be written
	Usage    = 2 // wrong arguments, missing plan, bad revision
	NotFound = 3 // task-brief: the task has no heading in the plan
)

// Error is a failure with the status the process should exit with. Msg is
// printed on stderr as it is, one line; an empty Msg prints nothing (the
// message was already printed, e.g. by git).
type Error struct {
	Code int
	Msg  string
	Err  error
	// Prefixed messages are this program's own wording and get the
	// program's name in front; the others are the bash scripts' exact
	// messages, printed as they are.
	Prefixed bool
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// ExitStatus implements Statuser.
func (e *Error) ExitStatus() int { return e.Code }

// Errorf returns an *Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Silent returns an *Error that prints nothing: whoever failed already said why.
func Silent(code int, err error) *Error { return &Error{Code: code, Err: err} }

// Statuser is any error that knows its exit status (git.Error does too).
type Statuser interface{ ExitStatus() int }

// Status maps err to the exit status of the process: 0 for nil, the
// status an error carries, else 1.
func Status(err error) int {
	if err == nil {
		return OK
	}
	var s Statuser
	if errors.As(err, &s) {
		return s.ExitStatus()
	}
	return IO
}

// File is a file system failure worded "<path>: <reason>", the path first so
// a reader sees at once which file is wrong.
func File(code int, err error) *Error {
	msg := err.Error()
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		msg = pe.Path + ": " + reason(pe.Err)
	case errors.As(err, &le):
		msg = le.New + ": " + reason(le.Err)
	}
	return &Error{Code: code, Msg: msg, Err: err, Prefixed: true}
}

// Path is a failure of the file the user knows as path, worded
// "<path>: <reason>" whatever internal path (a temporary file) the
// underlying error names.
func Path(code int, path string, err error) *Error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	return &Error{Code: code, Msg: path + ": " + reason(cause), Err: err, Prefixed: true}
}

func reason(err error) string {
	if errors.Is(err, fs.ErrExist) {
		return "file exists"
	}
	return err.Error()
}

// Signaled is why a command stops when a signal arrives: the cause of its
// cancelled context, so that git children get the same signal, and the
// status (128+N) a shell reports for death by signal N where the process
// cannot die of it (Windows).
type Signaled struct{ Signal os.Signal }

func (e *Signaled) Error() string { return "interrupted by " + e.Signal.String() }

// ExitStatus implements Statuser.
func (e *Signaled) ExitStatus() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + 9
}
