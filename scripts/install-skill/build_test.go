package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// built holds what the tests build once per test process, in a folder
// TestMain removes: the sdd-go binaries as they ship, and the installer
// itself (builtInstaller), for the tests that signal a real installer
// process.
var built struct {
	once sync.Once
	dir  string
	err  error

	binaries, installer struct {
		once sync.Once
		err  error
	}
}

func builtDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds programs")
	}
	built.once.Do(func() { built.dir, built.err = os.MkdirTemp("", "install-skill-test-") })
	require.NoError(t, built.err)
	return built.dir
}

// builtBinaries returns the folder of the sdd-go binaries, built as they
// ship.
func builtBinaries(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(builtDir(t), "bin")
	built.binaries.once.Do(func() {
		built.binaries.err = ship.Build{Root: repoRoot(t), Out: dir}.Run(context.Background())
	})
	require.NoError(t, built.binaries.err)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
