//go:build !windows

package e2e

// review-package runs the package's git calls side by side where that
// cannot fetch twice (docs/spec.md, rp5): what it writes and says must be
// what the script's calls, one after another, write and say.

import (
	"fmt"
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

// partsGit puts a `git` first on PATH that runs the real git, after the
// bash in bodies for the package's calls: "log" (git log --oneline),
// "stat" (git diff --stat), "diff" (git diff -U10) and "count" (git
// rev-list --count). A body may exit instead.
func partsGit(t *testing.T, bodies map[string]string) []string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	var cases strings.Builder
	for part, body := range bodies {
		fmt.Fprintf(&cases, "%s)\n%s\n;;\n", part, body)
	}
	script := fmt.Sprintf(`#!/usr/bin/env bash
REAL=%q
case "$1 $2" in
"log --oneline") part=log ;;
"diff --stat") part=stat ;;
"diff -U10") part=diff ;;
"rev-list --count") part=count ;;
*) exec "$REAL" "$@" ;;
esac
case $part in
%sesac
exec "$REAL" "$@"
`, real, cases.String())
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755))
	return []string{dir}
}

// taskRepo is a repository with a plan and a task of two commits over a
// few files; it returns the repository and BASE.
func taskRepo(t *testing.T) (*testutil.Repo, string) {
	t.Helper()
	r := planRepo(t)
	var files []string
	for i := range 4 {
		files = append(files, fmt.Sprintf("f%d.txt", i), strings.Repeat(fmt.Sprintf("line %d\n", i), 40))
	}
	base := r.Commit("plan", files...)
	r.Commit("change one", "f1.txt", strings.Repeat("changed\n", 40))
	r.Commit("change two", "f3.txt", "short now\n", "new.txt", "new\n")
	return r, base
}

// scriptPackage is the package the script's calls, one after another,
// make of BASE..HEAD: its headings and what the real git prints.
func scriptPackage(t *testing.T, dir string, env []string, base string) string {
	t.Helper()
	rng := base + "..HEAD"
	part := func(args ...string) string {
		res := testutil.RunIn(dir, env, "git", append(args, rng)...)
		require.Equal(t, 0, res.Code, res.Stderr)
		return res.Stdout
	}
	return "# Review package: " + rng + "\n\n## Commits\n" + part("log", "--oneline") +
		"\n## Files changed\n" + part("diff", "--stat") + "\n## Diff\n" + part("diff", "-U10")
}

// asReference runs the reference script (when SDD_REFERENCE names it)
// with OUTFILE out in the repository and env, for its stderr and status.
func asReference(t *testing.T, r *testutil.Repo, env []string, base, out string) (testutil.Result, bool) {
	t.Helper()
	ref := referenceScripts(t)
	if ref == "" {
		return testutil.Result{}, false
	}
	return testutil.RunIn(r.Root, env, filepath.Join(ref, "review-package"), "plan.md", base, "HEAD", out), true
}

