package reviewpkg_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/sdd-go/sdd-go/internal/git"
	"github.com/sdd-go/sdd-go/internal/reviewpkg"
)

// task makes a repository whose commits have the same names on every
// machine (testutil's fixed identity and clock): a base, then a task of
// two commits. It returns BASE.
func task(t *testing.T) string {
	t.Helper()
	r := testutil.NewRepo(t)
	r.Enter()
	base := r.Commit("plan", "plan.md", "## Task 1\n", "greet.txt", "one\ntwo\nthree\n")
	r.Commit("greet louder", "greet.txt", "one\nTWO\nthree\n")
	r.Commit("add farewell", "bye.txt", "bye\n")
	return base
}

// The package's bytes, as the reference script writes them for this range.
const want = `# Review package: 669905595430b043cc817a7a516428c1b2329d1f..HEAD

## Commits
10edb8c add farewell
6782e09 greet louder

## Files changed
 bye.txt   | 1 +
 greet.txt | 2 +-
 2 files changed, 2 insertions(+), 1 deletion(-)

## Diff
diff --git a/bye.txt b/bye.txt
new file mode 100644
index 0000000..b023018
--- /dev/null
+++ b/bye.txt
@@ -0,0 +1 @@
+bye
diff --git a/greet.txt b/greet.txt
index 4cb29ea..ddc897f 100644
--- a/greet.txt
+++ b/greet.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
`

// write writes the package of BASE..HEAD into out (with scratch files
// when scratch is set: the calls then run side by side) and checks what
// Write says it wrote, the count, and that git said nothing.
func write(t *testing.T, out *os.File, scratch bool, base string) int64 {
	t.Helper()
	var stderr bytes.Buffer
	o := reviewpkg.Output{File: out}
	if scratch {
		o.Scratch = func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "scratch") }
	}
	n, count, err := reviewpkg.Write(context.Background(), git.New(&stderr), o, base, "HEAD")
	require.NoError(t, err)
	assert.Equal(t, "2", count)
	assert.Empty(t, stderr.String())
	return n
}

func TestPackageLayout(t *testing.T) {
	base := task(t)
	require.Equal(t, "669905595430b043cc817a7a516428c1b2329d1f", base, "the same commits as the reference's package")
	for _, together := range []bool{false, true} {
		out, err := os.Create(filepath.Join(t.TempDir(), "out.diff"))
		require.NoError(t, err)
		defer out.Close()
		n := write(t, out, together, base)
		b, err := os.ReadFile(out.Name())
		require.NoError(t, err)
		assert.Equal(t, want, string(b), "side by side: %v", together)
		assert.Equal(t, int64(len(want)), n)
	}
}

// Into a pipe (a FIFO, a device, /dev/stdout in a pipeline) the package is
// streamed, with the same bytes, and the size is what went through.
func TestPackageThroughAPipe(t *testing.T) {
	base := task(t)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	n := write(t, w, true, base)
	require.NoError(t, w.Close())
	assert.Equal(t, want, string(<-got))
	assert.Equal(t, int64(len(want)), n)
}

// Every git call puts the range after --end-of-options: a BASE that reads
// as an option, should one ever get past the command's check, is a
// revision to git, never an option. Here it names a tag; read as an option,
// it would make git write its output to a file named pwned..HEAD.
func TestRangeIsNeverAnOption(t *testing.T) {
	base := task(t)
	res := testutil.RunIn(".", os.Environ(), "git", "update-ref", "refs/tags/--output=pwned", base)
	require.Equal(t, 0, res.Code, res.Stderr)
	before, err := os.ReadDir(".")
	require.NoError(t, err)
	out, err := os.Create(filepath.Join(t.TempDir(), "out.diff"))
	require.NoError(t, err)
	defer out.Close()
	write(t, out, true, "--output=pwned")
	b, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(want, base, "--output=pwned", 1), string(b))
	after, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Equal(t, before, after, "no file made by git")
}

// A package that cannot be written is a *git.WriteError: the output's
// failure, not git's.
func TestUnwritableOutput(t *testing.T) {
	base := task(t)
	p := filepath.Join(t.TempDir(), "out.diff")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	ro, err := os.Open(p) // open for reading only
	require.NoError(t, err)
	defer ro.Close()
	_, _, err = reviewpkg.Write(context.Background(), git.New(os.Stderr), reviewpkg.Output{File: ro}, base, "HEAD")
	var we *git.WriteError
	assert.ErrorAs(t, err, &we)
}
