package e2e

// OUTFILEs that are the process's own descriptors (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N: docs/spec.md diff3, revision of
// 2026-12-03): whatever the kernel finds there is written, through the
// descriptor's file, never replaced by name.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// overlay is what a file holds when head is written over the start of
// body: a success line written through the shell's descriptor (offset 0)
// after the output was written through another.
func overlay(body, head string) string {
	if len(head) >= len(body) {
		return head
	}
	return head + body[len(head):]
}

// outputCase is one command writing to a descriptor path: its arguments
// without the OUTFILE, its output as written to a plain file, and its
// success line for an OUTFILE.
type outputCase struct {
	name string
	args []string
	want string
	line func(out string) string
}

func descriptorCases(t *testing.T, r *testutil.Repo) []outputCase {
	base := twoCommits(r, longTask)
	pkg := packageOf(t, r, base)
	return []outputCase{
		{"task-brief", []string{"plan.md", "1"}, longBrief, func(out string) string { return "wrote " + out + ": 4 lines\n" }},
		{"review-package", []string{"plan.md", base, "HEAD"}, pkg, func(out string) string {
			return fmt.Sprintf("wrote %s: 1 commit(s), %d bytes\n", out, len(pkg))
		}},
	}
}

// eachDescriptorBuild runs f once per build of the output tests
// (eachBuild) with a new repository for descriptorCases and a directory
// for the files the descriptors are open on.
func eachDescriptorBuild(t *testing.T, f func(t *testing.T, bins string, r *testutil.Repo, dir string)) {
	eachBuild(t, func(t *testing.T, bins string) {
		f(t, bins, testutil.NewRepo(t), testutil.RealTempDir(t))
	})
}

// A pipe (a shell pipeline, an agent host reading the command's output) is
// written directly: the output, then the success line, exit 0.
func TestDescriptorOutfileThatIsAPipe(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	for _, c := range descriptorCases(t, r) {
		bin := testutil.Bin(t, c.name)
		for _, out := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
			res := fdRun(t, r.Root, r.Env, bin, nil, append(c.args, out)...)
			assert.Equal(t, 0, res.Code, "%s %s: %s", c.name, out, res.Stderr)
			assert.Equal(t, c.want+c.line(out), res.Stdout, "%s %s", c.name, out)
			assert.Empty(t, res.Stderr)
		}
		res := fdRun(t, r.Root, r.Env, bin, nil, append(c.args, "/dev/stderr")...)
		assert.Equal(t, 0, res.Code, "%s /dev/stderr: %s", c.name, res.Stderr)
		assert.Equal(t, c.want, res.Stderr, c.name)
		assert.Equal(t, c.line("/dev/stderr"), res.Stdout, c.name)

		// /dev/fd/3 open on a pipe the caller reads.
		pr, pw, err := os.Pipe()
		require.NoError(t, err)
		got := make(chan string)
		go func() { b, _ := io.ReadAll(pr); got <- string(b) }()
		res = fdRun(t, r.Root, r.Env, bin, []*os.File{nil, nil, pw}, append(c.args, "/dev/fd/3")...)
		require.NoError(t, pw.Close())
		assert.Equal(t, 0, res.Code, "%s /dev/fd/3: %s", c.name, res.Stderr)
		assert.Equal(t, c.want, <-got, c.name)
		assert.Equal(t, c.line("/dev/fd/3"), res.Stdout, c.name)
		require.NoError(t, pr.Close())
	}
	assertNoTemps(t, r.Root)
	assertOnly(t, r.Root, "plan.md", "f.txt")
}

