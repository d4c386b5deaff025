package skilltext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// textEdit replaces old, which must occur exactly once (every time, with
// all), by new in one file of a copy of skill/.
type textEdit struct {
	file, old, new string
	all            bool
}

// skillCopy copies skill/ into a temporary directory and applies edits:
// a mutation that must make the walk-through fail.
func skillCopy(t *testing.T, edits ...textEdit) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skill")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join(moduleRoot, "skill")
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	for _, e := range edits {
		text, ok := files[e.file]
		require.True(t, ok, "skill/%s", e.file)
		if e.all {
			require.Positive(t, strings.Count(text, e.old), "skill/%s must hold %q", e.file, e.old)
			files[e.file] = strings.ReplaceAll(text, e.old, e.new)
			continue
		}
		require.Equal(t, 1, strings.Count(text, e.old),
			"skill/%s must hold exactly once: %q\n(the text changed: if it now says what this edit wrote, drop the edit)", e.file, e.old)
		files[e.file] = strings.Replace(text, e.old, e.new, 1)
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}
