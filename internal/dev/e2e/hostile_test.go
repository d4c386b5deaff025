//go:build !windows

package e2e

// Concurrency and hostile input: many writers at once, names and arguments
// built to escape into a shell or into git's options. Every resulting file
// is one writer's complete output; nothing appears outside the intended
// paths; nothing is executed.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

func manyTasks(n int) string {
	var b strings.Builder
	b.WriteString("# Plan\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Task %d: step %d\n\n%s\n", i, i, strings.Repeat(fmt.Sprintf("line of task %d\n", i), 50))
	}
	return b.String()
}

func wantBrief(n int) string {
	return fmt.Sprintf("## Task %d: step %d\n\n%s\n", n, n, strings.Repeat(fmt.Sprintf("line of task %d\n", n), 50))
}

func TestConcurrentBriefs(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("plan.md", manyTasks(32))
	r.Write("a/twin.md", manyTasks(16))
	r.Write("b/twin.md", strings.ReplaceAll(manyTasks(16), "line of", "LINE OF"))

	var wg sync.WaitGroup
	results := make([]testutil.Result, 64)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = r.Run("", "task-brief", "plan.md", fmt.Sprint(i+1)) }()
	}
	for i := 0; i < 32; i++ {
		plan := []string{"a/twin.md", "b/twin.md"}[i%2]
		wg.Add(1)
		go func() { defer wg.Done(); results[32+i] = r.Run("", "task-brief", plan, fmt.Sprint(i/2+1)) }()
	}
	wg.Wait()
	for i, res := range results {
		require.Equal(t, 0, res.Code, "run %d: %s", i, res.Stderr)
	}
	for i := 1; i <= 32; i++ {
		assert.Equal(t, wantBrief(i), readFile(t, filepath.Join(ws(r, "plan"), fmt.Sprintf("task-%d-brief.md", i))))
	}
	// Which twin won the plain name is a race; each must own its own.
	dirA := strings.TrimSpace(r.Run("", "sdd-workspace", "a/twin.md").Stdout)
	dirB := strings.TrimSpace(r.Run("", "sdd-workspace", "b/twin.md").Stdout)
	assert.NotEqual(t, dirA, dirB)
	assert.ElementsMatch(t, []string{ws(r, "twin"), ws(r, map[bool]string{true: "twin-a", false: "twin-b"}[dirB == ws(r, "twin")])}, []string{dirA, dirB})
	for i := 1; i <= 16; i++ {
		assert.Equal(t, wantBrief(i), readFile(t, filepath.Join(dirA, fmt.Sprintf("task-%d-brief.md", i))))
		assert.Equal(t, strings.ReplaceAll(wantBrief(i), "line of", "LINE OF"), readFile(t, filepath.Join(dirB, fmt.Sprintf("task-%d-brief.md", i))))
	}
	assert.Equal(t, "a/twin.md\n", readFile(t, filepath.Join(dirA, "plan-path")))
	assert.Equal(t, "b/twin.md\n", readFile(t, filepath.Join(dirB, "plan-path")))
	assertNoTemps(t, r.Root)
}

func TestConcurrentPackagesToOneOutfile(t *testing.T) {
	t.Parallel()
	eachBuild(t, concurrentPackagesToOneOutfile)
}

func concurrentPackagesToOneOutfile(t *testing.T, bins string) {
	r := planRepo(t)
	var commits []string
	writers, rounds := 16, 3
	if testing.Short() {
		writers, rounds = 6, 1
	}
	for i := 0; i < writers; i++ {
		commits = append(commits, r.Commit(fmt.Sprint("c", i), "f.txt", strings.Repeat(fmt.Sprintf("%d\n", i), 2000+i)))
	}
	// Each writer's full output, alone.
	want := map[string]bool{}
	for _, base := range commits {
		res := r.RunBuild(bins, "", "review-package", "plan.md", base, "HEAD", "alone.diff")
		require.Equal(t, 0, res.Code, res.Stderr)
		want[readFile(t, filepath.Join(r.Root, "alone.diff"))] = true
	}
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		for _, base := range commits {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := r.RunBuild(bins, "", "review-package", "plan.md", base, "HEAD", "shared.diff")
				assert.Equal(t, 0, res.Code, res.Stderr)
			}()
		}
		wg.Wait()
		assert.True(t, want[readFile(t, filepath.Join(r.Root, "shared.diff"))], "the file is one writer's complete package")
	}
	assertNoTemps(t, r.Root)
}

