package sddledger

import (
	"os"

	"github.com/sdd-go/sdd-go/internal/commands"
)

// removeAll removes dir and all it holds (finish's workspace, carry's
// fresh one). On Windows os.RemoveAll deletes through directory handles
// with POSIX semantics (FileDispositionInformationEx), which Wine 8 (and a
// file system driver answering as it does) refuses with "Invalid
// function", a status Go does not fall back on; then each entry is removed
// by its name (DeleteFile, RemoveDirectory), the older way, and
// RemoveAll's error is the answer only when that fails too.
func removeAll(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil || removeByName(dir) == nil {
		return nil
	}
	return err
}

func removeByName(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := commands.InWorkspace(dir, e.Name())
		if e.IsDir() { // a symbolic link is removed, not followed
			err = removeByName(p)
		} else {
			err = os.Remove(p)
		}
		if err != nil {
			return err
		}
	}
	return os.Remove(dir)
}
