//go:build !windows

package e2e

// Paths the second adversarial review (2026-12-04) found the script to
// handle where ours failed: no PATH at all (every-git), a candidate
// workspace name over the file system's name limit (diff2), a plan that
// is an open but deleted file (diff2, every-kernel-paths); and the rule
// that came with them: no failure leaves .superpowers/sdd/ without its
// .gitignore (ws5). Each case runs the reference beside ours when
// SDD_REFERENCE is set.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// withoutVar returns env without the variable key.
func withoutVar(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// bashDefaultPath is the PATH bash 5.2 searches when none is set
// (DEFAULT_PATH_VALUE of its config-top.h; measured on Debian 12 with
// `env -u PATH bash -c 'echo $PATH'`).
const bashDefaultPath = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."

// recordingDiff returns the environment that has git run a helper of its
// own while it makes a diff, and the file in which that helper records
// the PATH it was given, a line a run: what git's own helpers get (git
// fills in its own default when it was started without PATH, as bash
// starts it). The helper is a textconv filter
// (core.attributesFile and diff.rec.textconv in GIT_CONFIG_*), which
// `git diff` runs whether or not external diff programs are allowed
// (review-package refuses them: diff12); it runs for each side of each
// file, in --stat as in -U10, so callers compare the PATHs seen, not the
// number of lines.
func recordingDiff(t *testing.T) (env []string, seen string) {
	t.Helper()
	dir := t.TempDir()
	seen = filepath.Join(dir, "seen")
	rec := filepath.Join(dir, "rec")
	require.NoError(t, os.WriteFile(rec, []byte("#!/bin/sh\nprintf '%s\\n' \"${PATH-unset}\" >> '"+seen+"'\nexec /bin/cat \"$1\"\n"), 0o755))
	attrs := filepath.Join(dir, "attributes")
	require.NoError(t, os.WriteFile(attrs, []byte("* diff=rec\n"), 0o644))
	return []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.attributesFile", "GIT_CONFIG_VALUE_0=" + attrs,
		"GIT_CONFIG_KEY_1=diff.rec.textconv", "GIT_CONFIG_VALUE_1=" + rec}, seen
}

// pathsSeen are the distinct PATHs recorded in seen, sorted.
func pathsSeen(t *testing.T, seen string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(readFile(t, seen), "\n"), "\n")
	slices.Sort(lines)
	return slices.Compact(lines)
}

