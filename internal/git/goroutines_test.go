package git

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A git call makes no goroutine (os/exec makes one to copy a pipe, one to
// watch a context): each wakes or makes a thread, on every call, and a
// command of a few milliseconds pays for that as much as for its own work
// (docs/bench.md). Output, through a pipe, and ToFile, handed a file, with
// a context that can end and a stderr that is a file, as the commands run
// git.
func TestGitCallsMakeNoGoroutine(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	require.NoError(t, err)
	defer stderr.Close()
	out, err := os.Create(filepath.Join(dir, "out"))
	require.NoError(t, err)
	defer out.Close()

	defer func(f func()) { afterStart = f }(afterStart)
	var during int
	afterStart = func() { during = runtime.NumGoroutine() }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := New(stderr)

	before := runtime.NumGoroutine()
	version, err := r.Output(ctx, "version")
	require.NoError(t, err)
	assert.Contains(t, string(version), "git version")
	assert.Equal(t, before, during, "Output")

	before = runtime.NumGoroutine()
	require.NoError(t, r.ToFile(ctx, out, "version"))
	assert.Equal(t, before, during, "ToFile")
}
