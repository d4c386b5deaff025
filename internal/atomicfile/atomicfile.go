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
	"io/fs"
	"os"
	"syscall"
)

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
