//go:build linux && !sdd_named_temps

package atomicfile

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// On Linux an output is written to an unnamed file (open with O_TMPFILE in
// the target's directory) and given its name only when complete. Until
// then it has no name to leave behind: a process that dies, by a signal it
// does not catch or by SIGKILL, leaves nothing, so no signal handler is
// needed to clean up (cliapp relies on this).

// oTmpfile is O_TMPFILE: __O_TMPFILE (the same on every architecture Go
// builds for on Linux) with the architecture's O_DIRECTORY.
const oTmpfile = 0x400000 | syscall.O_DIRECTORY

// atSymlinkFollow is linkat's AT_SYMLINK_FOLLOW: link the file a
// /proc/self/fd entry stands for, not the entry.
const atSymlinkFollow = 0x400

// openUnnamed makes an unnamed file in dir (as dirOf returns it), with
// 0666 minus the umask. ok is false where the file system cannot make one
// or /proc is not there to name it later; err is a real failure (the
// directory is missing or not writable).
func openUnnamed(dir string) (f *os.File, ok bool, err error) {
	d := dir
	if d == "" {
		d = "."
	}
	fd, err := syscall.Open(d, syscall.O_RDWR|oTmpfile|syscall.O_CLOEXEC, 0o666)
	if err != nil {
		if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.EINVAL) {
			return nil, false, nil // no O_TMPFILE here: a named file will do
		}
		return nil, false, &os.PathError{Op: "open", Path: d, Err: err}
	}
	f = os.NewFile(uintptr(fd), dir+"(unnamed)")
	if _, err := os.Stat(procPath(f)); err != nil {
		_ = f.Close()
		return nil, false, nil // no /proc: it could never be named
	}
	return f, true, nil
}

func procPath(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// linkUnnamed gives the unnamed file f the name path, failing with EEXIST
// when path exists: the file appears whole, at once.
func linkUnnamed(f *os.File, path string) error {
	src, err := syscall.BytePtrFromString(procPath(f))
	if err != nil {
		return err
	}
	dst, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	cwd := atFDCWD
	_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(cwd), uintptr(unsafe.Pointer(src)),
		uintptr(cwd), uintptr(unsafe.Pointer(dst)), atSymlinkFollow, 0)
	if e != 0 {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: e}
	}
	return nil
}

const atFDCWD = -0x64
