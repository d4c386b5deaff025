//go:build !windows

package e2e

// Paths the second adversarial review (2026-12-04) found the script to
// handle where ours failed: no PATH at all (every-git). Each case runs the
// reference beside ours when SDD_REFERENCE is set.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

// recordingDiff is an environment in which `git diff -U10` runs an
// external diff that appends the PATH it sees to the file seen: what git's
// own helpers get (git fills in its own default when it was started
// without PATH, as bash starts it).
func recordingDiff(t *testing.T) (env []string, seen string) {
	t.Helper()
	dir := t.TempDir()
	seen = filepath.Join(dir, "seen")
	rec := filepath.Join(dir, "rec")
	require.NoError(t, os.WriteFile(rec, []byte("#!/bin/sh\nprintf '%s\\n' \"${PATH-unset}\" >> '"+seen+"'\n"), 0o755))
	return []string{"GIT_EXTERNAL_DIFF=" + rec}, seen
}

// every-git (2026-12-04): with PATH unset (not empty), git is the first
// one in the default path bash searches then, as the script finds it, and
// it is started without PATH, as bash starts it (bash does not export its
// default), so git's own helpers get git's default. PATH set but empty
// keeps 127. The reference, measured: exit 0 for all three, a package
// byte for byte ours.
func TestGitWithoutPATH(t *testing.T) {
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
	oursSeen := readFile(t, seen)

	// The oracle for what git's helpers see: bash itself starting git
	// with no PATH.
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(seen))
	res := testutil.RunIn(r.Root, append(withoutVar(r.Env, "PATH"), extra...), bash, "-c", "git diff -U10 "+base+" HEAD >/dev/null")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, readFile(t, seen), oursSeen, "git's helpers see the PATH they see under bash")
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
		assert.Equal(t, readFile(t, seen), oursSeen, "the script's git helpers")
		pkg, _, _ := strings.Cut(strings.TrimPrefix(ours[2].Stdout, "wrote "), ": ")
		assert.Equal(t, readFile(t, strings.Replace(pkg, r.Root, rr.Root, 1)), readFile(t, pkg))
	}

	// PATH set but empty is not unset: no git, as before.
	env := append(withoutVar(r.Env, "PATH"), "PATH=")
	res = testutil.RunIn(r.Root, env, testutil.Bin(t, "sdd-workspace"), "plan.md")
	assert.Equal(t, 127, res.Code)
	assert.Equal(t, "sdd-workspace: git: command not found (git must be on PATH)\n", res.Stderr)
}