// every-git (2026-12-04): with PATH unset (not empty), git is the first
// one in the default path bash searches then, as the script finds it, and
// it is started without PATH, as bash starts it (bash does not export its
// default), so git's own helpers get git's default. PATH set but empty
// keeps 127. The reference, measured: exit 0 for all three, a package
// byte for byte ours.
func TestGitWithoutPATH(t *testing.T) {
	t.Parallel()
	found := false
	for _, d := range strings.Split(bashDefaultPath, ":") {
		if fi, err := os.Stat(d + "/git"); err == nil && fi.Mode().IsRegular() && strings.HasPrefix(d, "/") {
			found = true
		}
	}
	if !found {
		t.Skip("no git in bash's default path on this machine")
	}
	extra, seen := recordingDiff(t)
	setup := func(t *testing.T) (*testutil.Repo, string) {
		r := testutil.NewRepo(t)
		base := r.Commit("plan", "plan.md", twoTasks, "f.txt", "one\n")
		r.Commit("change", "f.txt", "two\n")
		return r, base
	}
	runAll := func(t *testing.T, r *testutil.Repo, base string, prog func(name string) string) []testutil.Result {
		env := append(withoutVar(r.Env, "PATH"), extra...)
		require.NoError(t, os.RemoveAll(seen))
		var out []testutil.Result
		for _, c := range [][]string{{"sdd-workspace", "plan.md"}, {"task-brief", "plan.md", "1"}, {"review-package", "plan.md", base, "HEAD"}} {
			out = append(out, testutil.RunIn(r.Root, env, prog(c[0]), c[1:]...))
		}
		return out
	}

	r, base := setup(t)
	ours := runAll(t, r, base, func(name string) string { return testutil.Bin(t, name) })
	for i, res := range ours {
		require.Equal(t, 0, res.Code, "call %d: %s", i, res.Stderr)
		assert.Empty(t, res.Stderr)
	}
	assert.Equal(t, ws(r, "plan")+"\n", ours[0].Stdout)
	assert.Equal(t, "wrote "+filepath.Join(ws(r, "plan"), "task-1-brief.md")+": 4 lines\n", ours[1].Stdout)
	assert.Contains(t, ours[2].Stdout, "wrote "+filepath.Join(ws(r, "plan"), "review-"))
	oursSeen := pathsSeen(t, seen)

	// The oracle for what git's helpers see: bash itself starting git
	// with no PATH.
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(seen))
	res := testutil.RunIn(r.Root, append(withoutVar(r.Env, "PATH"), extra...), bash, "-c", "git diff -U10 "+base+" HEAD >/dev/null")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, pathsSeen(t, seen), oursSeen, "git's helpers see the PATH they see under bash")
	assert.NotContains(t, oursSeen, "unset")

	if ref := referenceScripts(t); ref != "" {
		rr, rbase := setup(t)
		require.Equal(t, base, rbase)
		theirs := runAll(t, rr, rbase, func(name string) string { return filepath.Join(ref, name) })
		for i := range theirs {
			assert.Equal(t, theirs[i].Code, ours[i].Code, "call %d", i)
			assert.Equal(t, strings.ReplaceAll(theirs[i].Stdout, rr.Root, r.Root), ours[i].Stdout, "call %d", i)
			assert.Equal(t, theirs[i].Stderr, ours[i].Stderr, "call %d", i)
		}
		assert.Equal(t, pathsSeen(t, seen), oursSeen, "the script's git helpers")
		pkg, _, _ := strings.Cut(strings.TrimPrefix(ours[2].Stdout, "wrote "), ": ")
		assert.Equal(t, readFile(t, strings.Replace(pkg, r.Root, rr.Root, 1)), readFile(t, pkg))
	}

	// PATH set but empty is not unset: no git, as before.
	env := append(withoutVar(r.Env, "PATH"), "PATH=")
	res = testutil.RunIn(r.Root, env, testutil.Bin(t, "sdd-workspace"), "plan.md")
	assert.Equal(t, 127, res.Code)
	assert.Equal(t, "sdd-workspace: git: command not found (git must be on PATH)\n", res.Stderr)
}

