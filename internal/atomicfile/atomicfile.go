// Package atomicfile writes the commands' output files (briefs and review
// packages) so that a reader never sees half of one.
//
// The bash scripts truncate the output with the shell's `>` and fill it in
// place, so a failure leaves an empty or partial file that an agent then
// reads as the truth. Here a regular output file is written to a temporary
// file in its own directory and renamed over the target only when complete;
// on failure the temporary file is removed and an existing target is left as
// it was. The temporary file is unnamed where the system allows (Linux's
// O_TMPFILE), so a process killed before the end leaves nothing; it gets a
// name (.sdd-<random>.tmp) only where it must, announced first
// (BeforeNamed) and tracked, so that a signal's handler can remove it.
//
// These rules keep it a drop-in for `>`:
//   - a symlink is written through to its target (the link stays a link);
//   - a target that is not a regular file (/dev/null, a FIFO, a pipe) is
//     opened and written directly, since it cannot be replaced by a rename;
//   - a link on procfs (/proc/<pid>/fd/N, where /dev/stdout, /dev/stderr
//     and /dev/fd/N lead) is never read as text: the kernel follows it, and
//     a regular file behind it (a deleted one too) is written in place;
//   - a writable file in a directory where no temporary file can be made is
//     written in place, opened only once the first byte is ready;
//   - on Unix, where the directory lets a temporary file be made but the
//     target cannot be replaced (EPERM or EACCES from the link or the
//     rename: another user's file in a sticky directory; EBUSY or EXDEV: a
//     mount point, such as a file bind-mounted into a container), the
//     finished contents are copied into the target in place.
//
// A replace is not `>` in what the file keeps. The new file gets the old
// one's permission bits, but it is a new file: it belongs to whoever
// wrote it, with no ACLs and no extended attributes, and another hard link
// to the old file keeps the old contents. Written in place (the last three
// rules), the file keeps all of that, as with `>`.
//
// Every path here goes to the kernel as the user spelled it: a symlink's
// relative target is appended to the link's directory as written, never
// cleaned, so "link/../out.md" means what open(2) makes of it.
package atomicfile

import (
	"errors"
	"io"
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
	name   string   // the path as the user gave it
	target string   // the path finally written: name with symlinks followed (name itself past a procfs link)
	temp   *temp    // the file being written before it is published; nil when writing the target itself
	f      *os.File // nil until opened (in place, the first write opens it)
	// scratch are more temporary files beside it (Scratch), discarded
	// when it is finished.
	scratch []*temp
	done    bool
}

// temp is a file written before it is published: unnamed where the system
// allows (Linux's O_TMPFILE: nothing to leave behind, whatever kills the
// process), else named .sdd-<random>.tmp beside its target and tracked so
// that a signal handler can remove it.
type temp struct {
	f    *os.File // nil once closed
	name string   // "" when unnamed
}

// newTemp makes a temporary file in dir (a directory part as dirOf returns
// it) with permission bits perm when keep is set, else 0666 minus the
// umask.
func newTemp(dir string, perm fs.FileMode, keep bool) (*temp, error) {
	f, ok, err := openUnnamed(dir)
	if err != nil {
		return nil, err
	}
	t := &temp{f: f}
	if !ok {
		if t, err = newNamed(dir); err != nil {
			return nil, err
		}
	}
	if keep {
		if err := t.f.Chmod(perm); err != nil {
			t.discard()
			return nil, err
		}
	}
	return t, nil
}

// newNamed creates an exclusive, tracked temporary file in dir.
func newNamed(dir string) (*temp, error) {
	t := &temp{}
	err := withTempName(dir, func(name string) error {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			t.f, t.name = f, name
		}
		return err
	})
	return t, err
}

