package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The suite runs as root in CI, where nothing stops a test from changing
// the host's permissions: a test that once opened every directory up to /
// for another user cleared /tmp's sticky bit. Tests that change modes do it
// through Chmod, which refuses any path outside the directories the test
// made itself, puts every mode back when the test ends, and checks that
// the directories above the test's own (TMPDIR and its parents) are as
// they were.

// ownDirs are the directories each test made (SharedDir, RealTempDir), by
// test.
var ownDirs sync.Map // testing.TB → *[]string

// SharedDir makes a directory for t that another user can reach: mode
// 0755, under $TMPDIR, removed when t ends. It is the only place a test
// may hand to an unprivileged process. If a directory above it cannot be
// traversed by others, the test is skipped: opening it would change the
// host.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sdd-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		restoreWritable(dir)
		_ = os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not traversable by other users (mode %o): set TMPDIR to a directory they can reach", d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	own(t, real)
	return real
}

// own records dir as made by t: Chmod may change what is inside it, and
// what is above it must be unchanged when t ends.
func own(t testing.TB, dir string) {
	list, loaded := ownDirs.LoadOrStore(t, &[]string{})
	if !loaded {
		t.Cleanup(func() { ownDirs.Delete(t) })
	}
	*list.(*[]string) = append(*list.(*[]string), dir)
	guardHost(t, dir)
}

// Chmod changes the mode of path, which must lie inside a directory t made
// (SharedDir, RealTempDir), and puts the old mode back when t ends.
func Chmod(t testing.TB, path string, mode fs.FileMode) {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ownedBy(t, real) {
		t.Fatalf("testutil.Chmod: %s is not inside a directory this test made (testutil.SharedDir)", path)
	}
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	old := fi.Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetuid | fs.ModeSetgid)
	t.Cleanup(func() { _ = os.Chmod(real, old) })
	if err := os.Chmod(real, mode); err != nil {
		t.Fatal(err)
	}
}

func ownedBy(t testing.TB, path string) bool {
	list, ok := ownDirs.Load(t)
	if !ok {
		return false
	}
	for _, d := range *list.(*[]string) {
		if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// guardHost records the modes of every directory above dir and fails t if
// any differs when t ends.
func guardHost(t testing.TB, dir string) {
	type seen struct {
		path string
		mode fs.FileMode
	}
	var before []seen
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			before = append(before, seen{d, fi.Mode()})
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	t.Cleanup(func() {
		for _, s := range before {
			fi, err := os.Stat(s.path)
			if err != nil {
				t.Errorf("the test removed %s", s.path)
				continue
			}
			if fi.Mode() != s.mode {
				t.Errorf("the test changed the mode of %s from %v to %v", s.path, s.mode, fi.Mode())
			}
		}
	})
}

// restoreWritable makes every directory under dir writable by its owner
// again, so that the tree can be removed when a test left a read-only one
// behind and does not run as root.
func restoreWritable(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o700 != 0o700 {
				_ = os.Chmod(p, fi.Mode().Perm()|0o700)
			}
		}
		return nil
	})
}
