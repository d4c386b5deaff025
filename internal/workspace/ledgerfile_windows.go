package workspace

import (
	"io/fs"
	"os"
)

// Windows has neither O_NOFOLLOW nor FIFOs a plain open waits on.
const (
	openNoFollow = 0
	openNoWait   = 0
)

func notRegular(string, error) string { return "" }

// linkBeforeOpen names a symbolic link (a reparse point) at path, which an
// open would follow; "" for anything else.
func linkBeforeOpen(path string) string {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return describe(fi.Mode())
	}
	return ""
}
