//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ws5, diff2 (2026-12-04): a slug longer than the file system takes (only
// a plan on a file system with longer names can have one) is the script's
// name and is not cut: making it fails, as the script's mkdir -p does,
// naming the path; the .gitignore is there all the same.
func TestSlugOverTheLimitFailsAndLeavesTheGitignore(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Chdir(root)
	require.NoError(t, os.WriteFile("plan.md", []byte("## Task 1\n"), 0o644))
	slug := strings.Repeat("s", 300)
	_, _, err = Ensure(root, "plan.md", slug)
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ENAMETOOLONG), "%v", err)
	assert.Contains(t, err.Error(), filepath.Join(root, ".superpowers", "sdd", slug))
	b, err := os.ReadFile(filepath.Join(root, ".superpowers", "sdd", ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "*\n", string(b))
}
