//go:build windows

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// checkWritable refuses a read-only target, as opening it for writing would.
func checkWritable(target string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "open", Path: target, Err: fs.ErrPermission}
	}
	return nil
}

// Windows error codes a rename gets while another process (an editor, an
// indexer, a virus scanner) briefly holds the target open.
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
	errorLockViolation    syscall.Errno = 33
)

// replace renames temp over target (MoveFileEx with REPLACE_EXISTING under
// os.Rename), retrying for about a second while the target is held open.
func replace(temp, target string) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = os.Rename(temp, target); err == nil {
			return nil
		}
		var errno syscall.Errno
		if !errors.As(err, &errno) || (errno != errorAccessDenied && errno != errorSharingViolation && errno != errorLockViolation) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// renameForbidden is never true on Windows: there a rename is refused with
// ERROR_ACCESS_DENIED while another process holds the target open, and
// writing into it behind that process's back is what the rename declined
// to do (difference 3: the command fails and the old contents stay).
func renameForbidden(error) bool { return false }