// The stat waits for the diff to start: one after another, it would wait
// in vain. Side by side, the package is the script's, byte for byte.
func TestPackagePartsRunTogether(t *testing.T) {
	t.Parallel()
	r, base := taskRepo(t)
	marks := t.TempDir()
	env := withPath(r.Env, partsGit(t, map[string]string{
		"diff": `: > ` + marks + `/diff`,
		"stat": `for i in $(seq 100); do [ -e ` + marks + `/diff ] && break; sleep 0.05; done
[ -e ` + marks + `/diff ] || { echo "fatal: the stat ran alone" >&2; exit 99; }`,
	})...)
	res := testutil.RunIn(r.Root, env, testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", "out.diff")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Empty(t, res.Stderr)
	want := scriptPackage(t, r.Root, r.Env, base)
	assert.Equal(t, want, readFile(t, filepath.Join(r.Root, "out.diff")))
	assert.Equal(t, fmt.Sprintf("wrote out.diff: 2 commit(s), %d bytes\n", len(want)), res.Stdout)
	if ref, ok := asReference(t, r, r.Env, base, "ref.diff"); ok {
		require.Equal(t, 0, ref.Code, ref.Stderr)
		assert.Equal(t, readFile(t, filepath.Join(r.Root, "ref.diff")), readFile(t, filepath.Join(r.Root, "out.diff")))
	}
}

// In a partial clone the stat waits until the diff has fetched the range's
// missing blobs (its first byte of output comes after that), then runs
// beside the rest of the diff: one fetch, as under the script, and no
// waiting for the whole diff.
func TestPartialClonePartsOverlapOnceFetched(t *testing.T) {
	t.Parallel()
	src, base := taskRepo(t)
	tmp := testutil.RealTempDir(t)
	server := filepath.Join(tmp, "server.git")
	mustGit(t, tmp, src.Env, "clone", "-q", "--bare", src.Root, server)
	mustGit(t, server, src.Env, "config", "uploadpack.allowFilter", "true")
	mustGit(t, server, src.Env, "config", "uploadpack.allowAnySHA1InWant", "true")
	clone := filepath.Join(tmp, "clone")
	mustGit(t, tmp, src.Env, "clone", "-q", "--filter=blob:none", "file://"+server, clone)
	require.Contains(t, mustGit(t, clone, src.Env, "rev-list", "--objects", "--missing=print", base), "\n?", "BASE's blobs are missing")

	marks := t.TempDir()
	trace := filepath.Join(tmp, "trace")
	env := append(withPath(src.Env, partsGit(t, map[string]string{
		"diff": `"$REAL" "$@" || exit; : > ` + marks + `/diff-wrote; sleep 1; exit 0`,
		"stat": `for i in $(seq 100); do [ -e ` + marks + `/diff-wrote ] && break; sleep 0.05; done
[ -e ` + marks + `/diff-wrote ] || { echo "fatal: the stat ran before the diff" >&2; exit 99; }`,
	})...), "GIT_TRACE2_EVENT="+trace)
	res := testutil.RunIn(clone, env, testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", filepath.Join(tmp, "out.diff"))
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, map[string]int{"fetch": 1}, processes(t, trace, "fetch"))
	want := scriptPackage(t, clone, src.Env, base)
	assert.Equal(t, want, readFile(t, filepath.Join(tmp, "out.diff")))
}

// The script stops at its first failing call: a later call's failure, or
// anything else it says, never shows, however early it comes; what the
// calls say comes in the script's order. Each case runs the package's
// calls at speeds that turn their order around.
func TestFirstFailureInTheScriptsOrderDecides(t *testing.T) {
	t.Parallel()
	fail := func(part string, status int) string {
		return fmt.Sprintf(`echo "fatal: %s failed" >&2; exit %d`, part, status)
	}
	slowly := func(body string) string { return "sleep 0.5; " + body }
	for _, c := range []struct {
		name   string
		bodies map[string]string
		status int
		stderr string
	}{
		{"log", map[string]string{"log": slowly(fail("log", 11)), "stat": fail("stat", 12), "diff": fail("diff", 13), "count": fail("count", 14)},
			11, "fatal: log failed\n"},
		{"stat", map[string]string{"stat": slowly(fail("stat", 12)), "diff": fail("diff", 13), "count": fail("count", 14)},
			12, "fatal: stat failed\n"},
		{"diff", map[string]string{"log": "sleep 0.2", "diff": slowly(fail("diff", 13)), "count": fail("count", 14)},
			13, "fatal: diff failed\n"},
		{"count", map[string]string{"log": "sleep 0.3", "stat": "sleep 0.2", "count": fail("count", 14)},
			14, "fatal: count failed\n"},
		{"none, each speaking", map[string]string{
			"log":   `sleep 0.6; echo "warning: log" >&2`,
			"stat":  `sleep 0.4; echo "warning: stat" >&2`,
			"diff":  `sleep 0.2; echo "warning: diff" >&2`,
			"count": `echo "warning: count" >&2`},
			0, "warning: log\nwarning: stat\nwarning: diff\nwarning: count\n"},
	} {
		if testing.Short() && c.name != "log" && c.name != "stat" && c.name != "none, each speaking" {
			continue // the first part failing, the stat of a partial clone, none; make test-full, every part
		}
		for _, promisor := range []bool{false, true} {
			if testing.Short() && promisor != (c.name == "stat") {
				continue // the order with and without a partial clone; make test-full, every case both ways
			}
			t.Run(fmt.Sprintf("%s/promisor=%v", c.name, promisor), func(t *testing.T) {
				r, base := taskRepo(t)
				env := withPath(r.Env, partsGit(t, c.bodies)...)
				if promisor {
					// Taken for a partial clone: the stat waits for the
					// diff's first byte.
					env = append(env, "GIT_CONFIG_PARAMETERS='remote.origin.promisor'='true'")
				}
				bin := testutil.Bin(t, "review-package")
				for _, out := range [][]string{{"out.diff"}, nil} {
					res := testutil.RunIn(r.Root, env, bin, append([]string{"plan.md", base, "HEAD"}, out...)...)
					assert.Equal(t, c.status, res.Code)
					assert.Equal(t, c.stderr, res.Stderr)
					if c.status != 0 {
						assert.Empty(t, res.Stdout)
						assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
						assertNoPackages(t, ws(r, "plan"))
					} else if out != nil {
						assert.Equal(t, scriptPackage(t, r.Root, r.Env, base), readFile(t, filepath.Join(r.Root, "out.diff")))
					}
				}
				assertNoTemps(t, r.Root)
				if ref, ok := asReference(t, r, env, base, "ref.diff"); ok {
					assert.Equal(t, c.status, ref.Code, "the reference's status")
					assert.Equal(t, c.stderr, ref.Stderr, "the reference's stderr")
				}
			})
		}
	}
}

// What a call prints before its turn is held, within bounds: past them,
// the call waits for its turn. A stat of 3 MB and a diff that complains
// for 300 KB while the commit list is slow still come out whole and in
// order.
func TestPartsBeyondWhatIsHeld(t *testing.T) {
	t.Parallel()
	r, base := taskRepo(t)
	env := withPath(r.Env, partsGit(t, map[string]string{
		"log":  "sleep 0.5",
		"stat": `"$REAL" "$@" || exit; head -c 3000000 /dev/zero | tr '\0' s; exit`,
		"diff": `for i in $(seq 5000); do echo "warning: complaint $i of a diff that has a lot to say" >&2; done`,
	})...)
	res := testutil.RunIn(r.Root, env, testutil.Bin(t, "review-package"), "plan.md", base, "HEAD", "out.diff")
	require.Equal(t, 0, res.Code, res.Stderr)
	var complaints strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&complaints, "warning: complaint %d of a diff that has a lot to say\n", i)
	}
	assert.Equal(t, complaints.String(), res.Stderr)
	want := strings.Replace(scriptPackage(t, r.Root, r.Env, base), "\n## Diff\n", strings.Repeat("s", 3000000)+"\n## Diff\n", 1)
	assert.Equal(t, want, readFile(t, filepath.Join(r.Root, "out.diff")))
	if ref, ok := asReference(t, r, env, base, "ref.diff"); ok {
		require.Equal(t, 0, ref.Code)
		assert.Equal(t, readFile(t, filepath.Join(r.Root, "ref.diff")), readFile(t, filepath.Join(r.Root, "out.diff")))
		assert.Equal(t, ref.Stderr, res.Stderr)
	}
}