// snapshot lists every path under root except .git internals.
func snapshot(t *testing.T, root string) []string {
	t.Helper()
	var paths []string
	require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		paths = append(paths, rel)
		return nil
	}))
	sort.Strings(paths)
	return paths
}

func TestHostileNamesAndArguments(t *testing.T) {
	t.Parallel()
	top := testutil.RealTempDir(t)
	r := planRepo(t)
	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	pwned := filepath.Join(top, "pwned")
	// Names hold no '/': each must stay one file in the repository root.
	hostile := []string{
		"with space.md", "new\nline.md", `quote'"both.md`, "$(touch pwned).md",
		"`touch pwned`.md", "-leading.md", "--long=opt.md", "ünïcødé-計画.md",
		strings.Repeat("x", 252) + ".md", "semi;colon&amp|pipe.md", "glob*?[x].md",
	}
	for _, name := range hostile {
		t.Run(strings.ReplaceAll(name[:min(len(name), 20)], "/", "_"), func(t *testing.T) {
			r.Write(name, twoTasks)
			res := r.Run("", "sdd-workspace", name)
			require.Equal(t, 0, res.Code, res.Stderr)
			slug := strings.TrimSuffix(name, ".md")
			assert.Equal(t, ws(r, slug)+"\n", res.Stdout)

			res = r.Run("", "task-brief", name, "1")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Equal(t, "wrote "+filepath.Join(ws(r, slug), "task-1-brief.md")+": 4 lines\n", res.Stdout)

			// The same names as OUTFILEs (same length: 255 bytes stays 255).
			brief, pkg := slug+".o1", slug+".o2"
			res = r.Run("", "task-brief", "plan.md", "2", brief)
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Equal(t, "wrote "+brief+": 3 lines\n", res.Stdout)
			assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(r.Root, brief)))
			res = r.Run("", "review-package", "plan.md", "HEAD~1", "HEAD", pkg)
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.True(t, strings.HasPrefix(readFile(t, filepath.Join(r.Root, pkg)), "# Review package: HEAD~1..HEAD\n"))
		})
	}

	require.Equal(t, 0, r.Run("", "sdd-workspace", "plan.md").Code)
	before := snapshot(t, r.Root)
	revs := []string{
		"--output=" + pwned, "-c core.pager=touch " + pwned, "$(touch " + pwned + ")", "`touch " + pwned + "`",
		"HEAD;touch " + pwned, "--exec=touch", "-n1", "HEAD --output=" + pwned, "@{-1}", "HEAD\n--all",
	}
	for _, rev := range revs {
		for _, args := range [][]string{{"plan.md", rev, "HEAD"}, {"plan.md", "HEAD", rev}} {
			res := r.Run("", "review-package", args...)
			assert.Equal(t, 2, res.Code, "%q: %s", rev, res.Stderr)
			assert.Contains(t, res.Stderr, "bad ")
			assert.Empty(t, res.Stdout)
		}
	}
	tasks := []string{"1|2", ".*", "[0-9]", "1)", "(", `\1`, "../../../escape", "1/../../x", "$(touch " + pwned + ")", "1;touch " + pwned}
	for _, n := range tasks {
		res := r.Run("", "task-brief", "plan.md", n)
		assert.Contains(t, []int{1, 3}, res.Code, "task %q: %s", n, res.Stderr)
		assert.Empty(t, res.Stdout)
	}
	assert.NoFileExists(t, pwned)
	assert.NoFileExists(t, filepath.Join(r.Root, "pwned"))
	assert.Equal(t, before, snapshot(t, r.Root), "no file appeared")
	entries, err := os.ReadDir(top)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotEqual(t, "pwned", e.Name())
		assert.NotEqual(t, "escape", e.Name())
	}
}
