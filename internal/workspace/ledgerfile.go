package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The ledger's name and first line are read here as well as by the ledger
// itself (internal/ledger): a workspace without a marker is adopted unless
// its ledger's first line names another plan.

// LedgerName is the progress ledger's file name inside a workspace.
const LedgerName = "progress.md"

// LedgerIdentity opens the first line of a ledger: it names the plan the
// ledger belongs to. The dash is an em dash (U+2014).
const LedgerIdentity = "# SDD ledger — plan: "

// maxIdentityLine bounds how much of a ledger is read to find its first
// line; no path is longer.
const maxIdentityLine = 64 << 10

// invisible are the characters an editor may put before a first line
// without showing them: a byte order mark (PowerShell 5's `Set-Content
// -Encoding UTF8`, Notepad), zero-width spaces and joiners, a word joiner.
const invisible = "\uFEFF\u200B\u200C\u200D\u2060"

// IdentityPlan returns the plan path a ledger's first line names; ok is
// false when the line is not an identity line. Invisible characters
// before it and blanks and a CR after it are passed over, so that such
// bytes never make another plan's first line read as no first line.
func IdentityPlan(line string) (plan string, ok bool) {
	line = strings.TrimLeft(line, invisible)
	rest, found := strings.CutPrefix(line, LedgerIdentity)
	rest = strings.TrimRight(rest, " \t\r")
	if !found || rest == "" {
		return "", false
	}
	return rest, true
}

// ErrNotRegular is the failure to open a workspace file that is not a
// regular file: a symbolic link (where it is not followed), a FIFO, a
// device, a directory.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says which file is not regular, and what it is.
type NotRegularError struct {
	Path string
	What string // "a symbolic link", "a FIFO", …
}

func (e *NotRegularError) Error() string { return e.Path + ": " + e.What + ", not a regular file" }
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// OpenRegular opens path for reading (and appending, when write is set)
// if it is a regular file, without waiting: a FIFO with no writer, a
// device, would block a plain open or read for ever. A symbolic link is
// refused, never followed: a workspace file that is one (a cloned
// repository can ship it) would take a write out of the workspace. The
// error for a file that is not regular is a *NotRegularError.
func OpenRegular(path string, write bool) (*os.File, error) {
	flags := os.O_RDONLY
	if write {
		flags = os.O_RDWR | os.O_APPEND
	}
	if what := linkBeforeOpen(path); what != "" {
		return nil, &NotRegularError{Path: path, What: what}
	}
	f, err := os.OpenFile(path, flags|openNoFollow|openNoWait, 0)
	if err != nil {
		if what := notRegular(path, err); what != "" {
			return nil, &NotRegularError{Path: path, What: what}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, What: describe(fi.Mode())}
	}
	return f, nil
}

// describe names a file's type as a message says it.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return fmt.Sprintf("a file of mode %v", m)
}
