//go:build !windows

package e2e

// Faults injected around the real binaries: full disks, file size limits,
// signals, git dying or failing half-way, corrupt objects, read-only
// directories. In every case: a clear message, a documented status, no
// partial or temporary file, and an existing OUTFILE unchanged.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// withPath returns env with PATH replaced by dirs (then the real PATH).
func withPath(env []string, dirs ...string) []string {
	out := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator)))
}

// faultyGit puts a `git` first on PATH that runs the real git, except for
// `git diff -U10 …`, where it runs body (bash) with $REAL set.
func faultyGit(t *testing.T, body string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/usr/bin/env bash
REAL=%q
if [ "$1" = diff ] && [ "$2" = -U10 ]; then
%s
fi
exec "$REAL" "$@"
`, real, body)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	return dir
}

// bigRepo is a repository with one commit adding size bytes of text, and a
// plan; it returns the repository and the range's base.
func bigRepo(t *testing.T, size int) (*testutil.Repo, string) {
	t.Helper()
	r := planRepo(t)
	base := r.Commit("plan")
	line := strings.Repeat("z", 99) + "\n"
	r.Commit("big", "big.txt", strings.Repeat(line, size/100))
	return r, base
}

func TestFullDeviceIsAnIOError(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	r := testutil.NewRepo(t)
	base := twoCommits(r, twoTasks)
	res := r.Run("", "task-brief", "plan.md", "1", "/dev/full")
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "task-brief: /dev/full: no space left on device\n", res.Stderr)
	assert.Empty(t, res.Stdout)
	res = r.Run("", "review-package", "plan.md", base, "HEAD", "/dev/full")
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "review-package: /dev/full: no space left on device\n", res.Stderr)
	assert.Empty(t, res.Stdout)
}

// underFileSizeLimit runs a command of bins with RLIMIT_FSIZE set to
// blocks KiB.
func underFileSizeLimit(r *testutil.Repo, bins string, blocks int, name string, args ...string) testutil.Result {
	bin := filepath.Join(bins, name)
	return testutil.RunIn(r.Root, r.Env, "bash", append([]string{"-c", "ulimit -f " + strconv.Itoa(blocks) + ` && exec "$0" "$@"`, bin}, args...)...)
}

// A marker that cannot be written (here: a file size limit) is a message
// naming the marker, never the temporary file it was written to nor its
// directory, and nothing is left in the workspace.
func TestMarkerThatCannotBeWrittenIsNamed(t *testing.T) {
	t.Parallel()
	eachBuild(t, markerThatCannotBeWrittenIsNamed)
}

func markerThatCannotBeWrittenIsNamed(t *testing.T, bins string) {
	r := planRepo(t)
	res := underFileSizeLimit(r, bins, 0, "sdd-workspace", "plan.md")
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "sdd-workspace: "+filepath.Join(ws(r, "plan"), "plan-path")+": file too large\n", res.Stderr)
	assert.Empty(t, res.Stdout)
	entries, err := os.ReadDir(ws(r, "plan"))
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestFileSizeLimitLeavesNothing(t *testing.T) { eachBuild(t, fileSizeLimitLeavesNothing) }

func fileSizeLimitLeavesNothing(t *testing.T, bins string) {
	r, base := bigRepo(t, 400_000)
	plan := "## Task 1\n" + strings.Repeat("a line of the task that goes on\n", 20_000)
	r.Write("big-plan.md", plan)
	r.Write("old.md", "old brief\n")

	res := underFileSizeLimit(r, bins, 64, "task-brief", "big-plan.md", "1", "old.md")
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "task-brief: old.md: file too large\n", res.Stderr)
	assert.Equal(t, "old brief\n", readFile(t, filepath.Join(r.Root, "old.md")))

	res = underFileSizeLimit(r, bins, 64, "task-brief", "big-plan.md", "1", "new.md")
	assert.Equal(t, 1, res.Code)
	assert.NoFileExists(t, filepath.Join(r.Root, "new.md"))

	res = underFileSizeLimit(r, bins, 64, "review-package", "plan.md", base, "HEAD", "old.md")
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "review-package: old.md: file too large\n", res.Stderr)
	assert.Equal(t, "old brief\n", readFile(t, filepath.Join(r.Root, "old.md")))

	res = underFileSizeLimit(r, bins, 64, "review-package", "plan.md", base, "HEAD")
	assert.Equal(t, 1, res.Code)
	assert.Contains(t, res.Stderr, filepath.Join(ws(r, "plan"), "review-"))
	assertNoPackages(t, ws(r, "plan"))
	assertNoTemps(t, r.Root)
}

// Signals (docs/spec.md, every command): SIGINT, SIGTERM and SIGHUP stop
// git, remove the temporary file and end the command by that same signal,
// as its parent (a shell loop, timeout, an agent host) sees the script end.
func TestSignalsStopALongPackage(t *testing.T) { eachBuild(t, signalsStopALongPackage) }

func signalsStopALongPackage(t *testing.T, bins string) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r, base := bigRepo(t, 200_000)
			pidFile := filepath.Join(t.TempDir(), "pid")
			// git writes part of the diff, then hangs holding the pipe.
			fake := faultyGit(t, `"$REAL" "$@" | head -c 50000; echo $$ > `+pidFile+`; exec sleep 60`)
			r.Write("old.diff", "old package\n")
			cmd := exec.Command(filepath.Join(bins, "review-package"), "plan.md", base, "HEAD", "old.diff")
			cmd.Dir, cmd.Env = r.Root, withPath(r.Env, fake)
			require.NoError(t, cmd.Start())
			pid := waitForPID(t, pidFile)
			start := time.Now()
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			elapsed := time.Since(start)
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			status := ee.Sys().(syscall.WaitStatus)
			assert.True(t, status.Signaled(), "died by a signal, not exit(%d)", status.ExitStatus())
			assert.Equal(t, sig, status.Signal())
			assert.Less(t, elapsed, 2*time.Second, "exits promptly")
			assert.Equal(t, "old package\n", readFile(t, filepath.Join(r.Root, "old.diff")))
			assertNoTemps(t, r.Root)
			// git (here the wrapper, now `sleep`) was stopped.
			waitFor(t, func() bool { return ended(pid) })
		})
	}
}

// Even SIGKILL, which nothing can catch, leaves no temporary file and no
// git behind on Linux: outputs are unnamed until published, and git gets
// SIGTERM when its parent dies.
func TestSIGKILLLeavesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed temporary files and parent-death signals are Linux's")
	}
	r, base := bigRepo(t, 200_000)
	pidFile := filepath.Join(t.TempDir(), "pid")
	fake := faultyGit(t, `"$REAL" "$@" | head -c 50000; echo $$ > `+pidFile+`; exec sleep 60`)
	r.Write("old.diff", "old package\n")
	for _, out := range [][]string{{"old.diff"}, nil} { // an explicit OUTFILE, the default one
		require.NoError(t, os.RemoveAll(pidFile))
		cmd := exec.Command(testutil.Bin(t, "review-package"), append([]string{"plan.md", base, "HEAD"}, out...)...)
		cmd.Dir, cmd.Env = r.Root, withPath(r.Env, fake)
		require.NoError(t, cmd.Start())
		pid := waitForPID(t, pidFile)
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		waitFor(t, func() bool { return ended(pid) })
		assert.Equal(t, "old package\n", readFile(t, filepath.Join(r.Root, "old.diff")))
		assertNoTemps(t, r.Root)
		assertNoPackages(t, ws(r, "plan"))
	}
}

// A signal while the revisions are being checked ends the command by that
// signal and nothing else: no "bad BASE" for a revision git never judged.
func TestSignalWhileCheckingRevisionsSaysNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r, base := bigRepo(t, 1000)
			real, err := exec.LookPath("git")
			require.NoError(t, err)
			pidFile := filepath.Join(t.TempDir(), "pid")
			dir := t.TempDir()
			script := fmt.Sprintf("#!/usr/bin/env bash\nif [ \"$1 $2\" = \"rev-parse --verify\" ]; then echo $$ > %s; exec sleep 60; fi\nexec %q \"$@\"\n", pidFile, real)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
			cmd := exec.Command(testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", "out.diff")
			cmd.Dir, cmd.Env = r.Root, withPath(r.Env, dir)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			waitFor(t, func() bool { b, _ := os.ReadFile(pidFile); return len(b) > 0 })
			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			status := ee.Sys().(syscall.WaitStatus)
			assert.True(t, status.Signaled() && status.Signal() == sig, "died of %v", sig)
			assert.Empty(t, stderr.String())
			assert.Empty(t, stdout.String())
			assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
		})
	}
}

// A signal ignored by whoever started the command (`trap ” INT`,
// `nohup`) stays ignored: the package is written all the same.
func TestIgnoredSignalStaysIgnored(t *testing.T) { eachBuild(t, ignoredSignalStaysIgnored) }

func ignoredSignalStaysIgnored(t *testing.T, bins string) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			r, base := bigRepo(t, 20_000)
			started := filepath.Join(t.TempDir(), "started")
			fake := faultyGit(t, `: > `+started+`; sleep 1; exec "$REAL" "$@"`)
			bin := filepath.Join(bins, "review-package")
			want := testutil.RunIn(r.Root, r.Env, bin, "plan.md", base, "HEAD", "want.diff")
			require.Equal(t, 0, want.Code, want.Stderr)
			name := map[syscall.Signal]string{syscall.SIGINT: "INT", syscall.SIGHUP: "HUP"}[sig]
			cmd := exec.Command("bash", "-c", "trap '' "+name+`; exec "$0" "$@"`, bin, "plan.md", base, "HEAD", "got.diff")
			cmd.Dir, cmd.Env = r.Root, withPath(r.Env, fake)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
			require.NoError(t, cmd.Process.Signal(sig))
			require.NoError(t, cmd.Wait(), stderr.String())
			assert.Equal(t, readFile(t, filepath.Join(r.Root, "want.diff")), readFile(t, filepath.Join(r.Root, "got.diff")))
		})
	}
}

// waitForPID waits until a git stand-in has written its pid to pidFile and
// returns it.
func waitForPID(t *testing.T, pidFile string) int {
	t.Helper()
	var pid int
	waitFor(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// ended says whether the process pid has ended: it is gone, or a zombie.
// A zombie has stopped; it waits only for its reaper, and an orphan's
// reaper is the machine's init, which in some containers reaps once a
// second or two (this one's did: every signal case waited 2 s for it).
func ended(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // no /proc (not Linux): only gone counts
	}
	// pid (comm) S …: the state follows the last ')', comm may hold any.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestGitDyingMidStreamLeavesNoPackage(t *testing.T) {
	t.Parallel()
	eachBuild(t, gitDyingMidStreamLeavesNoPackage)
}

func gitDyingMidStreamLeavesNoPackage(t *testing.T, bins string) {
	cases := []struct {
		name, body string
		status     int
		stderr     string
	}{
		{"killed", `"$REAL" "$@" | head -c 3000; kill -KILL $$`, 128 + 9, ""},
		{"fails after output", `"$REAL" "$@" | head -c 3000; echo "fatal: injected failure" >&2; exit 7`, 7, "fatal: injected failure\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, base := bigRepo(t, 100_000)
			env := withPath(r.Env, faultyGit(t, c.body))
			res := failedPackage(t, r, func(args ...string) testutil.Result {
				return testutil.RunIn(r.Root, env, filepath.Join(bins, "review-package"), args...)
			}, base, "HEAD", c.status)
			assert.Equal(t, c.stderr, res.Stderr)
			assert.Empty(t, res.Stdout)
		})
	}
}

func TestCorruptObjectPassesGitsFailureThrough(t *testing.T) {
	t.Parallel()
	eachBuild(t, corruptObjectPassesGitsFailureThrough)
}

func corruptObjectPassesGitsFailureThrough(t *testing.T, bins string) {
	r := planRepo(t)
	base := r.Commit("plan")
	r.Commit("add", "f.txt", "content that will be lost\n")
	blob := r.Git("rev-parse", "HEAD:f.txt")
	obj := filepath.Join(r.Root, ".git", "objects", blob[:2], blob[2:])
	require.NoError(t, os.Remove(obj))
	res := r.RunBuild(bins, "", "review-package", "plan.md", base, "HEAD", "out.diff")
	assert.Equal(t, 128, res.Code)
	assert.Contains(t, res.Stderr, "fatal: ")
	assert.Contains(t, res.Stderr, blob[:7])
	assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
	assertNoTemps(t, r.Root)
}

// trustAnyOwner has git trust r, with r's HOME, whichever user owns it
// (safe.directory): the tests run a command as another user there.
func trustAnyOwner(t *testing.T, r *testutil.Repo) {
	t.Helper()
	home := filepath.Join(filepath.Dir(r.Root), "home")
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[safe]\n\tdirectory = *\n"), 0o644))
}

// asUnprivileged runs prog as nobody when the tests run as root (root
// ignores permission bits); otherwise as the current user.
func asUnprivileged(t *testing.T, dir string, env []string, prog string, args ...string) testutil.Result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee)
		code = ee.ExitCode()
	}
	return testutil.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

func TestReadOnlyDirectories(t *testing.T) {
	t.Parallel()
	r := testutil.NewSharedRepo(t)
	r.Write("plan.md", twoTasks)
	r.Commit("plan")
	trustAnyOwner(t, r)
	bins, err := testutil.BuildBinaries()
	require.NoError(t, err)

	// The repository root is not writable by the unprivileged user: no
	// workspace can be made.
	res := asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "sdd-workspace"), "plan.md")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Equal(t, "sdd-workspace: "+filepath.Join(r.Root, ".superpowers")+": permission denied\n", res.Stderr)
	assert.NoDirExists(t, filepath.Join(r.Root, ".superpowers"))

	// The workspace exists but is read-only: no brief, no package. (The
	// .gitignore beside it stays writable: it is rewritten on every call.)
	res = r.Run("", "sdd-workspace", "plan.md")
	require.Equal(t, 0, res.Code)
	testutil.Chmod(t, ws(r, "plan"), 0o555)
	testutil.Chmod(t, filepath.Join(r.Root, ".superpowers", "sdd", ".gitignore"), 0o666)
	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "1")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Equal(t, "task-brief: "+filepath.Join(ws(r, "plan"), "task-1-brief.md")+": permission denied\n", res.Stderr)
	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "review-package"), "plan.md", "HEAD", "HEAD")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, ": permission denied\n")
	entries, err := os.ReadDir(ws(r, "plan"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the marker")

	// An explicit OUTFILE in a read-only directory.
	require.NoError(t, os.Mkdir(filepath.Join(r.Root, "ro"), 0o555))
	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "1", "ro/out.md")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Equal(t, "task-brief: ro/out.md: permission denied\n", res.Stderr)
	// A read-only OUTFILE is refused as the shell's `>` refuses it, even
	// though its directory would allow a rename over it.
	r.Write("rw/locked.md", "locked\n")
	testutil.Chmod(t, filepath.Join(r.Root, "rw"), 0o777)
	testutil.Chmod(t, filepath.Join(r.Root, "rw/locked.md"), 0o444)
	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "1", "rw/locked.md")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Equal(t, "task-brief: rw/locked.md: permission denied\n", res.Stderr)
	assert.Equal(t, "locked\n", readFile(t, filepath.Join(r.Root, "rw/locked.md")))
	assertNoTemps(t, r.Root)
}

// Difference 2 (2026-12-03): a workspace the reference scripts made that
// the caller may not write (another user's directory, 0755) is adopted
// without a marker, as the reference uses it: its path, exit 0, and no
// message (never one naming the directory with a stray trailing slash).
// Writing into it then fails as it does for the reference.
func TestUnwritableReferenceWorkspaceIsAdopted(t *testing.T) {
	t.Parallel()
	bins, err := testutil.BuildBinaries()
	require.NoError(t, err)
	setup := func(t *testing.T) *testutil.Repo {
		r := testutil.NewSharedRepo(t)
		r.Write("plan.md", twoTasks)
		r.Commit("plan")
		trustAnyOwner(t, r)
		// What a run of the reference scripts by another user leaves: the
		// workspace (this test's user's, 0755) with a brief in it, and a
		// .gitignore the caller may rewrite.
		r.Write(".superpowers/sdd/plan/task-1-brief.md", "old brief\n")
		testutil.Chmod(t, r.Write(".superpowers/sdd/.gitignore", "*\n"), 0o666)
		if os.Geteuid() != 0 {
			testutil.Chmod(t, ws(r, "plan"), 0o555) // not root: make it unwritable to ourselves
		}
		return r
	}

	r := setup(t)
	res := asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "sdd-workspace"), "plan.md")
	assert.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan")+"\n", res.Stdout)
	assert.Empty(t, res.Stderr)
	assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "plan-path"))
	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "1")
	assert.Equal(t, 1, res.Code, res.Stderr)
	assert.Equal(t, "task-brief: "+filepath.Join(ws(r, "plan"), "task-1-brief.md")+": permission denied\n", res.Stderr)
	assert.Equal(t, "old brief\n", readFile(t, filepath.Join(ws(r, "plan"), "task-1-brief.md")))
	entries, err := os.ReadDir(ws(r, "plan"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing added to the workspace")

	if ref := referenceScripts(t); ref != "" {
		r := setup(t)
		// A copy the other user can read, inside a directory this test made.
		dir := filepath.Join(filepath.Dir(r.Root), "reference")
		require.NoError(t, os.Mkdir(dir, 0o755))
		b, err := os.ReadFile(filepath.Join(ref, "sdd-workspace"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sdd-workspace"), b, 0o755))
		res := asUnprivileged(t, r.Root, r.Env, filepath.Join(dir, "sdd-workspace"), "plan.md")
		assert.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, ws(r, "plan")+"\n", res.Stdout, "the reference")
		assert.Empty(t, res.Stderr)
	}
}

// Difference 3: a writable OUTFILE in a directory where no temporary file
// can be made is written in place, but opened only once the first byte is
// ready: a task that is not found leaves the old brief whole.
func TestInPlaceOutfileIsOpenedOnlyWhenThereIsSomethingToWrite(t *testing.T) {
	t.Parallel()
	eachBuild(t, inPlaceOutfileIsOpenedOnlyWhenThereIsSomethingToWrite)
}

func inPlaceOutfileIsOpenedOnlyWhenThereIsSomethingToWrite(t *testing.T, bins string) {
	r := testutil.NewSharedRepo(t)
	r.Write("plan.md", twoTasks)
	out := r.Write("d/out.md", "old brief\n")
	testutil.Chmod(t, out, 0o666)
	testutil.Chmod(t, filepath.Join(r.Root, "d"), 0o555)

	res := asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "9", "d/out.md")
	assert.Equal(t, 3, res.Code, res.Stderr)
	assert.Equal(t, "task 9 not found in plan.md (no heading matching 'Task 9')\n", res.Stderr)
	assert.Equal(t, "old brief\n", readFile(t, out), "a task not found leaves the file untouched")

	res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "2", "d/out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote d/out.md: 3 lines\n", res.Stdout)
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, out))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o666), fi.Mode().Perm())
	assertNoTemps(t, r.Root)
}

// docs/spec.md tb3: an unreadable plan is exit 2 naming it, and the
// OUTFILE opened before it is not left behind.
func TestUnreadablePlan(t *testing.T) {
	t.Parallel()
	dir := testutil.SharedDir(t)
	bins, err := testutil.BuildBinaries()
	require.NoError(t, err)
	plan := filepath.Join(dir, "plan.md")
	require.NoError(t, os.WriteFile(plan, []byte(twoTasks), 0o600))
	testutil.Chmod(t, plan, 0o000)
	testutil.Chmod(t, dir, 0o777)
	res := asUnprivileged(t, dir, gitenv.Hermetic(dir), filepath.Join(bins, "task-brief"), "plan.md", "1", "out.md")
	assert.Equal(t, 2, res.Code, res.Stderr)
	assert.Equal(t, "task-brief: plan.md: permission denied\n", res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.NoFileExists(t, filepath.Join(dir, "out.md"))
	assertNoTemps(t, dir)
}
