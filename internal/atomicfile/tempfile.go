package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
)

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

// randomSuffix need not be unpredictable, only unlikely to repeat: the
// O_EXCL create settles any collision. (crypto/rand would cost every run
// its start-up.)
func randomSuffix() string { return strconv.FormatUint(rand.Uint64(), 36) }