// diff2 (2026-12-04): two plans with one long basename. The reference
// shares one workspace (exit 0 every time); ours gives the second its own
// and never fails: a candidate after the first that is longer than the
// file system's name limit (255 here) is cut to fit, the `-N` kept, never
// inside a UTF-8 character. The first candidate, the reference's name, is
// never cut.
func TestLongBasenameInTwoDirectories(t *testing.T) {
	t.Parallel()
	slug := strings.Repeat("p", 240)
	plans := map[string]string{ // plan → the workspace it gets
		"docs/a/" + slug + ".md":                                slug,
		"docs/bbbbbbbbbbbbbbbbbbbb/" + slug + ".md":             slug + "-" + strings.Repeat("b", 14),
		"docs/bbbbbbbbbbbbbbbbbbbbX/" + slug + ".md":            slug + "-" + strings.Repeat("b", 12) + "-2",
		"docs/x" + strings.Repeat("é", 15) + "/" + slug + ".md": slug + "-x" + strings.Repeat("é", 6),
	}
	order := []string{"docs/a/", "docs/bbbbbbbbbbbbbbbbbbbb/", "docs/bbbbbbbbbbbbbbbbbbbbX/", "docs/x" + strings.Repeat("é", 15) + "/"}
	setup := func(t *testing.T) *testutil.Repo {
		r := testutil.NewRepo(t)
		for p := range plans {
			r.Write(p, "## Task 1\n"+p+"\n")
		}
		r.Commit("plans")
		r.Commit("more", "f.txt", "x\n")
		return r
	}
	r := setup(t)
	for _, d := range order {
		plan := d + slug + ".md"
		res := r.Run("", "sdd-workspace", plan)
		require.Equal(t, 0, res.Code, "%s: %s", d, res.Stderr)
		assert.Equal(t, ws(r, plans[plan])+"\n", res.Stdout, d)
		assert.LessOrEqual(t, len(plans[plan]), 255)
		assert.True(t, utf8.ValidString(plans[plan]))
		assert.Equal(t, plan+"\n", readFile(t, filepath.Join(ws(r, plans[plan]), "plan-path")))
	}
	// Again, in another order, and the default paths of the other two
	// commands: each plan finds its own.
	for i := len(order) - 1; i >= 0; i-- {
		plan := order[i] + slug + ".md"
		res := r.Run("", "sdd-workspace", plan)
		assert.Equal(t, ws(r, plans[plan])+"\n", res.Stdout, order[i])
		res = r.Run("", "task-brief", plan, "1")
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, "## Task 1\n"+plan+"\n", readFile(t, filepath.Join(ws(r, plans[plan]), "task-1-brief.md")))
		res = r.Run("", "review-package", plan, "HEAD~1", "HEAD")
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Contains(t, res.Stdout, "wrote "+ws(r, plans[plan])+"/review-")
	}

	// A slug of the limit itself (a plan without .md): the second name,
	// cut, is the first again and is not tried twice (one note for it).
	full := strings.Repeat("f", 255)
	r.Write("new/"+full, "## Task 1\n")
	r.Write(".superpowers/sdd/"+full+"/plan-path", "old/"+full+"\n")
	res := r.Run("", "sdd-workspace", "new/"+full)
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, full[:253]+"-2")+"\n", res.Stdout)
	assert.Equal(t, note(ws(r, full), "old/"+full, "new/"+full), res.Stderr)

	// The brief's own name over the limit fails as the script's
	// redirection fails: exit 1, the path named. Only the reason's words
	// differ (bash: "File name too long").
	n := strings.Repeat("9", 250)
	brief := filepath.Join(ws(r, slug), "task-"+n+"-brief.md")
	res = r.Run("", "task-brief", order[0]+slug+".md", n)
	assert.Equal(t, 1, res.Code)
	assert.Equal(t, "task-brief: "+brief+": file name too long\n", res.Stderr)

	if ref := referenceScripts(t); ref != "" {
		rr := setup(t)
		for _, d := range order {
			res := testutil.RunIn(rr.Root, rr.Env, filepath.Join(ref, "sdd-workspace"), d+slug+".md")
			assert.Equal(t, 0, res.Code, "the reference: %s", res.Stderr)
			assert.Equal(t, ws(rr, slug)+"\n", res.Stdout, "the reference shares one workspace")
		}
		res := testutil.RunIn(rr.Root, rr.Env, filepath.Join(ref, "task-brief"), order[0]+slug+".md", n)
		assert.Equal(t, 1, res.Code)
		assert.Contains(t, res.Stderr, filepath.Join(ws(rr, slug), "task-"+n+"-brief.md")+": File name too long")
	}
}

// openDeleted writes a plan, opens it and removes it: a file reachable
// only through the descriptor.
func openDeleted(t *testing.T, content string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.md")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	f, err := os.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	require.NoError(t, os.Remove(p))
	return f
}

// heredocPlan is a bash script that runs "$0" with args and the plan
// as a here-document on its standard input: over 64 KiB, so bash backs it
// with a temporary file it has already removed.
func heredocPlan(plan string, args ...string) string {
	return `"$0" ` + strings.Join(args, " ") + " <<'EOF'\n" + plan + "EOF\n"
}

// bigPlan is a plan whose task 1 is larger than a pipe holds.
var bigPlan = "## Task 1\n" + strings.Repeat("a line of the first task, long enough\n", 2000) + "## Task 2\nlast\n"

