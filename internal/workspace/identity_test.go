package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On macOS names fold for a plan that no longer exists, but two plans that
// exist are compared as files: on a case-sensitive volume a/plan.md and
// A/plan.md are two plans and must not share a workspace. (Linux's file
// system is case-sensitive, so it stands in for such a volume here.)
func TestExistingPlansAreComparedAsFilesNotFoldedNames(t *testing.T) {
	defer func(h pathStyle) { host = h }(host)
	host = darwinStyle
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, p := range []string{"a/plan.md", "A/plan.md"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte("## Task 1\n"), 0o644))
	}
	t.Chdir(root)

	pf, err := identify(root, "a/plan.md")
	require.NoError(t, err)
	assert.Equal(t, "a/plan.md", pf.id)
	assert.True(t, pf.namedBy("a/plan.md"))
	assert.True(t, pf.namedBy("./a/plan.md"))
	assert.True(t, pf.namedBy(filepath.Join(root, "a", "plan.md")))
	assert.False(t, pf.namedBy("A/plan.md"), "another file, whatever the folded names say")
	// A plan that no longer exists is compared by name, folded on macOS.
	gone, err := identify(root, "A/plan.md")
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(root, "a", "plan.md")))
	assert.True(t, gone.namedBy("A/plan.md"))
	assert.True(t, gone.namedBy("a/plan.md"), "no such file: the names fold on macOS")
}
