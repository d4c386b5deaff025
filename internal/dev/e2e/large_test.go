//go:build large && !windows

package e2e

// Multi-gigabyte inputs (make test-large): a 2 GB plan, and a plan whose
// one line is 1 GB, inside the task and outside it. Output byte-exact,
// peak memory of the process under 32 MiB.

import (
	"bufio"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

const maxRSS = 32 << 20

// runMeasured runs a built command and returns its result and peak RSS.
func runMeasured(t *testing.T, dir string, env []string, name string, args ...string) (testutil.Result, int64) {
	t.Helper()
	cmd := exec.Command(testutil.Bin(t, name), args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	t.Logf("%s %v: exit %d, peak RSS %.1f MiB", name, args[1:], code, float64(rss)/(1<<20))
	return testutil.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}, rss
}

// writer streams a plan to disk and hashes the part that task 2 must yield.
type planWriter struct {
	w    *bufio.Writer
	want io.Writer
}

func (p *planWriter) line(s string, inTask bool) {
	p.w.WriteString(s)
	if inTask {
		io.WriteString(p.want, s)
	}
}

func (p *planWriter) repeat(s string, n int64, inTask bool) {
	for i := int64(0); i < n; i++ {
		p.line(s, inTask)
	}
}

func sha256File(t *testing.T, path string) []byte {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return h.Sum(nil)
}

func TestLargePlans(t *testing.T) {
	t.Parallel()
	dir := testutil.RealTempDir(t)
	env := gitenv.Hermetic(dir)
	line := strings.Repeat("0123456789abcdef", 8)[:127] + "\n" // 128 bytes
	cases := []struct {
		name  string
		build func(p *planWriter)
	}{
		{"2 GB plan", func(p *planWriter) {
			p.line("# Plan\n## Task 1\n", false)
			p.repeat(line, 8<<20, false) // 1 GiB before
			p.line("## Task 2: the one\n", true)
			p.repeat(line, 1<<20, true) // 128 MiB in the task
			p.line("## Task 3\n", false)
			p.repeat(line, 7<<20, false) // 896 MiB after
		}},
		{"1GB line inside the task", func(p *planWriter) {
			p.line("## Task 2\r\n", true)
			p.repeat(line[:127], 8<<20, true)
			p.line("\n", true)
			p.line("## Task 3\n", false)
			p.w.WriteString("tail\n")
		}},
		{"1GB line outside the task", func(p *planWriter) {
			p.line("## Task 1 ", false)
			p.repeat(line[:127], 8<<20, false)
			p.line("\n", false)
			p.line("## Task 2\nbody", true)
			io.WriteString(p.want, "\n")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := filepath.Join(dir, "plan.md")
			f, err := os.Create(plan)
			require.NoError(t, err)
			want := sha256.New()
			p := &planWriter{w: bufio.NewWriterSize(f, 1<<20), want: want}
			c.build(p)
			require.NoError(t, p.w.Flush())
			require.NoError(t, f.Close())
			defer os.Remove(plan)

			out := filepath.Join(dir, "brief.md")
			res, rss := runMeasured(t, dir, env, "task-brief", plan, "2", out)
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Less(t, rss, int64(maxRSS))
			assert.Equal(t, want.Sum(nil), sha256File(t, out), "byte-exact")
			os.Remove(out)
		})
	}
}

func TestLargeReviewPackage(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	base := r.Commit("plan")
	// About 300 MB of diff: 30 files of 10 MB of distinct lines.
	for i := 0; i < 30; i++ {
		f, err := os.Create(filepath.Join(r.Root, "file"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".txt"))
		require.NoError(t, err)
		w := bufio.NewWriterSize(f, 1<<20)
		for j := 0; j < 100_000; j++ {
			w.WriteString(strings.Repeat("y", 90))
			w.WriteString("\n")
		}
		require.NoError(t, w.Flush())
		require.NoError(t, f.Close())
	}
	r.Git("add", "-A")
	r.Git("commit", "-qm", "big")
	res, rss := runMeasured(t, r.Root, r.Env, "review-package", "plan.md", base, "HEAD", filepath.Join(r.Root, "pkg.diff"))
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Less(t, rss, int64(maxRSS))
	fi, err := os.Stat(filepath.Join(r.Root, "pkg.diff"))
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(250<<20))
	assert.Contains(t, res.Stdout, " bytes\n")
}
