//go:build !windows

package e2e

// The parts of difference 3 that need Unix: the umask, FIFOs, /dev/null.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

func TestNewOutfileIsCreatedWithUmask(t *testing.T) {
	r := planRepo(t)
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	res := r.Run("", "task-brief", "plan.md", "1", "new.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	fi, err := os.Stat(filepath.Join(r.Root, "new.md"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}

func TestDevNullAndFIFOAreWrittenDirectly(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	base := twoCommits(r, twoTasks)

	res := r.Run("", "task-brief", "plan.md", "1", "/dev/null")
	assert.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote /dev/null: 4 lines\n", res.Stdout)
	res = r.Run("", "task-brief", "plan.md", "7", "/dev/null")
	assert.Equal(t, 3, res.Code)

	fifo := filepath.Join(r.Root, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	res = r.Run("", "review-package", "plan.md", base, "HEAD", "fifo")
	require.Equal(t, 0, res.Code, res.Stderr)
	pkg := <-got
	assert.True(t, strings.HasPrefix(pkg, "# Review package: "+base+"..HEAD\n\n## Commits\n"), pkg)
	assert.Contains(t, res.Stdout, "1 commit(s), ")
	assert.True(t, strings.HasSuffix(res.Stdout, " "+strconv.Itoa(len(pkg))+" bytes\n"), res.Stdout)
}
