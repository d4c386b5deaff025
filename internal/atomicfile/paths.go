package atomicfile

import (
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// maxLinks bounds symlink chains, as the kernel's ELOOP does.
const maxLinks = 40

// followLinks returns the file a write to name lands in: name itself, or the
// end of its symlink chain (which need not exist yet: `>` creates it).
// A link on procfs (/proc/self/fd/1, which /dev/stdout leads to) is the
// kernel's own: its text is no path (pipe:[N], "/x (deleted)"), so it is
// never read; the kernel follows it when name is opened, and kernels says
// so.
func followLinks(name string) (target string, kernels bool, err error) {
	path := name
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, false, nil
		}
		if onProcfs(dirOf(path)) {
			return name, true, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		if !rooted(dest) {
			// Relative to the directory holding the link, as the kernel
			// reads it: path's directory part exactly as written.
			dest = dirOf(path) + dest
		}
		path = dest
	}
	return "", false, &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
}

// ThroughDescriptor reports whether path leads, through its symlinks, to
// a link on procfs (/proc/<pid>/fd/N, where /dev/stdin and /dev/fd/N
// lead): a file this process has open, which the kernel alone can follow,
// and which may have no path at all (a deleted file, a here-document).
func ThroughDescriptor(path string) bool {
	_, kernels, err := followLinks(path)
	return err == nil && kernels
}

// endsInSeparator reports whether path names a directory by its spelling:
// open(2) creates no file by such a name.
func endsInSeparator(path string) bool {
	return path != "" && strings.ContainsRune(separators, rune(path[len(path)-1]))
}

// separators are the bytes that end a path element on this OS.
var separators = map[bool]string{false: "/", true: `\/`}[runtime.GOOS == "windows"]

// dirOf is path's directory part, up to and including its last separator,
// uncleaned ("" for a bare name; "C:" for C:name on Windows): prefixed to a
// name, it names that name in the directory the kernel finds path in.
func dirOf(path string) string {
	i := strings.LastIndexAny(path, separators)
	if i < 0 && runtime.GOOS == "windows" && len(path) >= 2 && path[1] == ':' {
		return path[:2]
	}
	return path[:i+1]
}

// rooted reports whether a symlink target does not depend on the link's
// directory: an absolute path, or on Windows one with a drive or a leading
// separator.
func rooted(dest string) bool {
	if runtime.GOOS == "windows" {
		return dest != "" && (strings.ContainsRune(separators, rune(dest[0])) || len(dest) >= 2 && dest[1] == ':')
	}
	return strings.HasPrefix(dest, "/")
}

// SameFile reports whether a and b name one existing file (after symlinks),
// however they are spelled.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}
