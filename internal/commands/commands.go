// Package commands holds the three drop-ins' behaviour: sdd-workspace,
// task-brief and review-package, each a cliapp.Command whose Run does the
// work of one bash script, and what internal/sddledger's verbs share with
// them (the plan check, the output, the brief and the package); the mains
// under cmd/ only hand them to cliapp.Main.
package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/exit"
)

// CheckPlan applies the scripts' `[ -f "$plan" ]`: a regular file after
// following symlinks. The empty string, a directory, a FIFO and a missing
// path all fail.
func CheckPlan(plan string) error {
	if fi, err := os.Stat(plan); err != nil || !fi.Mode().IsRegular() {
		return exit.Errorf(exit.Usage, "no such plan file: %s", plan)
	}
	return nil
}

// InWorkspace is the default output path: name inside dir, joined as the
// scripts join it ("$dir/name"), with the OS separator.
func InWorkspace(dir, name string) string {
	return dir + string(filepath.Separator) + name
}

// OpenOutput prepares out for writing, an I/O failure (exit 1) naming out
// as a failed redirection names its target; but first it refuses an out
// that is the plan itself (exit 2), which the scripts would destroy.
func OpenOutput(out, plan string) (*atomicfile.File, error) {
	if atomicfile.SameFile(out, plan) {
		return nil, exit.Ownf(exit.Usage, "refusing to write %s: it is the plan file %s", out, plan)
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return nil, exit.File(exit.IO, out, err)
	}
	return f, nil
}

// commit publishes f, written as out, an I/O failure naming out.
func Commit(f *atomicfile.File, out string) error {
	if err := f.Commit(); err != nil {
		return exit.File(exit.IO, out, err)
	}
	return nil
}

// contextReader stops a long read when the command is interrupted.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// readError and writeError tell which side of a copy failed, since the
// exit status differs (the plan: 2; the output: 1).
type readError struct{ error }
type writeError struct{ error }

func (e readError) Unwrap() error  { return e.error }
func (e writeError) Unwrap() error { return e.error }

type taggedReader struct{ r io.Reader }

func (t taggedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		err = readError{err}
	}
	return n, err
}

// TaggedWriter marks w's errors as the output's, not the plan's.
type TaggedWriter struct{ W io.Writer }

func (c TaggedWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	if err != nil {
		err = writeError{err}
	}
	return n, err
}

// IsWriteError reports whether err came from writing the output.
func IsWriteError(err error) bool {
	var we writeError
	return errors.As(err, &we)
}
