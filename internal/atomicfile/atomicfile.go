// Package atomicfile writes the commands' output files (briefs and review
// packages) so that a reader never sees half of one.
//
// The bash scripts truncate the output with the shell's `>` and fill it in
// place, so a failure leaves an empty or partial file that an agent then
// reads as the truth. Here a regular output file is written to a temporary
// file in its own directory and renamed over the target only when complete;
// on failure the temporary file is removed and an existing target is left as
// it was. Three rules keep it a drop-in for `>`: a symlink is written
// through to its target (the link stays a link); a target that is not a
// regular file (/dev/null, /dev/stdout, a FIFO) is opened and written
// directly, since it cannot be replaced by a rename; and a writable file in
// a directory where no temporary file can be made is written in place,
// opened only once the first byte is ready.
//
// Every path here goes to the kernel as the user spelled it: a symlink's
// relative target is appended to the link's directory as written, never
// cleaned, so "link/../out.md" means what open(2) makes of it.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// maxLinks bounds symlink chains, as the kernel's ELOOP does.
const maxLinks = 40

// File is an output file being written: Write to it (or hand OSFile to a
// child process), then Commit to publish it, or Abort to leave the target
// as it was.
type File struct {
	name    string     // the path as the user gave it
	target  string     // the path finally written: name with symlinks followed
	temp    string     // the temporary file, "" when writing the target itself
	f       *os.File   // nil until opened (in place, the first write opens it)
	scratch []*os.File // more temporary files beside it, removed when it is finished
	done    bool
}

// Create prepares name for writing. It fails where a shell's `>` would
// (missing directory, a directory, the empty string, permission denied);
// the error may name an internal path (a temporary file, the end of a
// symlink chain): the caller words it with the name the user gave.
func Create(name string) (*File, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	target, err := followLinks(name)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createTemp(name, target, nil)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		f := &File{name: name, target: target}
		return f, f.open()
	}
	if err := checkWritable(target, fi); err != nil {
		return nil, err
	}
	f, err := createTemp(name, target, fi)
	if err != nil && errors.Is(err, fs.ErrPermission) {
		// The file is writable but its directory is not: the shell would
		// still write it, so do that, in place, once there is something
		// to write, so that a failure before then leaves it untouched.
		return &File{name: name, target: target}, nil
	}
	return f, err
}

// Write writes p to the file, opening an in-place target on first use.
func (f *File) Write(p []byte) (int, error) {
	if f.f == nil {
		if err := f.open(); err != nil {
			return 0, err
		}
	}
	return f.f.Write(p)
}

// OSFile returns the open file, for a child process to write to directly.
// An in-place target is opened (truncated) now.
func (f *File) OSFile() (*os.File, error) {
	if f.f == nil {
		if err := f.open(); err != nil {
			return nil, err
		}
	}
	return f.f, nil
}

// Scratch makes another temporary file beside the output, for a part of
// it that is written out of order (a child process writing straight into
// it); it is removed when the output is committed or aborted. It fails when
// the output is written in place (no temporary file can be made there).
func (f *File) Scratch() (*os.File, error) {
	if f.temp == "" {
		return nil, errors.New("atomicfile: no temporary files beside " + f.name)
	}
	s, err := newTemp(dirOf(f.target), 0, false)
	if err != nil {
		return nil, err
	}
	f.scratch = append(f.scratch, s)
	return s, nil
}

// open opens the target itself, the way the shell's `>` does.
func (f *File) open() error {
	file, err := os.OpenFile(f.target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	f.f = file
	return nil
}

// Commit closes the file and, for a regular target, renames the temporary
// file over it.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: already finished")
	}
	if f.f == nil {
		// Written in place, and nothing was written: still an (empty) file.
		if err := f.open(); err != nil {
			f.done = true
			return err
		}
	}
	f.done = true
	if err := f.f.Close(); err != nil {
		f.removeTemp()
		return err
	}
	if f.temp == "" {
		return nil
	}
	if err := replace(f.temp, f.target); err != nil {
		f.removeTemp()
		return err
	}
	Untrack(f.temp)
	f.removeScratch()
	return nil
}

// Abort closes the file and removes the temporary file, if any. It is safe
// to call after Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.f != nil {
		_ = f.f.Close()
	}
	f.removeTemp()
}

func (f *File) removeTemp() {
	if f.temp != "" {
		_ = os.Remove(f.temp)
		Untrack(f.temp)
	}
	f.removeScratch()
}

func (f *File) removeScratch() {
	for _, s := range f.scratch {
		_ = s.Close()
		_ = os.Remove(s.Name())
		Untrack(s.Name())
	}
	f.scratch = nil
}

// createTemp makes an exclusive temporary file beside target, in the
// directory the kernel finds target in. A new file gets 0666 minus the
// umask, as the shell's `>` would create it; a replaced file keeps the
// permission bits it had (old is its FileInfo).
func createTemp(name, target string, old fs.FileInfo) (*File, error) {
	var perm fs.FileMode
	if old != nil {
		perm = old.Mode().Perm()
	}
	f, err := newTemp(dirOf(target), perm, old != nil)
	if err != nil {
		return nil, err
	}
	return &File{name: name, target: target, temp: f.Name(), f: f}, nil
}

// newTemp creates an exclusive, tracked temporary file in dir (a directory
// part as dirOf returns it) with permission bits perm when keep is set, else
// 0666 minus the umask.
func newTemp(dir string, perm fs.FileMode, keep bool) (*os.File, error) {
	for range 100 {
		// Short on purpose: a 255-byte target name must still leave room.
		temp := dir + ".sdd-" + randomSuffix() + ".tmp"
		f, err := os.OpenFile(temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		Track(temp)
		if keep {
			if err := f.Chmod(perm); err != nil {
				_ = f.Close()
				_ = os.Remove(temp)
				Untrack(temp)
				return nil, err
			}
		}
		return f, nil
	}
	return nil, &fs.PathError{Op: "open", Path: dir, Err: fs.ErrExist}
}

// followLinks returns the file a write to name lands in: name itself, or the
// end of its symlink chain (which need not exist yet: `>` creates it).
func followLinks(name string) (string, error) {
	path := name
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !rooted(dest) {
			// Relative to the directory holding the link, as the kernel
			// reads it: path's directory part exactly as written.
			dest = dirOf(path) + dest
		}
		path = dest
	}
	return "", &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
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

// randomSuffix need not be unpredictable, only unlikely to repeat: the
// O_EXCL create settles any collision. (crypto/rand would cost every run
// its start-up.)
func randomSuffix() string { return strconv.FormatUint(rand.Uint64(), 36) }

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
