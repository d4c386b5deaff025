//go:build unix

package workspace

import (
	"errors"
	"os"
	"syscall"
)

const (
	openNoFollow = syscall.O_NOFOLLOW
	openNoWait   = syscall.O_NONBLOCK
)

// notRegular names what path is when err is an open's refusal of a file
// that is not regular: a symbolic link refused by O_NOFOLLOW (ELOOP; on
// FreeBSD EMLINK), or a directory opened for writing.
func notRegular(path string, err error) string {
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.EISDIR) {
		if fi, lerr := os.Lstat(path); lerr == nil {
			return describe(fi.Mode())
		}
	}
	return ""
}

// linkBeforeOpen: here the open itself refuses a symbolic link.
func linkBeforeOpen(string) string { return "" }
