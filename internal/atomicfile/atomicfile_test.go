package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// names lists what dir holds.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestCommitPublishesWholeAndLeavesNothingElse(t *testing.T) {
	dir := t.TempDir()
	for _, existing := range []bool{false, true} {
		target := filepath.Join(dir, "out.md")
		if existing {
			require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o600))
		}
		f, err := Create(target)
		require.NoError(t, err)
		_, err = f.Write([]byte("new\n"))
		require.NoError(t, err)
		assert.Equal(t, existing, fileExists(target), "nothing published before Commit")
		require.NoError(t, f.Commit())
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "new\n", string(b))
		assert.Equal(t, []string{"out.md"}, names(t, dir))
		if existing {
			fi, err := os.Stat(target)
			require.NoError(t, err)
			if runtime.GOOS != "windows" {
				assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), "a replaced file keeps its mode")
			}
		}
		require.NoError(t, os.Remove(target))
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.md")
	f, err := Create(target)
	require.NoError(t, err)
	_, err = f.Write([]byte("part"))
	require.NoError(t, err)
	f.Abort()
	assert.Empty(t, names(t, dir))
}

// Scratch files are made beside the output, for parts written out of
// order, and go with it, whether it is published or abandoned.
func TestScratchGoesWithTheOutput(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.md")
	for _, publish := range []bool{true, false} {
		f, err := Create(target)
		require.NoError(t, err)
		s, err := f.Scratch()
		require.NoError(t, err)
		_, err = s.WriteString("a part\n")
		require.NoError(t, err)
		if publish {
			require.NoError(t, f.Commit())
			assert.Equal(t, []string{"out.md"}, names(t, dir))
		} else {
			f.Abort()
			assert.Empty(t, names(t, dir))
		}
		_, err = s.WriteString("more")
		assert.Error(t, err, "closed")
		_ = os.Remove(target)
	}

	// An output written in place has no scratch files: no temporary file
	// may be possible where it is.
	require.NoError(t, os.WriteFile(target, nil, 0o644))
	f := &File{name: target, target: target}
	_, err := f.Scratch()
	assert.Error(t, err)
}

// Where no unnamed file can be made, a named one is used: it is announced
// (BeforeNamed) before it exists, so a signal handler can be ready,
// tracked, and removed by RemoveTracked as a dying process would; after
// that no new name is made. Published, it leaves no temporary name.
func TestNamedTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	announced := 0
	defer func(f func()) { BeforeNamed = f }(BeforeNamed)
	BeforeNamed = func() {
		announced++
		assert.Empty(t, names(t, dir), "announced before the name exists")
	}
	tmp, err := newNamed(dir + string(filepath.Separator))
	require.NoError(t, err)
	assert.Equal(t, 1, announced)
	require.Len(t, names(t, dir), 1)
	assert.True(t, strings.HasPrefix(names(t, dir)[0], ".sdd-"))
	_, err = tmp.f.Write([]byte("x\n"))
	require.NoError(t, err)
	require.NoError(t, tmp.publish(filepath.Join(dir, "out.md")))
	assert.Equal(t, []string{"out.md"}, names(t, dir))

	BeforeNamed = func() {}
	_, err = newNamed(dir + string(filepath.Separator))
	require.NoError(t, err)
	defer reopenTracked()
	RemoveTracked()
	assert.Equal(t, []string{"out.md"}, names(t, dir))
	_, err = newNamed(dir + string(filepath.Separator))
	assert.ErrorIs(t, err, errDying, "no name once the process is ending")
	assert.Equal(t, []string{"out.md"}, names(t, dir))
}

// RemoveTracked may run at any moment of other goroutines making names
// (a signal's handler): whatever it meets, no name is left once it has
// returned.
func TestRemoveTrackedWhileNamesAreMade(t *testing.T) {
	defer reopenTracked()
	for round := 0; round < 20; round++ {
		reopenTracked()
		dir := t.TempDir() + string(filepath.Separator)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					tmp, err := newNamed(dir)
					if err != nil {
						return
					}
					_ = tmp.f.Close()
				}
			}()
		}
		time.Sleep(time.Millisecond)
		RemoveTracked()
		wg.Wait()
		assert.Empty(t, names(t, dir), "round %d", round)
	}
}

// A path with a trailing separator names a directory: open(2) creates no
// file by it, and says why.
func TestTrailingSeparator(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the reasons are Unix's")
	}
	dir := t.TempDir()
	_, err := Create(filepath.Join(dir, "d2") + "/")
	assert.ErrorIs(t, err, syscall.EISDIR)
	_, err = Create(filepath.Join(dir, "nodir", "d2") + "/")
	assert.ErrorIs(t, err, syscall.ENOENT)
	assert.Empty(t, names(t, dir))
}

// A failed marker is reported against the marker's path, never a
// temporary file's or the directory's.
func TestWriteNewNamesItsTarget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nodir", "plan-path")
	err := WriteNew(p, []byte("x\n"))
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, p, pe.Path)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestWriteNewIsExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan-path")
	require.NoError(t, WriteNew(p, []byte("docs/a.md\n")))
	err := WriteNew(p, []byte("docs/b.md\n"))
	assert.ErrorIs(t, err, fs.ErrExist)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "docs/a.md\n", string(b))
	assert.Equal(t, []string{"plan-path"}, names(t, dir))
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
