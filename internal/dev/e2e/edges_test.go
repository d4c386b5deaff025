//go:build !windows

package e2e

// Off the beaten path: output paths through symlinks and "..", revisions
// that look like options, a git that cannot start, and --version of a
// plain build. Each case states what the reference does there.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// An OUTFILE goes to the kernel as given: a symlink's relative target is
// read from the link's real directory, and ".." after a symlinked
// directory is the target's parent.
func TestOutfileThroughSymlinkedDirectories(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("work/plan.md", twoTasks)
	base := r.Commit("plan")
	r.Commit("two", "f.txt", "2\n")
	r.Write("other/sub/.keep", "")
	require.NoError(t, os.Symlink("../other/sub", filepath.Join(r.Root, "work/sub")))
	require.NoError(t, os.Symlink("../target.md", filepath.Join(r.Root, "other/sub/out.md")))
	require.NoError(t, os.Symlink("../target.diff", filepath.Join(r.Root, "other/sub/out.diff")))

	// work/sub/out.md is other/sub/out.md -> ../target.md: other/target.md
	// (the reference writes there too; a lexical join wrote work/target.md).
	res := r.Run("work", "task-brief", "plan.md", "1", "sub/out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote sub/out.md: 4 lines\n", res.Stdout)
	assert.Equal(t, "## Task 1: first\n\nDo one.\n\n", readFile(t, filepath.Join(r.Root, "other/target.md")))
	assert.NoFileExists(t, filepath.Join(r.Root, "work/target.md"))

	res = r.Run("work", "review-package", "plan.md", base, "HEAD", "sub/out.diff")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.True(t, strings.HasPrefix(readFile(t, filepath.Join(r.Root, "other/target.diff")), "# Review package: "+base+"..HEAD\n"))
	assert.NoFileExists(t, filepath.Join(r.Root, "work/target.diff"))

	// sub/../x.md is other/x.md, not work/x.md.
	res = r.Run("work", "task-brief", "plan.md", "2", "sub/../x.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote sub/../x.md: 3 lines\n", res.Stdout)
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(r.Root, "other/x.md")))
	assert.NoFileExists(t, filepath.Join(r.Root, "work/x.md"))

	// A link whose relative target climbs through another symlinked
	// directory: chain/out.md -> ../sub/../y.md, read from work/chain's
	// real directory (other/sub): other/sub/../sub/../y.md, i.e. other/y.md.
	r.Write("other/sub/chain/.keep", "")
	require.NoError(t, os.Symlink("../other/sub/chain", filepath.Join(r.Root, "work/chain")))
	require.NoError(t, os.Symlink("../../sub/../y.md", filepath.Join(r.Root, "other/sub/chain/out.md")))
	res = r.Run("work", "task-brief", "plan.md", "2", "chain/out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(r.Root, "other/y.md")))
	assertNoTemps(t, r.Root)
}

// The default OUTFILE built from TASK_NUMBER is a path like any other:
// <workspace>/task-../../../x-brief.md needs <workspace>/task-.. to exist.
// Without it the script's redirection fails (exit 1); so do we, naming
// the path, and no file appears anywhere.
func TestTaskNumberWithDotDotInTheDefaultOutfile(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	require.Equal(t, 0, r.Run("", "sdd-workspace", "plan.md").Code)
	before := snapshot(t, r.Root)
	for _, n := range []string{"../../../x", "../../x", "../x", "1/../../x"} {
		res := r.Run("", "task-brief", "plan.md", n)
		assert.Equal(t, 1, res.Code, "%s: %s", n, res.Stderr)
		out := ws(r, "plan") + "/task-" + n + "-brief.md"
		assert.Equal(t, "task-brief: "+out+": no such file or directory\n", res.Stderr)
		assert.Empty(t, res.Stdout)
	}
	assert.Equal(t, before, snapshot(t, r.Root), "no file appeared")

	// With <workspace>/task-.. there, "../x" names <workspace>/task-../x-brief.md
	// and "../../x" names <workspace>/x-brief.md; neither task is in the
	// plan: exit 3, and no file (the reference leaves an empty one).
	require.NoError(t, os.Mkdir(filepath.Join(ws(r, "plan"), "task-.."), 0o755))
	for n, path := range map[string]string{"../x": "task-../x-brief.md", "../../x": "x-brief.md"} {
		res := r.Run("", "task-brief", "plan.md", n)
		assert.Equal(t, 3, res.Code, res.Stderr)
		assert.NoFileExists(t, filepath.Join(ws(r, "plan"), path))
	}
	assertNoTemps(t, r.Root)
}