// diff2, every-kernel-paths (2026-12-04): a plan the kernel reaches through
// an open but deleted file (/dev/fd/N, the /dev/stdin of a large
// here-document) is named by the path given, as the script names it; the
// link's text ("/x (deleted)") is never read as a path. Its marker records
// that path; a second such plan by the same path shares the workspace, as
// under the reference.
func TestPlanBehindADeletedDescriptor(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("descriptor links on procfs are Linux's")
	}
	run := func(r *testutil.Repo, bin string, f *os.File, args ...string) testutil.Result {
		return fdRun(t, r.Root, r.Env, bin, []*os.File{nil, nil, f}, args...)
	}
	r := testutil.NewRepo(t)
	res := run(r, testutil.Bin(t, "sdd-workspace"), openDeleted(t, twoTasks), "/dev/fd/3")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "3")+"\n", res.Stdout)
	assert.Empty(t, res.Stderr)
	assert.Equal(t, "/dev/fd/3\n", readFile(t, filepath.Join(ws(r, "3"), "plan-path")))
	assertIgnored(t, r)

	other := "## Task 1\nanother plan\n"
	res = run(r, testutil.Bin(t, "task-brief"), openDeleted(t, other), "/dev/fd/3", "1")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote "+filepath.Join(ws(r, "3"), "task-1-brief.md")+": 2 lines\n", res.Stdout)
	assert.Equal(t, other, readFile(t, filepath.Join(ws(r, "3"), "task-1-brief.md")))

	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	res = run(r, testutil.Bin(t, "review-package"), openDeleted(t, twoTasks), "/dev/fd/3", "HEAD~1", "HEAD")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "wrote "+ws(r, "3")+"/review-")

	// The review's repro: task-brief /dev/stdin 1 <<EOF with a large plan.
	r2 := testutil.NewRepo(t)
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	res = testutil.RunIn(r2.Root, r2.Env, bash, "-c", heredocPlan(bigPlan, "/dev/stdin", "1"), testutil.Bin(t, "task-brief"))
	require.Equal(t, 0, res.Code, res.Stderr)
	brief := filepath.Join(ws(r2, "stdin"), "task-1-brief.md")
	assert.Equal(t, "wrote "+brief+": 2001 lines\n", res.Stdout)
	assert.Equal(t, strings.TrimSuffix(bigPlan, "## Task 2\nlast\n"), readFile(t, brief))
	assert.Equal(t, "/dev/stdin\n", readFile(t, filepath.Join(ws(r2, "stdin"), "plan-path")))
	assertIgnored(t, r2)

	if ref := referenceScripts(t); ref != "" {
		rr := testutil.NewRepo(t)
		res := run(rr, filepath.Join(ref, "sdd-workspace"), openDeleted(t, twoTasks), "/dev/fd/3")
		assert.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, ws(rr, "3")+"\n", res.Stdout, "the reference")
		rr2 := testutil.NewRepo(t)
		res = testutil.RunIn(rr2.Root, rr2.Env, bash, "-c", heredocPlan(bigPlan, "/dev/stdin", "1"), filepath.Join(ref, "task-brief"))
		assert.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, "wrote "+filepath.Join(ws(rr2, "stdin"), "task-1-brief.md")+": 2001 lines\n", res.Stdout, "the reference")
		assert.Equal(t, readFile(t, brief), readFile(t, filepath.Join(ws(rr2, "stdin"), "task-1-brief.md")))
	}
}

// assertIgnored checks what ws5 promises after any run, failed or not:
// .superpowers/sdd/, if it exists, holds its .gitignore, and nothing under
// it shows in git status.
func assertIgnored(t *testing.T, r *testutil.Repo) {
	t.Helper()
	sdd := filepath.Join(r.Root, ".superpowers", "sdd")
	if _, err := os.Stat(sdd); err == nil {
		b, err := os.ReadFile(filepath.Join(sdd, ".gitignore"))
		assert.NoError(t, err, ".superpowers/sdd/ without its .gitignore")
		assert.Equal(t, "*\n", string(b))
	}
	st := r.Git("status", "--porcelain", "--ignored", "--untracked-files=all")
	for _, line := range strings.Split(st, "\n") {
		assert.False(t, strings.HasPrefix(line, "?? .superpowers/sdd"), "git status shows %q", line)
	}
}

