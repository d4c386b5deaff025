//go:build !windows

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// checkWritable refuses a target the shell's `>` could not open for
// writing, since a rename would otherwise replace a read-only file.
func checkWritable(target string, _ fs.FileInfo) error {
	if err := syscall.Access(target, 2 /* W_OK */); err != nil {
		return &fs.PathError{Op: "open", Path: target, Err: err}
	}
	return nil
}

// replace renames temp over target; on Unix a rename replaces atomically.
func replace(temp, target string) error { return os.Rename(temp, target) }

// renameForbidden reports a rename (or link) the directory refuses, as a
// sticky directory refuses another user's file: the target is then written
// in place, as `>` would.
func renameForbidden(err error) bool { return errors.Is(err, fs.ErrPermission) }
