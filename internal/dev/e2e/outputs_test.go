//go:build !windows

package e2e

// Output files at the edges (docs/spec.md diff3, every-outfile-error,
// revision of 2026-12-03): a replace that the directory forbids, an OUTFILE
// with a trailing slash, and the standard descriptors closed or unwritable.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// longTask's brief (task 1) is longer than a success line, so that a line
// written over its start shows.
const longTask = "## Task 1: long\n" + "one line of the task\n" + "two lines of the task\n" + "three lines of the task\n" + "## Task 2: short\nx\n"

// twoCommits writes plan as r's plan.md and commits two changes of f.txt
// on it; base is the first commit.
func twoCommits(r *testutil.Repo, plan string) (base string) {
	r.Write("plan.md", plan)
	base = r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	return base
}

// packageOf is the package review-package writes of base..HEAD to a
// plain file (removed again): what an OUTFILE of any other kind must hold.
func packageOf(t *testing.T, r *testutil.Repo, base string) string {
	t.Helper()
	res := r.Run("", "review-package", "plan.md", base, "HEAD", "want.diff")
	require.Equal(t, 0, res.Code, res.Stderr)
	pkg := readFile(t, filepath.Join(r.Root, "want.diff"))
	require.NoError(t, os.Remove(filepath.Join(r.Root, "want.diff")))
	return pkg
}

const longBrief = "## Task 1: long\n" + "one line of the task\n" + "two lines of the task\n" + "three lines of the task\n"

// assertOnly fails unless dir holds exactly names (and .git).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		if e.Name() != ".git" {
			got = append(got, e.Name())
		}
	}
	assert.ElementsMatch(t, names, got)
}

// Where the rename cannot be made (EPERM from rename in a sticky
// directory: another user's file), the file is written in place as `>`
// writes it: same file, same owner and mode, complete contents, exit 0.
func TestReplaceForbiddenByStickyDirectoryIsWrittenInPlace(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run the command as another user")
	}
	eachBuild(t, func(t *testing.T, bins string) {
		r := testutil.NewSharedRepo(t)
		base := twoCommits(r, longTask)
		trustAnyOwner(t, r)
		pkg := packageOf(t, r, base)

		sticky := filepath.Join(r.Root, "sticky")
		require.NoError(t, os.Mkdir(sticky, 0o755))
		testutil.Chmod(t, sticky, 0o777|os.ModeSticky)
		for _, c := range []struct {
			name string
			args []string
			want string
		}{
			{"task-brief", []string{"plan.md", "1", "sticky/out.md"}, longBrief},
			{"review-package", []string{"plan.md", base, "HEAD", "sticky/out.md"}, pkg},
		} {
			out := filepath.Join(sticky, "out.md")
			require.NoError(t, os.WriteFile(out, []byte("root's old file\n"), 0o644))
			testutil.Chmod(t, out, 0o666)
			before, err := os.Stat(out)
			require.NoError(t, err)

			res := asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, c.name), c.args...)
			assert.Equal(t, 0, res.Code, "%s: %s", c.name, res.Stderr)
			assert.Empty(t, res.Stderr)
			assert.Equal(t, c.want, readFile(t, out), c.name)
			after, err := os.Stat(out)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before, after), "%s: the same file, written in place", c.name)
			assert.Equal(t, uint32(0), after.Sys().(*syscall.Stat_t).Uid, "%s: still root's", c.name)
			assert.Equal(t, os.FileMode(0o666), after.Mode().Perm())
			assertOnly(t, sticky, "out.md")
			require.NoError(t, os.Remove(out))
		}
	})
}

// An OUTFILE with a trailing slash names a directory: open(2) creates no
// file by it, and the reason is the one the shell's `>` reports (on Linux
// "is a directory" for a missing d2/, where the directory above exists).
// Nothing is made.
func TestOutfileWithATrailingSlash(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	base := r.Commit("one", "f.txt", "1\n")
	r.Write("file", "x\n")
	for _, out := range []string{"d2/", "nodir/d2/", "file/"} {
		reason := shellRedirectionReason(t, r.Root, out)
		if runtime.GOOS == "linux" && out == "d2/" {
			require.Equal(t, "is a directory", reason)
		}
		res := r.Run("", "task-brief", "plan.md", "1", out)
		assert.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "task-brief: "+out+": "+reason+"\n", res.Stderr)
		assert.Empty(t, res.Stdout)
		res = r.Run("", "review-package", "plan.md", base, "HEAD", out)
		assert.Equal(t, 1, res.Code, res.Stderr)
		assert.Equal(t, "review-package: "+out+": "+reason+"\n", res.Stderr)
	}
	assertOnly(t, r.Root, "plan.md", "f.txt", "file")
}

