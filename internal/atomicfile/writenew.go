package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// WriteNew creates path holding data, whole or not at all, and fails with
// an error matching fs.ErrExist when path exists: whoever creates it first
// wins, and no reader ever sees part of it. (Workspace markers.) An error
// names path, whatever temporary file failed.
func WriteNew(path string, data []byte) error {
	if err := writeNew(path, data); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: cause(err)}
	}
	return nil
}

func writeNew(path string, data []byte) error {
	t, err := newTemp(dirOf(path), 0, false)
	if err != nil {
		return err
	}
	defer t.discard()
	if _, err := t.f.Write(data); err != nil {
		return err
	}
	if t.name == "" {
		return linkUnnamed(t.f, path)
	}
	err = os.Link(t.name, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here: an exclusive create still decides the race.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// cause is the reason inside a file system error, without the path it
// names.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}