// "shm/../out.md", where shm is a link to a directory on another file
// system, is out.md beside that directory: the temporary file is made
// there too, so the rename never crosses file systems.
func TestOutfileDotDotAcrossFileSystems(t *testing.T) {
	t.Parallel()
	other, err := os.MkdirTemp("/dev/shm", "sdd-test-")
	if err != nil {
		t.Skip("no /dev/shm to stand for another file system")
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	r := testutil.NewRepo(t)
	var a, b syscall.Stat_t
	require.NoError(t, syscall.Stat(other, &a))
	require.NoError(t, syscall.Stat(r.Root, &b))
	if a.Dev == b.Dev {
		t.Skip("/dev/shm is on the same file system as the test's directory")
	}
	require.NoError(t, os.Mkdir(filepath.Join(other, "sub"), 0o755))
	r.Write("plan.md", twoTasks)
	require.NoError(t, os.Symlink(filepath.Join(other, "sub"), filepath.Join(r.Root, "shm")))
	res := r.Run("", "task-brief", "plan.md", "2", "shm/../out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote shm/../out.md: 3 lines\n", res.Stdout)
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(other, "out.md")))
	assert.NoFileExists(t, filepath.Join(r.Root, "out.md"))
	assertNoTemps(t, r.Root)
	assertNoTemps(t, other)
}

// Difference 8: a BASE or HEAD that begins with "-" never reaches git, in
// any call, not even one started early and cancelled. A logging git on
// PATH records every argv of every run.
func TestDashRevisionsNeverReachGit(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	require.Equal(t, 0, r.Run("", "sdd-workspace", "plan.md").Code)
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	logDir := t.TempDir()
	log := filepath.Join(logDir, "argv")
	wrapper := filepath.Join(t.TempDir(), "git")
	// One line per run, arguments separated by US (0x1f).
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/usr/bin/env bash\n(IFS=$'\\x1f'; printf '%s\\n' \"$*\") >> "+log+"\nexec "+real+" \"$@\"\n"), 0o755))
	env := withPath(r.Env, filepath.Dir(wrapper))
	escape := filepath.Join(logDir, "escape")
	before := snapshot(t, r.Root)

	revs := []string{"--output=" + escape, "-n", "--all", "-", "--output=x", "-c"}
	bin := testutil.Bin(t, "review-package")
	runs := 0
	rounds := 6
	if testing.Short() {
		rounds = 1 // a git started early and cancelled shows in some rounds; make test-full runs six
	}
	for round := 0; round < rounds; round++ {
		for _, rev := range revs {
			for _, args := range [][]string{
				{"plan.md", rev, "HEAD"}, {"plan.md", "HEAD", rev},
				{"plan.md", rev, "HEAD", "out.diff"}, {"plan.md", "HEAD~1", rev, "out.diff"},
			} {
				res := testutil.RunIn(r.Root, env, bin, args...)
				runs++
				what := "BASE"
				if args[2] == rev {
					what = "HEAD"
				}
				assert.Equal(t, 2, res.Code, "%q", args)
				assert.Equal(t, "bad "+what+": "+rev+"\n", res.Stderr, "%q", args)
				assert.Empty(t, res.Stdout)
			}
		}
	}
	require.Equal(t, 24*rounds, runs)
	logged, err := os.ReadFile(log)
	require.NoError(t, err)
	calls := strings.Split(strings.TrimSuffix(string(logged), "\n"), "\n")
	require.NotEmpty(t, calls, "HEAD-side cases still verify BASE with git")
	for _, call := range calls {
		for _, arg := range strings.Split(call, "\x1f") {
			for _, rev := range revs {
				bad := arg == rev || strings.HasPrefix(arg, rev+"..") || strings.HasSuffix(arg, ".."+rev)
				assert.False(t, bad, "git was handed %q in: git %s", rev, strings.ReplaceAll(call, "\x1f", " "))
			}
		}
	}
	// What `rev-list --count --output=F..HEAD` would have created.
	assert.NoFileExists(t, escape)
	assert.NoFileExists(t, escape+"..HEAD")
	assert.NoFileExists(t, filepath.Join(r.Root, "x..HEAD"))
	assert.Equal(t, before, snapshot(t, r.Root), "no file appeared")
}