// shellRedirectionReason is why bash's `: > out` fails in dir, in the
// words (lower case) the commands use.
func shellRedirectionReason(t *testing.T, dir, out string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", `: > "$0"`, out)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	require.Error(t, err, "bash made %s", out)
	msg := strings.TrimSpace(string(b))
	return strings.ToLower(msg[strings.LastIndex(msg, ": ")+2:])
}

// shRun runs a command from a bash that first applies redirections (such
// as ">&-") to it, in the repository.
func shRun(t *testing.T, r *testutil.Repo, redirections, bin string, args ...string) testutil.Result {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", `exec "$0" "$@" ` + redirections, bin}, args...)...)
	cmd.Dir, cmd.Env = r.Root, r.Env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := testutil.Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		res.Code = ee.ExitCode()
	}
	return res
}

// A success line that cannot be written (stdout full, or open only for
// reading) fails the command: exit 1 and a message on stderr, as the
// script's echo fails. The output itself is written.
func TestSuccessLineThatCannotBeWritten(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	base := twoCommits(r, twoTasks)
	for _, c := range []struct{ redirection, reason string }{
		{">/dev/full", "no space left on device"},
		{"</dev/null 1<&0", "bad file descriptor"},
	} {
		if _, err := os.Stat("/dev/full"); err != nil && c.redirection == ">/dev/full" {
			continue // not on macOS
		}
		res := shRun(t, r, c.redirection, testutil.Bin(t, "task-brief"), "plan.md", "1", "out.md")
		assert.Equal(t, 1, res.Code, c.redirection)
		assert.Equal(t, "task-brief: write error: "+c.reason+"\n", res.Stderr, c.redirection)
		assert.Equal(t, "## Task 1: first\n\nDo one.\n\n", readFile(t, filepath.Join(r.Root, "out.md")))
		res = shRun(t, r, c.redirection, testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", "out.diff")
		assert.Equal(t, 1, res.Code, c.redirection)
		assert.Equal(t, "review-package: write error: "+c.reason+"\n", res.Stderr, c.redirection)
		assert.FileExists(t, filepath.Join(r.Root, "out.diff"))
		res = shRun(t, r, c.redirection, testutil.Bin(t, "sdd-workspace"), "plan.md")
		assert.Equal(t, 1, res.Code, c.redirection)
		assert.Equal(t, "sdd-workspace: write error: "+c.reason+"\n", res.Stderr, c.redirection)
	}
}

// Standard descriptors closed at start: nothing of the command's lands in
// a file that took descriptor 0, 1 or 2 (the output goes to OUTFILE whole,
// nothing else is made), and the statuses are the script's.
//
// The one exception is the status with stdout closed: the script's echo
// fails there (exit 1), ours succeeds. Before main runs, the Go runtime
// (1.22 and later, runtime.checkfds) opens /dev/null read-write on a
// closed 0, 1 or 2, so a closed stdout can no longer be told from one that
// a caller pointed at /dev/null read-write (Node's stdio "ignore", Python's
// subprocess.DEVNULL), where exit 0 is right; the success line then goes
// to /dev/null.
func TestClosedStandardDescriptors(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	base := twoCommits(r, twoTasks)
	for _, redirection := range []string{"<&-", ">&-", "2>&-", "<&- >&- 2>&-"} {
		stdoutOpen := !strings.Contains(redirection, ">&-")
		res := shRun(t, r, redirection, testutil.Bin(t, "task-brief"), "plan.md", "1", "out.md")
		if stdoutOpen {
			assert.Equal(t, 0, res.Code, redirection)
		}
		assert.Equal(t, "## Task 1: first\n\nDo one.\n\n", readFile(t, filepath.Join(r.Root, "out.md")))
		res = shRun(t, r, redirection, testutil.Bin(t, "task-brief"), "plan.md", "9", "out.md")
		assert.Equal(t, 3, res.Code, redirection)
		assert.Equal(t, "## Task 1: first\n\nDo one.\n\n", readFile(t, filepath.Join(r.Root, "out.md")))
		res = shRun(t, r, redirection, testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", "out.diff")
		if stdoutOpen {
			assert.Equal(t, 0, res.Code, redirection)
		}
		assert.True(t, strings.HasPrefix(readFile(t, filepath.Join(r.Root, "out.diff")), "# Review package: "+base+"..HEAD\n"))
		res = shRun(t, r, redirection, testutil.Bin(t, "review-package"), "plan.md", "nope", "HEAD", "bad.diff")
		assert.Equal(t, 2, res.Code, redirection)
		assertOnly(t, r.Root, "plan.md", "f.txt", "out.md", "out.diff")
		require.NoError(t, os.Remove(filepath.Join(r.Root, "out.md")))
		require.NoError(t, os.Remove(filepath.Join(r.Root, "out.diff")))
	}
}
