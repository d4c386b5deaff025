package ledger

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock takes f's exclusive lock over its whole range, waiting for it
// (LockFileEx; released when f is closed or the process ends). The
// standard library has no file lock on Windows.
func lock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, ^uint32(0), ^uint32(0), &ol)
}
