package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sdd-go/sdd-go/internal/workspace"
)

// MaxSize bounds how much of a ledger is read: a ledger is a few lines a
// task; one this large is not a ledger.
const MaxSize = 16 << 20

// File is a ledger held open under an exclusive lock, so that what a
// command reads is still what it appends to: two commands never both
// append on the same reading, and their lines never interleave.
type File struct {
	f    *os.File
	path string
}

// Open opens the ledger at path for reading and appending, and waits for
// its lock. A missing ledger is fs.ErrNotExist; a ledger that is not a
// regular file (a symbolic link, never followed; a FIFO, never waited on)
// is a *workspace.NotRegularError.
func Open(path string) (*File, error) {
	f, err := workspace.OpenRegular(path, true)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	return &File{f: f, path: path}, nil
}

// Read returns the text of the ledger at path without its lock, for a
// reader that writes nothing (Look): errors as Open's.
func Read(path string) (string, error) {
	f, err := workspace.OpenRegular(path, false)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return (&File{f: f, path: path}).Text()
}

// Create makes a new ledger at path holding lines, refusing to touch one
// that exists (fs.ErrExist; an exclusive create follows no symbolic
// link), and returns it open and locked. Another process may open the new
// file and take its lock between its creation and this one's lock (a
// Create that lost the race, then Open): the lines are written only to a
// ledger still empty under the lock, never twice.
func Create(ctx context.Context, path string, lines ...string) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	l := &File{f: f, path: path}
	fi, err := f.Stat()
	if err != nil {
		l.Close()
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if fi.Size() == 0 {
		if err := l.Append(ctx, lines...); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close releases the lock.
func (l *File) Close() error { return l.f.Close() }

// Text is the whole ledger as it is now.
func (l *File) Text() (string, error) {
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(l.f, 0, MaxSize+1), MaxSize+1))
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: l.path, Err: err}
	}
	if len(b) > MaxSize {
		return "", fmt.Errorf("%s: over %d bytes: not a ledger", l.path, MaxSize)
	}
	return string(b), nil
}

// Append writes lines at the end of the ledger in one write, each with
// its newline (and a newline first when the ledger's last line lacks
// one, so that no line is glued to another).
//
// A failed append leaves the ledger byte for byte as it was: a write cut
// short (a full disk, a quota, a file size limit) is taken back, so no cut
// line is ever left to read back as a different, whole one. So is a whole
// write when ctx ended meanwhile (the command caught a signal and is
// stopping): the step did not happen. The caller holds the lock, so no
// other writer's lines come after the ones taken back.
func (l *File) Append(ctx context.Context, lines ...string) error {
	if len(lines) == 0 {
		return nil
	}
	fi, err := l.f.Stat()
	if err != nil {
		return &fs.PathError{Op: "stat", Path: l.path, Err: err}
	}
	size := fi.Size()
	var b bytes.Buffer
	if size > 0 {
		last := make([]byte, 1)
		if _, err := l.f.ReadAt(last, size-1); err == nil && last[0] != '\n' {
			b.WriteByte('\n')
		}
	}
	for _, s := range lines {
		if strings.ContainsAny(s, "\n\r") {
			return errors.New("a ledger line holds a line break") // the formats never make one
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	_, werr := l.f.Write(b.Bytes())
	afterWrite()
	if werr == nil && ctx.Err() != nil {
		werr = context.Cause(ctx)
	}
	if werr != nil {
		if terr := l.f.Truncate(size); terr != nil {
			return &fs.PathError{Op: "write", Path: l.path, Err: fmt.Errorf("%v, and taking the cut write back failed: %v: the ledger's last line is cut", unwrapPath(werr), terr)}
		}
		var pe *fs.PathError
		if errors.As(werr, &pe) {
			return &fs.PathError{Op: "write", Path: l.path, Err: pe.Err}
		}
		return werr
	}
	return nil
}

// afterWrite runs between an append's write and its look at ctx: a test
// stops the command there, as a signal caught during the write does.
var afterWrite = func() {}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Split is a ledger's text as its first line and the rest, each without
// its newline (a trailing CR is left to Parse and IdentityPlan).
func Split(text string) (first string, rest []string) {
	if text == "" {
		return "", nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	return lines[0], lines[1:]
}
