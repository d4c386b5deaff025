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

// renameForbidden reports a rename (or link) that cannot replace the
// target although `>` could write it: the directory refuses it (EPERM,
// EACCES: a sticky directory and another user's file), or the target is a
// mount point (EBUSY: a single file bind-mounted there, as containers and
// CI harnesses collect results; EXDEV for a rename the kernel sees across
// mounts). The finished output is then written into the target in place.
func renameForbidden(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV)
}
