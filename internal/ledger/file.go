package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
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
// its lock. A missing ledger is fs.ErrNotExist.
func Open(path string) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	return &File{f: f, path: path}, nil
}

// Create makes a new ledger at path holding lines, refusing to touch one
// that exists (fs.ErrExist), and returns it open and locked. Another
// process may open the new file and take its lock between its creation
// and this one's lock (a Create that lost the race, then Open): the lines
// are written only to a ledger still empty under the lock, never twice.
func Create(path string, lines ...string) (*File, error) {
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
		if err := l.Append(lines...); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close releases the lock.
func (l *File) Close() error { return l.f.Close() }

// Path is the ledger's path.
func (l *File) Path() string { return l.path }

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
func (l *File) Append(lines ...string) error {
	if len(lines) == 0 {
		return nil
	}
	var b bytes.Buffer
	if fi, err := l.f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := l.f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
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
	if _, err := l.f.Write(b.Bytes()); err != nil {
		return &fs.PathError{Op: "write", Path: l.path, Err: err}
	}
	return nil
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
