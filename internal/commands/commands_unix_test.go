//go:build !windows

package commands_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/commands"
)

// The commits are counted before the package is published: a count that
// fails (here a git that fails rev-list and runs the real git otherwise)
// leaves no package, and hands on git's status and words.
func TestReviewPackageFailingCountLeavesNoPackage(t *testing.T) {
	_, base := taskRange(t)
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = rev-list ]; then echo 'fatal: injected' >&2; exit 7; fi\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	t.Setenv("PATH", dir)
	status, stdout, stderr := run(commands.ReviewPackage, "plan.md", base, "HEAD", "out.diff")
	assert.Equal(t, 7, status)
	assert.Equal(t, "fatal: injected\n", stderr)
	assert.Empty(t, stdout)
	assert.NoFileExists(t, "out.diff")
}
