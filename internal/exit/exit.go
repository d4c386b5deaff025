// Package exit is where a failure becomes what the user reads and the
// status the process ends with. The status is decided where the failure is
// understood; the wording has four kinds, all made here:
//
//   - Errorf: a line the bash scripts print themselves ("no such plan
//     file: …", "bad BASE: …"), printed exactly as it is;
//   - Ownf: this program's own wording, after the command's name
//     ("task-brief: refusing to write …");
//   - File, FileOf: a file that failed, "<command>: <path>: <reason>",
//     the path being the one the user gave, or the one the error names;
//   - Silent: nothing, because whoever failed (git) already said why.
//
// cliapp prints Msg with the prefix Prefixed asks for and maps the error to
// the status with Status.
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

// Errorf is a line the bash scripts print, word for word.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Ownf is a line in this program's own words, printed after its name.
func Ownf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Prefixed: true}
}

// File is a failure of a file, worded "<path>: <reason>", the path first
// so a reader sees at once which file is wrong. path is the file as the
// user knows it (an OUTFILE, the plan; the empty string too), whatever
// internal path (a temporary file, the end of a symlink chain) err names.
func File(code int, path string, err error) *Error {
	_, cause := pathOf(err)
	return &Error{Code: code, Msg: path + ": " + reason(cause), Err: err, Prefixed: true}
}

// FileOf is File with the path err itself names, for a failure deep in a
// tree the user did not name (.superpowers/sdd/… while making a workspace).
func FileOf(code int, err error) *Error {
	path, cause := pathOf(err)
	msg := reason(cause)
	if path != "" {
		msg = path + ": " + msg
	}
	return &Error{Code: code, Msg: msg, Err: err, Prefixed: true}
}

// pathOf splits a file system error into the path it names and its cause.
func pathOf(err error) (path string, cause error) {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Path, pe.Err
	case errors.As(err, &le):
		return le.New, le.Err
	}
	return "", err
}

func reason(err error) string {
	if errors.Is(err, fs.ErrExist) {
		return "file exists"
	}
	return err.Error()
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
