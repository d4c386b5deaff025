//go:build !windows

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/reference"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// In a partial clone (--filter=blob:none) git fetches a missing blob when a
// command first needs it. review-package must cause no more fetches than
// the script, whose git calls run one after another: the first diff fetches
// the range's missing blobs and the second finds them there. (Two diffs
// started side by side each fetched them: twice the fetches, twice the
// round trips to the server.) Counted with trace2 in fresh clones, for
// ours, for the script's git calls run in its order, and for the reference
// when one is found (SDD_REFERENCE).
func TestPartialCloneFetchesEachBlobOnce(t *testing.T) {
	t.Parallel()
	src := testutil.NewRepo(t)
	src.Write("plan.md", twoTasks)
	for i := range 5 {
		src.Write(fmt.Sprintf("f%d.txt", i), strings.Repeat(fmt.Sprintf("line %d\n", i), 50))
	}
	base := src.Commit("base")
	for i := range 5 {
		src.Write(fmt.Sprintf("f%d.txt", i), strings.Repeat(fmt.Sprintf("changed %d\n", i), 50))
	}
	src.Commit("change")
	tmp := testutil.RealTempDir(t)
	server := filepath.Join(tmp, "server.git")
	mustGit(t, tmp, src.Env, "clone", "-q", "--bare", src.Root, server)
	mustGit(t, server, src.Env, "config", "uploadpack.allowFilter", "true")
	mustGit(t, server, src.Env, "config", "uploadpack.allowAnySHA1InWant", "true")

	n := 0
	// run clones the server afresh (the blobs of HEAD's checkout come
	// with it, BASE's stay on the server), runs each of the commands in
	// the clone with git's trace2 events going to a file, and returns how
	// many fetch and upload-pack processes ran.
	run := func(cmds ...[]string) map[string]int {
		n++
		clone := filepath.Join(tmp, fmt.Sprintf("clone%d", n))
		mustGit(t, tmp, src.Env, "clone", "-q", "--filter=blob:none", "file://"+server, clone)
		missing := mustGit(t, clone, src.Env, "rev-list", "--objects", "--missing=print", base)
		require.Contains(t, missing, "\n?", "BASE's blobs are missing from the clone")
		trace := filepath.Join(tmp, fmt.Sprintf("trace%d", n))
		env := append(slices.Clone(src.Env), "GIT_TRACE2_EVENT="+trace)
		for _, c := range cmds {
			res := testutil.RunIn(clone, env, c[0], c[1:]...)
			require.Equal(t, 0, res.Code, "%v: %s", c, res.Stderr)
		}
		return processes(t, trace, "fetch", "upload-pack")
	}

	ours := run([]string{testutil.Bin(t, "review-package"), "plan.md", base, "HEAD"})
	t.Logf("ours: %v", ours)

	rng := base + "..HEAD"
	script := run(
		[]string{"git", "rev-parse", "--verify", "--quiet", base},
		[]string{"git", "rev-parse", "--verify", "--quiet", "HEAD"},
		[]string{"git", "rev-parse", "--show-toplevel"},
		[]string{"git", "rev-parse", "--short", base},
		[]string{"git", "rev-parse", "--short", "HEAD"},
		[]string{"git", "log", "--oneline", rng},
		[]string{"git", "diff", "--stat", rng},
		[]string{"git", "diff", "-U10", rng},
		[]string{"git", "rev-list", "--count", rng},
	)
	t.Logf("the script's git calls: %v", script)
	assert.NotZero(t, script["fetch"], "the script's calls fetch")
	assert.Equal(t, script, ours, "fetch and upload-pack processes: the script's calls, ours")

	home, _ := os.UserHomeDir()
	if ref, err := reference.Find(os.Getenv, home); err == nil {
		refs := run([]string{filepath.Join(ref, "review-package"), "plan.md", base, "HEAD"})
		t.Logf("reference: %v", refs)
		assert.Equal(t, refs, ours, "fetch and upload-pack processes: the reference, ours")
	}
}

// mustGit runs git in dir and returns its stdout; it fails the test on error.
func mustGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	res := testutil.RunIn(dir, env, "git", args...)
	require.Equal(t, 0, res.Code, "git %v: %s", args, res.Stderr)
	return res.Stdout
}

// processes counts, in a trace2 event file, the git processes of each of
// the names (by their cmd_name event).
func processes(t *testing.T, trace string, names ...string) map[string]int {
	t.Helper()
	f, err := os.Open(trace)
	require.NoError(t, err)
	defer f.Close()
	counts := map[string]int{}
	for _, name := range names {
		counts[name] = 0
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Event, Name string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		if _, ok := counts[ev.Name]; ok && ev.Event == "cmd_name" {
			counts[ev.Name]++
		}
	}
	require.NoError(t, sc.Err())
	return counts
}
