// Package atomicfile writes the commands' output files (briefs and review
// packages) so that a reader never sees half of one.
//
// The bash scripts truncate the output with the shell's `>` and fill it in
// place, so a failure leaves an empty or partial file that an agent then
// reads as the truth. Here a regular output file is written to a temporary
// file in its own directory and renamed over the target only when complete;
// on failure the temporary file is removed and an existing target is left as
// it was. Two rules keep it a drop-in for `>`: a symlink is written through
// to its target (the link stays a link), and a target that is not a regular
// file (/dev/null, /dev/stdout, a FIFO) is opened and written directly,
// since it cannot be replaced by a rename.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// maxLinks bounds symlink chains, as the kernel's ELOOP does.
const maxLinks = 40

// File is an output file being written. Write to File.File; then Commit to
// publish it, or Abort to leave the target as it was.
type File struct {
	*os.File
	name   string // the path as the user gave it, for messages
	target string // the path finally written: name with symlinks followed
	temp   string // the temporary file, "" when writing directly
	done   bool
}

// Create prepares name for writing. The returned error names name, as a
// shell's `>` failure would (missing directory, a directory, the empty
// string, permission denied).
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
		return nil, rename(err, name)
	case fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return openDirect(name, target)
	}
	if err := checkWritable(target, fi); err != nil {
		return nil, rename(err, name)
	}
	f, err := createTemp(name, target, fi)
	if err != nil && errors.Is(err, fs.ErrPermission) {
		// The file is writable but its directory is not: the shell would
		// still write it, so do that, in place.
		return openDirect(name, target)
	}
	return f, err
}

// Regular reports whether the file is written through a temporary file,
// i.e. its size can be read back once it is complete.
func (f *File) Regular() bool { return f.temp != "" }

// Name is the path as given to Create.
func (f *File) Name() string { return f.name }

// Commit closes the file and, for a regular target, renames the temporary
// file over it.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: already finished")
	}
	f.done = true
	if err := f.File.Close(); err != nil {
		f.removeTemp()
		return rename(err, f.name)
	}
	if f.temp == "" {
		return nil
	}
	if err := replace(f.temp, f.target); err != nil {
		f.removeTemp()
		return rename(err, f.name)
	}
	forget(f.temp)
	return nil
}

// Abort closes the file and removes the temporary file, if any. It is safe
// to call after Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.File.Close()
	f.removeTemp()
}

func (f *File) removeTemp() {
	if f.temp != "" {
		_ = os.Remove(f.temp)
		forget(f.temp)
	}
}

// createTemp makes an exclusive temporary file beside target. A new file
// gets 0666 minus the umask, as the shell's `>` would create it; a replaced
// file keeps the permission bits it had (old is its FileInfo).
func createTemp(name, target string, old fs.FileInfo) (*File, error) {
	dir := filepath.Dir(target)
	for range 100 {
		// Short on purpose: a 255-byte target name must still leave room.
		temp := filepath.Join(dir, ".sdd-"+randomSuffix()+".tmp")
		f, err := os.OpenFile(temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, rename(err, name)
		}
		remember(temp)
		if old != nil {
			if err := f.Chmod(old.Mode().Perm()); err != nil {
				_ = f.Close()
				_ = os.Remove(temp)
				forget(temp)
				return nil, rename(err, name)
			}
		}
		return &File{File: f, name: name, target: target, temp: temp}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrExist}
}

// openDirect opens a target that cannot be replaced by a rename (a device,
// a FIFO) the way the shell's `>` does.
func openDirect(name, target string) (*File, error) {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, rename(err, name)
	}
	return &File{File: f, name: name, target: target}, nil
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
			return "", rename(err, name)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", &fs.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
}

// rename makes a file system error name the user's path rather than an
// internal one (the temporary file, the end of a symlink chain).
func rename(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: name, Err: le.Err}
	}
	return &fs.PathError{Op: "write", Path: name, Err: err}
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

// The temporary files alive in this process, so that a signal can remove
// them before the process dies.
var live = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

func remember(p string) { live.Lock(); live.m[p] = struct{}{}; live.Unlock() }
func forget(p string)   { live.Lock(); delete(live.m, p); live.Unlock() }

// RemoveTemps removes every temporary file this process still has. It is
// for a process about to exit on a signal without unwinding.
func RemoveTemps() {
	live.Lock()
	defer live.Unlock()
	for p := range live.m {
		_ = os.Remove(p)
		delete(live.m, p)
	}
}
