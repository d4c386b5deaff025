package reference

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

func TestFind(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	mk := func(dir string, mode os.FileMode) string {
		d := filepath.Join(dir, filepath.FromSlash(Suffix))
		require.NoError(t, os.MkdirAll(d, 0o755))
		for _, c := range ship.DropIns {
			require.NoError(t, os.WriteFile(filepath.Join(d, c), []byte("#!/bin/sh\n"), mode))
		}
		return d
	}
	home := t.TempDir()

	_, err := Find(env(nil), home)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = Find(env(map[string]string{"SDD_REFERENCE": home}), home)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNotFound, "a wrong SDD_REFERENCE is not a missing one")

	old := mk(filepath.Join(home, ".claude", "plugins", "cache", "sp", "superpowers", "6.1.0"), 0o755)
	newer := mk(filepath.Join(home, ".claude", "plugins", "cache", "sp", "superpowers", "6.2.0"), 0o755)
	mk(filepath.Join(home, ".claude", "plugins", "cache", "sp", "superpowers", "9.9.9"), 0o644) // not executable
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(old, "sdd-workspace"), past, past))
	got, err := Find(env(nil), home)
	require.NoError(t, err)
	assert.Equal(t, newer, got)

	got, err = Find(env(map[string]string{"SDD_REFERENCE": old}), home)
	require.NoError(t, err)
	assert.Equal(t, old, got)
}