// withTempName runs mk with fresh names .sdd-<random>.tmp in dir until
// one is free, the name tracked from the moment mk makes it.
func withTempName(dir string, mk func(name string) error) error {
	for range 100 {
		// Short on purpose: a 255-byte target name must still leave room.
		name := dir + ".sdd-" + randomSuffix() + ".tmp"
		err := makeNamed(name, func() error { return mk(name) })
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return &fs.PathError{Op: "open", Path: dir, Err: fs.ErrExist}
}

// close closes t's file once.
func (t *temp) close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// discard closes t and removes its name (an unnamed file vanishes on
// close).
func (t *temp) discard() {
	_ = t.close()
	if t.name != "" {
		name := t.name
		_ = unname(name, func() error { return os.Remove(name) })
		t.name = ""
	}
}

// publish gives t's complete contents the name target, replacing what is
// there at once, and closes t. Where the rename (or the link) is refused
// but the file may be written (the directory forbids it, or target is a
// mount point), the contents are copied into target in place, as the
// shell's `>` would write them.
func (t *temp) publish(target string) error {
	err := t.rename(target)
	if renameForbidden(err) {
		err = t.copyTo(target)
	}
	t.discard()
	return err
}

// rename gives t the name target. An unnamed file is linked in directly
// when target is new, or linked beside it and renamed over it.
func (t *temp) rename(target string) error {
	if t.name == "" {
		err := linkUnnamed(t.f, target)
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		err = withTempName(dirOf(target), func(name string) error {
			err := linkUnnamed(t.f, name)
			if err == nil {
				t.name = name
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	// Closed first: Windows renames no file that is open.
	if err := t.close(); err != nil {
		return err
	}
	name := t.name
	if err := unname(name, func() error { return replace(name, target) }); err != nil {
		return err
	}
	t.name = ""
	return nil
}

// copyTo writes t's contents into target in place: opened as `>` opens it
// (truncated, its owner, mode, ACLs and links kept), then filled.
func (t *temp) copyTo(target string) error {
	src := t.f
	if src == nil {
		f, err := os.Open(t.name)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	} else if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dst, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// Create prepares name for writing. It fails where a shell's `>` would
// (missing directory, a directory, the empty string, permission denied);
// the error may name an internal path (a temporary file, the end of a
// symlink chain): the caller words it with the name the user gave.
func Create(name string) (*File, error) {
	if name == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	target, kernels, err := followLinks(name)
	if err != nil {
		return nil, err
	}
	if endsInSeparator(target) {
		// A directory by its spelling: open(2) makes no file by it, and
		// says why ("d2/" and "file/" alike: is a directory), as to `>`.
		return openNow(name, target)
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if kernels || onProcfs(dirOf(target)) {
			// No file can be made there (/dev/fd/9 with no descriptor 9):
			// the kernel says why.
			return openNow(name, target)
		}
		return createTemp(name, target, nil)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		return openNow(name, target)
	}
	if err := checkWritable(target, fi); err != nil {
		return nil, err
	}
	if kernels {
		// A descriptor's file (/dev/stdout on a regular file, a deleted
		// one): written in place, as `>` would, never replaced by a name.
		return &File{name: name, target: target}, nil
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

// openNow opens target itself at once, as the shell's `>` does.
func openNow(name, target string) (*File, error) {
	f := &File{name: name, target: target}
	if err := f.open(); err != nil {
		return nil, err
	}
	return f, nil
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

// Scratch makes another temporary file beside the output, unnamed where
// the output's is, for a part of it that is written out of order (a child
// process writing straight into it, the part copied in afterwards: on the
// same file system, the kernel copies it without this process). It is
// discarded when the output is committed or aborted. An output written in
// place has none: no temporary file may be possible where it is.
func (f *File) Scratch() (*os.File, error) {
	if f.temp == nil || f.done {
		return nil, errors.New("atomicfile: no scratch file beside " + f.name)
	}
	t, err := newTemp(dirOf(f.target), 0, false)
	if err != nil {
		return nil, err
	}
	f.scratch = append(f.scratch, t)
	return t.f, nil
}

// dropScratch discards the scratch files.
func (f *File) dropScratch() {
	for _, t := range f.scratch {
		t.discard()
	}
	f.scratch = nil
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

// Commit publishes the file: a temporary file is given the target's name
// (replacing it at once); a target written directly is closed.
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
	if f.temp == nil {
		return f.f.Close()
	}
	f.dropScratch() // first: the space they hold may be needed
	return f.temp.publish(f.target)
}

// Abort closes the file and removes the temporary file, if any. It is safe
// to call after Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.dropScratch()
	switch {
	case f.temp != nil:
		f.temp.discard()
	case f.f != nil:
		_ = f.f.Close()
	}
}

// createTemp makes the temporary file for target, in the directory the
// kernel finds target in. A new file gets 0666 minus the umask, as the
// shell's `>` would create it; a replaced file keeps the permission bits it
// had (old is its FileInfo).
func createTemp(name, target string, old fs.FileInfo) (*File, error) {
	var perm fs.FileMode
	if old != nil {
		perm = old.Mode().Perm()
	}
	t, err := newTemp(dirOf(target), perm, old != nil)
	if err != nil {
		return nil, err
	}
	return &File{name: name, target: target, temp: t, f: t.f}, nil
}

// WriteNew creates path holding data, whole or not at all, and fails with
// an error matching fs.ErrExist when path exists: whoever creates it first
// wins, and no reader ever sees part of it. (Workspace markers.) An error
// names path, whatever temporary file failed.
func WriteNew(path string, data []byte) error {
	if err := writeNew(path, data); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: cause(err)}
	}
	return nil
}

func writeNew(path string, data []byte) error {
	t, err := newTemp(dirOf(path), 0, false)
	if err != nil {
		return err
	}
	defer t.discard()
	if _, err := t.f.Write(data); err != nil {
		return err
	}
	if t.name == "" {
		return linkUnnamed(t.f, path)
	}
	err = os.Link(t.name, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// No hard links here: an exclusive create still decides the race.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// cause is the reason inside a file system error, without the path it
// names.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

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
