package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A /proc/self/fd link is the kernel's: its text ("pipe:[N]") is never
// taken for a path; the pipe behind it is written directly.
func TestDescriptorLinkIsFollowedByTheKernel(t *testing.T) {
	assert.True(t, onProcfs("/proc/self/fd/"))
	assert.False(t, onProcfs(t.TempDir()+"/"))

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	dir := t.TempDir()
	link := filepath.Join(dir, "out")
	require.NoError(t, os.Symlink("/proc/self/fd/"+strconv.Itoa(int(w.Fd())), link))
	target, kernels, err := followLinks(link)
	require.NoError(t, err)
	assert.True(t, kernels)
	assert.Equal(t, link, target, "opened by the path as given")

	f, err := Create(link)
	require.NoError(t, err)
	_, err = f.Write([]byte("through\n"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	require.NoError(t, w.Close())
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "through\n", string(b))
	assert.Equal(t, []string{"out"}, names(t, dir))
}