// ws5 (2026-12-04): no failure leaves .superpowers/sdd/ without its
// .gitignore, so nothing of a failed run shows in git status. Every
// workspace failure the commands can meet, provoked in a repository
// without .superpowers/ (or with .superpowers/sdd/ but no .gitignore),
// each checked after the run. The reference leaves .superpowers/sdd/
// without it wherever `mkdir -p` fails (measured: a file or a dangling
// symlink where the workspace goes): a deliberate difference.
func TestNoFailureLeavesTheWorkspacesUnignored(t *testing.T) {
	t.Parallel()
	type provocation struct {
		name   string
		setup  func(t *testing.T, r *testutil.Repo)
		run    func(t *testing.T, r *testutil.Repo, bin func(string) string) testutil.Result
		status int
		linux  bool // a plan behind a descriptor link on procfs
	}
	plain := func(name string, args ...string) func(t *testing.T, r *testutil.Repo, bin func(string) string) testutil.Result {
		return func(t *testing.T, r *testutil.Repo, bin func(string) string) testutil.Result {
			return testutil.RunIn(r.Root, r.Env, bin(name), args...)
		}
	}
	noIgnore := func(t *testing.T, r *testutil.Repo) {
		require.NoError(t, os.MkdirAll(filepath.Join(r.Root, ".superpowers", "sdd"), 0o755))
	}
	cases := []provocation{
		{name: "a file where the workspace goes", status: 1, run: plain("sdd-workspace", "plan.md"),
			setup: func(t *testing.T, r *testutil.Repo) { r.Write(".superpowers/sdd/plan", "a file\n") }},
		{name: "a file where the workspace goes, task-brief", status: 1, run: plain("task-brief", "plan.md", "1"),
			setup: func(t *testing.T, r *testutil.Repo) { r.Write(".superpowers/sdd/plan", "a file\n") }},
		{name: "a dangling symlink where the workspace goes", status: 1, run: plain("review-package", "plan.md", "HEAD", "HEAD"),
			setup: func(t *testing.T, r *testutil.Repo) {
				noIgnore(t, r)
				require.NoError(t, os.Symlink("nowhere", filepath.Join(r.Root, ".superpowers", "sdd", "plan")))
			}},
		{name: "a marker that is a directory", status: 1, run: plain("sdd-workspace", "plan.md"),
			setup: func(t *testing.T, r *testutil.Repo) { r.Write(".superpowers/sdd/plan/plan-path/x", "x\n") }},
		{name: "a brief name over the limit", status: 1, run: plain("task-brief", "plan.md", strings.Repeat("7", 250))},
		{name: "a brief in a directory that is not there", status: 1, run: plain("task-brief", "plan.md", "x/1")},
		{name: "a task that is not there", status: 3, run: plain("task-brief", "plan.md", "9")},
		{name: "a revision that is not there", status: 2, run: plain("review-package", "plan.md", "HEAD", "nope")},
		{name: ".superpowers is a file", status: 1, run: plain("sdd-workspace", "plan.md"),
			setup: func(t *testing.T, r *testutil.Repo) { r.Write(".superpowers", "a file\n") }},
		{name: "a plan that is an open, deleted file", status: 0, linux: true,
			run: func(t *testing.T, r *testutil.Repo, bin func(string) string) testutil.Result {
				return fdRun(t, r.Root, r.Env, bin("task-brief"), []*os.File{nil, nil, openDeleted(t, twoTasks)}, "/dev/fd/3", "1")
			}},
		{name: "a here-document plan", status: 0, linux: true, setup: noIgnore,
			run: func(t *testing.T, r *testutil.Repo, bin func(string) string) testutil.Result {
				return testutil.RunIn(r.Root, r.Env, "bash", "-c", heredocPlan(bigPlan, "/dev/stdin", "1"), bin("task-brief"))
			}},
		{name: "a long basename in two directories", status: 0,
			setup: func(t *testing.T, r *testutil.Repo) {
				long := strings.Repeat("q", 240)
				r.Write("a/"+long+".md", twoTasks)
				r.Write("bbbbbbbbbbbbbbbbbbbb/"+long+".md", twoTasks)
				res := r.Run("", "sdd-workspace", "a/"+long+".md")
				require.Equal(t, 0, res.Code, res.Stderr)
				require.NoError(t, os.Remove(filepath.Join(r.Root, ".superpowers", "sdd", ".gitignore")))
			},
			run: plain("sdd-workspace", "bbbbbbbbbbbbbbbbbbbb/"+strings.Repeat("q", 240)+".md")},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if c.linux && runtime.GOOS != "linux" {
				t.Skip("descriptor links on procfs are Linux's")
			}
			r := testutil.NewRepo(t)
			r.Commit("plan", "plan.md", twoTasks)
			if c.setup != nil {
				c.setup(t, r)
			}
			res := c.run(t, r, func(name string) string { return testutil.Bin(t, name) })
			assert.Equal(t, c.status, res.Code, res.Stderr)
			assertIgnored(t, r)
		})
	}

	// Run as a user who may not write: the repository root (nothing can
	// be made), a workspace made by another user (the brief cannot be
	// written), a marker it may not read.
	t.Run("unwritable", func(t *testing.T) {
		r := testutil.NewSharedRepo(t)
		r.Commit("plan", "plan.md", twoTasks)
		trustAnyOwner(t, r)
		bins, err := testutil.BuildBinaries()
		require.NoError(t, err)
		res := asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "sdd-workspace"), "plan.md")
		assert.Equal(t, 1, res.Code, res.Stderr)
		assertIgnored(t, r)

		r.Write("other/plan.md", twoTasks)
		r.Write(".superpowers/sdd/plan/plan-path", "other/plan.md\n")
		testutil.Chmod(t, filepath.Join(r.Root, ".superpowers", "sdd"), 0o777)
		testutil.Chmod(t, filepath.Join(r.Root, ".superpowers", "sdd", "plan", "plan-path"), 0o000)
		res = asUnprivileged(t, r.Root, r.Env, filepath.Join(bins, "task-brief"), "plan.md", "1")
		assert.Equal(t, 1, res.Code, res.Stderr)
		assert.Contains(t, res.Stderr, "plan-path: permission denied")
		assertIgnored(t, r)
	})

	// Signals: while git checks the root (nothing made yet) and while git
	// writes the package into the workspace.
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run("signal_"+fmt.Sprint(int(sig)), func(t *testing.T) {
			for _, at := range []string{"rev-parse --show-toplevel", "diff -U10"} {
				r, base := bigRepo(t, 1000)
				pidFile := filepath.Join(t.TempDir(), "pid")
				real, err := exec.LookPath("git")
				require.NoError(t, err)
				dir := t.TempDir()
				script := fmt.Sprintf("#!/usr/bin/env bash\nif [ \"$1 $2\" = %q ]; then echo $$ > %s; exec sleep 60; fi\nexec %q \"$@\"\n", at, pidFile, real)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
				cmd := exec.Command(testutil.Bin(t, "review-package"), "plan.md", base, "HEAD")
				cmd.Dir, cmd.Env = r.Root, withPath(r.Env, dir)
				require.NoError(t, cmd.Start())
				pid := waitForPID(t, pidFile)
				require.NoError(t, cmd.Process.Signal(sig))
				_ = cmd.Wait()
				_ = syscall.Kill(pid, syscall.SIGKILL)
				assertIgnored(t, r)
			}
		})
	}

	if ref := referenceScripts(t); ref != "" {
		r := testutil.NewRepo(t)
		r.Commit("plan", "plan.md", twoTasks)
		r.Write(".superpowers/sdd/plan", "a file\n")
		res := testutil.RunIn(r.Root, r.Env, filepath.Join(ref, "sdd-workspace"), "plan.md")
		assert.Equal(t, 1, res.Code, "the reference: %s", res.Stderr)
		assert.NoFileExists(t, filepath.Join(r.Root, ".superpowers", "sdd", ".gitignore"), "the reference leaves it out")
	}
}
