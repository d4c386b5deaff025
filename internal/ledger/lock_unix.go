//go:build unix

package ledger

import (
	"os"
	"syscall"
)

// lock takes f's exclusive advisory lock, waiting for it (flock(2): held
// until f is closed, released by the kernel if the process dies).
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