// A regular file behind the descriptor is written in place, as `>` would
// write it (opened anew by the path, truncated): the same file, never one
// renamed over it. The success line then goes through the shell's own
// descriptor: over the start of the output for `>` (offset 0), after it
// for `>>`.
func TestDescriptorOutfileThatIsARegularFile(t *testing.T) {
	t.Parallel()
	eachDescriptorBuild(t, func(t *testing.T, bins string, r *testutil.Repo, dir string) {
		for _, c := range descriptorCases(t, r) {
			bin := filepath.Join(bins, c.name)
			open := func(flags int) (*os.File, string) {
				p := filepath.Join(dir, "out")
				require.NoError(t, os.WriteFile(p, []byte("old contents, longer than nothing\n"), 0o640))
				f, err := os.OpenFile(p, flags, 0)
				require.NoError(t, err)
				t.Cleanup(func() { f.Close() })
				return f, p
			}
			sameFile := func(f *os.File, p string) {
				a, err := f.Stat()
				require.NoError(t, err)
				b, err := os.Stat(p)
				require.NoError(t, err)
				assert.True(t, os.SameFile(a, b), "%s: written in place, not replaced", c.name)
				assert.Equal(t, os.FileMode(0o640), b.Mode().Perm())
			}

			// `> out`
			f, p := open(os.O_WRONLY | os.O_TRUNC)
			res := fdRun(t, r.Root, r.Env, bin, []*os.File{f}, append(c.args, "/dev/stdout")...)
			assert.Equal(t, 0, res.Code, "%s: %s", c.name, res.Stderr)
			assert.Equal(t, overlay(c.want, c.line("/dev/stdout")), readFile(t, p), c.name)
			sameFile(f, p)

			// `>> out`
			f, p = open(os.O_WRONLY | os.O_APPEND)
			res = fdRun(t, r.Root, r.Env, bin, []*os.File{f}, append(c.args, "/dev/stdout")...)
			assert.Equal(t, 0, res.Code, "%s: %s", c.name, res.Stderr)
			assert.Equal(t, c.want+c.line("/dev/stdout"), readFile(t, p), c.name)
			sameFile(f, p)

			// `3> out`, and `2> out`
			for fd, out := range map[int]string{3: "/dev/fd/3", 2: "/dev/stderr"} {
				f, p = open(os.O_WRONLY)
				files := []*os.File{nil, nil, nil}
				files[fd-1] = f
				res = fdRun(t, r.Root, r.Env, bin, files, append(c.args, out)...)
				assert.Equal(t, 0, res.Code, "%s %s: %s", c.name, out, res.Stderr)
				assert.Equal(t, c.want, readFile(t, p), "%s %s", c.name, out)
				assert.Equal(t, c.line(out), res.Stdout)
				sameFile(f, p)
			}
			assertOnly(t, dir, "out")
		}
		// A task that is not found leaves the file as it was: it is
		// opened only once there is something to write.
		p := filepath.Join(dir, "out")
		require.NoError(t, os.WriteFile(p, []byte("kept\n"), 0o644))
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		require.NoError(t, err)
		defer f.Close()
		res := fdRun(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), []*os.File{nil, nil, f}, "plan.md", "9", "/dev/fd/3")
		assert.Equal(t, 3, res.Code, res.Stderr)
		assert.Equal(t, "kept\n", readFile(t, p))
		assertNoTemps(t, r.Root)
		assertNoTemps(t, dir)
	})
}

// A descriptor open on a deleted file is written through: the data lands
// in the file the descriptor holds, and nothing is made by name (no
// "out (deleted)" beside it).
func TestDescriptorOutfileThatIsADeletedFile(t *testing.T) {
	t.Parallel()
	eachDescriptorBuild(t, func(t *testing.T, bins string, r *testutil.Repo, dir string) {
		for _, c := range descriptorCases(t, r) {
			bin := filepath.Join(bins, c.name)
			for _, fd := range []int{1, 3} {
				p := filepath.Join(dir, "out")
				f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
				require.NoError(t, err)
				require.NoError(t, os.Remove(p))
				files := []*os.File{nil, nil, nil}
				files[fd-1] = f
				out := fmt.Sprintf("/dev/fd/%d", fd)
				res := fdRun(t, r.Root, r.Env, bin, files, append(c.args, out)...)
				assert.Equal(t, 0, res.Code, "%s %s: %s", c.name, out, res.Stderr)
				var got bytes.Buffer
				_, err = f.Seek(0, io.SeekStart)
				require.NoError(t, err)
				_, err = got.ReadFrom(f)
				require.NoError(t, err)
				want := c.want
				if fd == 1 {
					want = overlay(want, c.line(out))
				} else {
					assert.Equal(t, c.line(out), res.Stdout)
				}
				assert.Equal(t, want, got.String(), "%s %s", c.name, out)
				require.NoError(t, f.Close())
				assertOnly(t, dir)
			}
		}
		assertNoTemps(t, r.Root)
	})
}

// A descriptor that is not open is a path that does not exist, as for the
// shell's `>`: exit 1 naming it, and nothing made.
func TestDescriptorOutfileThatIsNotOpen(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	for _, task := range []string{"1", "9"} {
		res := r.Run("", "task-brief", "plan.md", task, "/dev/fd/9")
		assert.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "task-brief: /dev/fd/9: no such file or directory\n", res.Stderr)
		assert.Empty(t, res.Stdout)
	}
}
