//go:build unix

package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records failures and cleanups instead of
// acting on them, so the guards can be shown to fail.
type recorder struct {
	testing.TB
	failures []string
	cleanups []func()
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...); runtime.Goexit() }
func (r *recorder) Fatal(a ...any)                 { r.Errorf("%s", fmt.Sprint(a...)); runtime.Goexit() }
func (r *recorder) Skipf(format string, a ...any)  { r.Errorf("skip: "+format, a...); runtime.Goexit() }
func (r *recorder) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// inGoroutine runs f like a test body: Fatal ends it, not the caller.
func inGoroutine(f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	<-done
}

func TestChmodRefusesWhatTheTestDidNotMake(t *testing.T) {
	outside := t.TempDir() // the real test's, not the recorder's
	before, err := os.Stat(outside)
	require.NoError(t, err)
	rec := &recorder{TB: t}
	inGoroutine(func() { Chmod(rec, outside, 0o777) })
	require.Len(t, rec.failures, 1)
	assert.Contains(t, rec.failures[0], "is not inside a directory this test made")
	after, err := os.Stat(outside)
	require.NoError(t, err)
	assert.Equal(t, before.Mode(), after.Mode(), "nothing was changed")
}

func TestChmodPutsTheModeBack(t *testing.T) {
	rec := &recorder{TB: t}
	var dir string
	inGoroutine(func() { dir = RealTempDir(rec) })
	require.Empty(t, rec.failures)
	f := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	inGoroutine(func() { Chmod(rec, f, 0o400) })
	fi, _ := os.Stat(f)
	assert.Equal(t, os.FileMode(0o400), fi.Mode().Perm())
	rec.runCleanups()
	fi, _ = os.Stat(f)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assert.Empty(t, rec.failures)
}

func TestHostGuardSeesAChangeAboveTheTestsDirectory(t *testing.T) {
	above := t.TempDir()
	require.NoError(t, os.Chmod(above, 0o700))
	below := filepath.Join(above, "own")
	require.NoError(t, os.Mkdir(below, 0o755))
	rec := &recorder{TB: t}
	own(rec, below)
	require.NoError(t, os.Chmod(above, 0o755)) // what the old openUp did, one level up
	rec.runCleanups()
	require.Len(t, rec.failures, 1)
	assert.Contains(t, rec.failures[0], "changed the mode of "+above)
}