// A signal stops every git that runs side by side, and the command dies
// of it, leaving nothing.
func TestSignalStopsEveryGit(t *testing.T) {
	eachBuild(t, func(t *testing.T, bins string) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			t.Run(sig.String(), func(t *testing.T) { signalStopsEveryGit(t, filepath.Join(bins, "review-package"), sig) })
		}
	})
}

// Even SIGKILL, on Linux: every git gets its parent-death signal, and the
// outputs, unnamed, vanish (TestSIGKILLLeavesNothing).
func TestSIGKILLStopsEveryGit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed temporary files and parent-death signals are Linux's")
	}
	signalStopsEveryGit(t, testutil.Bin(t, "review-package"), syscall.SIGKILL)
}

func signalStopsEveryGit(t *testing.T, bin string, sig syscall.Signal) {
	parts := []string{"stat", "diff", "count"}
	r, base := taskRepo(t)
	pids := t.TempDir()
	bodies := map[string]string{}
	for _, p := range parts {
		bodies[p] = `echo $$ > ` + pids + `/` + p + `; exec sleep 60`
	}
	env := withPath(r.Env, partsGit(t, bodies)...)
	cmd := exec.Command(bin, "plan.md", base, "HEAD", "out.diff")
	cmd.Dir, cmd.Env = r.Root, env
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // should the test fail before the signal
	var running []int
	for _, p := range parts {
		running = append(running, waitForPID(t, filepath.Join(pids, p)))
	}
	require.NoError(t, cmd.Process.Signal(sig))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	status := ee.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled() && status.Signal() == sig, "died of %v: %v", sig, status)
	for i, pid := range running {
		waitFor(t, func() bool { return ended(pid) })
		t.Logf("%s's git stopped", parts[i])
	}
	assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
	assertNoTemps(t, r.Root)
}