// A git that cannot start is reported as the shell reports it, never
// silently: 127 when its #! interpreter is missing, 126 when it may not be
// executed. (The reference, measured: 127 "…/git: cannot execute: required
// file not found"; 126 "…/git: Permission denied"; 126 "…/git: cannot
// execute binary file: Exec format error"; review-package prints that line
// and then "bad BASE: HEAD", exit 2.)
func TestGitThatCannotStart(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	r.Commit("one")
	cases := []struct {
		name, content string
		mode          os.FileMode
		status        int
		reason        string
	}{
		{"missing interpreter", "#!/nonexistent/interpreter\n", 0o755, 127, "cannot execute: required file not found"},
		{"not executable", "#!/bin/sh\nexit 0\n", 0o644, 126, "permission denied"},
		{"not an executable format", "\x7fELF but not really\n", 0o755, 126, "cannot execute binary file: exec format error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			git := filepath.Join(dir, "git")
			require.NoError(t, os.WriteFile(git, []byte(c.content), c.mode))
			env := withPathOnly(r.Env, dir)
			for _, run := range []struct {
				name string
				args []string
			}{
				{"sdd-workspace", []string{"plan.md"}},
				{"task-brief", []string{"plan.md", "1"}},
				{"review-package", []string{"plan.md", "HEAD", "HEAD", "out.diff"}},
			} {
				res := testutil.RunIn(r.Root, env, testutil.Bin(t, run.name), run.args...)
				want, status := run.name+": "+git+": "+c.reason+"\n", c.status
				if run.name == "review-package" {
					want, status = want+"bad BASE: HEAD\n", 2
				}
				assert.Equal(t, status, res.Code, run.name)
				assert.Equal(t, want, res.Stderr, run.name)
				assert.Empty(t, res.Stdout)
			}
			assert.NoDirExists(t, filepath.Join(r.Root, ".superpowers"))
			assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
		})
	}
}

// withPathOnly returns env with PATH set to dirs alone.
func withPathOnly(env []string, dirs ...string) []string {
	out := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+strings.Join(dirs, string(os.PathListSeparator)))
}

// --version of a plain `go build` (no -ldflags stamp, as `go install` and
// a user's own build make it) names the module version git gives the
// checkout, not "dev".
func TestVersionOfAPlainBuild(t *testing.T) {
	t.Parallel()
	root := testutil.ModuleRoot()
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("the module is not a git checkout: a plain build has no version to record")
	}
	out := t.TempDir()
	build := exec.Command("go", "build", "-o", out+"/", "./cmd/sdd-workspace")
	build.Dir = root
	// The go command's own default, whatever this machine's go env says
	// (an empty GOFLAGS would fall back to it).
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	b, err := build.CombinedOutput()
	require.NoError(t, err, string(b))
	m, err := exec.Command("go", "version", "-m", filepath.Join(out, "sdd-workspace")).Output()
	require.NoError(t, err)
	var modVersion, revision string
	for _, line := range strings.Split(string(m), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			modVersion = f[2]
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	require.NotEmpty(t, modVersion)
	if modVersion == "(devel)" && revision == "" {
		// A linked worktree (.git is a file), for one: go build records
		// no version there, and "dev" is then the right answer.
		t.Skip("go build recorded neither a module version nor a commit in this checkout")
	}
	res := testutil.RunIn(root, os.Environ(), filepath.Join(out, "sdd-workspace"), "--version")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.NotEqual(t, "sdd-workspace dev\n", res.Stdout)
	if modVersion != "(devel)" {
		assert.Equal(t, "sdd-workspace "+modVersion+"\n", res.Stdout)
	} else {
		assert.Regexp(t, `^sdd-workspace devel-`+revision[:12]+`(\+dirty)?\n$`, res.Stdout)
	}
}

// A git in a relative PATH entry ("." here) is never run: it is not the
// system git, and on Windows any git.exe in the current directory would
// be. The search goes on in the absolute entries.
func TestGitInARelativePathEntryIsPassedOver(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	ran := filepath.Join(t.TempDir(), "ran")
	r.Write("git", "#!/bin/sh\n: > "+ran+"\nexit 1\n")
	testutil.Chmod(t, filepath.Join(r.Root, "git"), 0o755)
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	env := withPathOnly(r.Env, ".", filepath.Dir(real))
	res := testutil.RunIn(r.Root, env, testutil.Bin(t, "sdd-workspace"), "plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan")+"\n", res.Stdout)
	assert.NoFileExists(t, ran)
}
