package e2e

// One test (or more) per deliberate difference from the bash scripts
// (docs/spec.md, "Deliberate differences"), each failing if the difference
// were lost.

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

const twoTasks = "# Plan\n\n## Task 1: first\n\nDo one.\n\n## Task 2: second\n\nDo two.\n"

// planRepo is a repository with twoTasks as its plan.md, not committed.
func planRepo(t *testing.T) *testutil.Repo {
	t.Helper()
	r := testutil.NewRepo(t)
	r.Write("plan.md", twoTasks)
	return r
}

func ws(r *testutil.Repo, name string) string {
	return filepath.Join(r.Root, ".superpowers", "sdd", name)
}

// symlink makes newname a symlink to oldname, or skips the test where the
// OS will not let this user make one (Windows without the privilege).
func symlink(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("no symlinks here: %v", err)
		}
		t.Fatal(err)
	}
}

// requireWorkspace runs sdd-workspace plan in dir and requires it to
// print workspace and to mark it with planPath (its plan-path file).
func requireWorkspace(t *testing.T, r *testutil.Repo, dir, plan, workspace, planPath string) {
	t.Helper()
	res := r.Run(dir, "sdd-workspace", plan)
	require.Equal(t, 0, res.Code, "%s: %s", plan, res.Stderr)
	assert.Equal(t, workspace+"\n", res.Stdout, plan)
	assert.Equal(t, planPath+"\n", readFile(t, filepath.Join(workspace, "plan-path")), plan)
}

// Difference 1: help and version as the only argument.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	for _, name := range ship.Commands {
		for _, arg := range []string{"-h", "--help"} {
			res := r.Run("", name, arg)
			assert.Equal(t, 0, res.Code, "%s %s", name, arg)
			assert.True(t, strings.HasPrefix(res.Stdout, "usage: "+name+" "), res.Stdout)
			assert.Contains(t, res.Stdout, "Exit status")
			assert.Empty(t, res.Stderr)
		}
		res := r.Run("", name, "--version")
		assert.Equal(t, 0, res.Code)
		assert.True(t, strings.HasPrefix(res.Stdout, name+" "), res.Stdout)
		// -v is not special: for sdd-workspace it is a (missing) plan.
		if name == "sdd-workspace" {
			res = r.Run("", name, "-v")
			assert.Equal(t, 2, res.Code)
			assert.Equal(t, "no such plan file: -v\n", res.Stderr)
		}
	}
	// help among other arguments is positional.
	res := r.Run("", "task-brief", "-h", "1")
	assert.Equal(t, 2, res.Code)
	assert.Equal(t, "no such plan file: -h\n", res.Stderr)
}

// Difference 2: same-basename plans get their own workspaces, marked.
func TestSameBasenamePlansGetDistinctWorkspaces(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/a/plan.md", "## Task 1\nA one\n")
	r.Write("docs/b/plan.md", "## Task 1\nB one\n")
	r.Write("other/b/plan.md", "## Task 1\nC one\n")

	want := map[string]string{
		"docs/a/plan.md":  ws(r, "plan"),
		"docs/b/plan.md":  ws(r, "plan-b"),
		"other/b/plan.md": ws(r, "plan-b-2"),
	}
	for _, plan := range []string{"docs/a/plan.md", "docs/b/plan.md", "other/b/plan.md"} {
		requireWorkspace(t, r, "", plan, want[plan], plan)
	}
	// Asked again, in another order, each plan finds its own.
	for _, plan := range []string{"other/b/plan.md", "docs/a/plan.md", "docs/b/plan.md"} {
		res := r.Run("", "sdd-workspace", plan)
		assert.Equal(t, want[plan]+"\n", res.Stdout, plan)
	}
	// Neither brief overwrites the other.
	for plan, dir := range want {
		res := r.Run("", "task-brief", plan, "1")
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, "wrote "+filepath.Join(dir, "task-1-brief.md")+": 2 lines\n", res.Stdout)
	}
	assert.Equal(t, "## Task 1\nA one\n", readFile(t, filepath.Join(want["docs/a/plan.md"], "task-1-brief.md")))
	assert.Equal(t, "## Task 1\nB one\n", readFile(t, filepath.Join(want["docs/b/plan.md"], "task-1-brief.md")))
	assert.Equal(t, "## Task 1\nC one\n", readFile(t, filepath.Join(want["other/b/plan.md"], "task-1-brief.md")))
}

func TestSpellingsOfOnePlanShareAWorkspace(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/plan.md", twoTasks)
	r.Write("sub/dir/.keep", "")
	symlink(t, filepath.Join(r.Root, "docs"), filepath.Join(r.Root, "linked"))
	want := ws(r, "plan") + "\n"
	spellings := []struct{ dir, plan string }{
		{"", "docs/plan.md"},
		{"", "./docs//plan.md"},
		{"", filepath.Join(r.Root, "docs", "plan.md")},
		{"sub/dir", "../../docs/plan.md"},
		{"", "sub/../docs/plan.md"},
		{"", "linked/plan.md"},
		{"docs", "plan.md"},
	}
	for _, s := range spellings {
		res := r.Run(s.dir, "sdd-workspace", s.plan)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, want, res.Stdout, "%s in %q", s.plan, s.dir)
	}
	assert.Equal(t, "docs/plan.md\n", readFile(t, filepath.Join(ws(r, "plan"), "plan-path")))
	entries, err := os.ReadDir(filepath.Join(r.Root, ".superpowers", "sdd"))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "only plan/ and .gitignore")
}

func TestPlanOutsideTheRepositoryIsMarkedAbsolute(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	outside := filepath.Join(testutil.RealTempDir(t), "plan.md")
	require.NoError(t, os.WriteFile(outside, []byte(twoTasks), 0o644))
	requireWorkspace(t, r, "", outside, ws(r, "plan"), filepath.ToSlash(outside))
}

func TestReferenceWorkspaceIsAdopted(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/plan.md", twoTasks)
	// What the bash script leaves: a workspace with a ledger and no marker.
	r.Write(".superpowers/sdd/plan/progress.md", "# SDD ledger — plan: docs/plan.md\nTask 1: base=abc\n")
	requireWorkspace(t, r, "", "docs/plan.md", ws(r, "plan"), "docs/plan.md")
	assert.Equal(t, "# SDD ledger — plan: docs/plan.md\nTask 1: base=abc\n", readFile(t, filepath.Join(ws(r, "plan"), "progress.md")))
}

func TestWorkspacePathThatIsAFileFails(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	r.Write(".superpowers/sdd/plan", "not a directory\n")
	res := r.Run("", "sdd-workspace", "plan.md")
	assert.Equal(t, 1, res.Code)
	assert.Contains(t, res.Stderr, ws(r, "plan"))
	assert.Empty(t, res.Stdout)
}

// workspacesAtOnce runs sdd-workspace for every plan at the same time and
// returns, for each plan, the set of directories its calls printed.
func workspacesAtOnce(t *testing.T, r *testutil.Repo, plans []string) map[string]map[string]bool {
	t.Helper()
	got := make([]string, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := r.Run("", "sdd-workspace", p)
			assert.Equal(t, 0, res.Code, res.Stderr)
			got[i] = strings.TrimSuffix(res.Stdout, "\n")
		}()
	}
	wg.Wait()
	dirs := map[string]map[string]bool{}
	for i, p := range plans {
		if dirs[p] == nil {
			dirs[p] = map[string]bool{}
		}
		dirs[p][got[i]] = true
	}
	return dirs
}

// assertOneEach checks that plans a and b each got one directory, not the
// same, and returns them.
func assertOneEach(t *testing.T, dirs map[string]map[string]bool, a, b string) (string, string) {
	t.Helper()
	require.Len(t, dirs[a], 1, "%s resolved to %v", a, dirs[a])
	require.Len(t, dirs[b], 1, "%s resolved to %v", b, dirs[b])
	var dirA, dirB string
	for d := range dirs[a] {
		dirA = d
	}
	for d := range dirs[b] {
		dirB = d
	}
	assert.NotEqual(t, dirA, dirB, "both plans got %s", dirA)
	return dirA, dirB
}

func TestConcurrentCallsAgree(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("a/plan.md", twoTasks)
	r.Write("b/plan.md", twoTasks)

	same := workspacesAtOnce(t, r, repeat("a/plan.md", 16))
	assert.Equal(t, map[string]bool{ws(r, "plan"): true}, same["a/plan.md"])

	// Two colliding plans racing for the same name: never one directory.
	rounds := 5
	if testing.Short() {
		rounds = 2 // make test-full runs them all
	}
	for round := 0; round < rounds; round++ {
		require.NoError(t, os.RemoveAll(filepath.Join(r.Root, ".superpowers")))
		dirs := workspacesAtOnce(t, r, append(repeat("a/plan.md", 8), repeat("b/plan.md", 8)...))
		dirA, dirB := assertOneEach(t, dirs, "a/plan.md", "b/plan.md")
		assert.Equal(t, "a/plan.md\n", readFile(t, filepath.Join(dirA, "plan-path")))
		assert.Equal(t, "b/plan.md\n", readFile(t, filepath.Join(dirB, "plan-path")))
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Difference 3: atomic output files.
func TestFailedBriefLeavesOutfileAlone(t *testing.T) { eachBuild(t, failedBriefLeavesOutfileAlone) }

func failedBriefLeavesOutfileAlone(t *testing.T, bins string) {
	r := planRepo(t)
	r.Write("out.md", "previous brief\n")
	res := r.RunBuild(bins, "", "task-brief", "plan.md", "9", "out.md")
	assert.Equal(t, 3, res.Code)
	assert.Equal(t, "task 9 not found in plan.md (no heading matching 'Task 9')\n", res.Stderr)
	assert.Equal(t, "previous brief\n", readFile(t, filepath.Join(r.Root, "out.md")))

	res = r.RunBuild(bins, "", "task-brief", "plan.md", "9", "new.md")
	assert.Equal(t, 3, res.Code)
	assert.NoFileExists(t, filepath.Join(r.Root, "new.md"))

	// Default OUTFILE: the workspace exists (made before the plan is
	// read) but holds no brief.
	res = r.RunBuild(bins, "", "task-brief", "plan.md", "9")
	assert.Equal(t, 3, res.Code)
	assert.DirExists(t, ws(r, "plan"))
	assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "task-9-brief.md"))
	assertNoTemps(t, r.Root)
}

func TestFailedPackageLeavesNothing(t *testing.T) { eachBuild(t, failedPackageLeavesNothing) }

func failedPackageLeavesNothing(t *testing.T, bins string) {
	r := planRepo(t)
	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	blob := r.Git("rev-parse", "HEAD:f.txt")
	failedPackage(t, r, func(args ...string) testutil.Result {
		return r.RunBuild(bins, "", "review-package", args...)
	}, blob, "HEAD", 129)
}

func TestReplacedOutfileKeepsModeAndHardLinkKeepsOldContents(t *testing.T) {
	t.Parallel()
	eachBuild(t, replacedOutfileKeepsModeAndHardLinkKeepsOldContents)
}

func replacedOutfileKeepsModeAndHardLinkKeepsOldContents(t *testing.T, bins string) {
	r := planRepo(t)
	out := r.Write("out.md", "old\n")
	if runtime.GOOS == "windows" {
		t.Skip("permission bits are Unix's")
	}
	testutil.Chmod(t, out, 0o600)
	link := filepath.Join(r.Root, "hardlink.md")
	require.NoError(t, os.Link(out, link))

	res := r.RunBuild(bins, "", "task-brief", "plan.md", "1", "out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Equal(t, "## Task 1: first\n\nDo one.\n\n", readFile(t, out))
	assert.Equal(t, "old\n", readFile(t, link))
}

func TestSymlinkOutfileIsWrittenThrough(t *testing.T) { eachBuild(t, symlinkOutfileIsWrittenThrough) }

func symlinkOutfileIsWrittenThrough(t *testing.T, bins string) {
	r := planRepo(t)
	target := r.Write("real/brief.md", "old\n")
	link := filepath.Join(r.Root, "brief-link.md")
	symlink(t, "real/brief.md", link)
	res := r.RunBuild(bins, "", "task-brief", "plan.md", "2", "brief-link.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote brief-link.md: 3 lines\n", res.Stdout)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link stays a link")
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, target))

	// A dangling link is created through, as `>` would.
	symlink(t, "real/new.md", filepath.Join(r.Root, "dangling.md"))
	res = r.RunBuild(bins, "", "task-brief", "plan.md", "2", "dangling.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(r.Root, "real/new.md")))
}

// Difference 4: the task number is literal.
func TestTaskNumberIsLiteral(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("plan.md", "## Task 12\ntwelve\n## Task 1.\none-dot\n## Task 1\none\n")
	res := r.Run("", "task-brief", "plan.md", "1.", "out.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "## Task 1.\none-dot\n", readFile(t, filepath.Join(r.Root, "out.md")))
	for _, n := range []string{"(", `\61`, "[0-9]", "1*"} {
		res = r.Run("", "task-brief", "plan.md", n, "out.md")
		assert.Equal(t, 3, res.Code, "task %q: %s", n, res.Stderr)
		assert.Equal(t, "task "+n+" not found in plan.md (no heading matching 'Task "+n+"')\n", res.Stderr)
	}
}

// Difference 5: OUTFILE is the plan.
func TestOutfileThatIsThePlanIsRefused(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/plan.md", twoTasks)
	r.Commit("one")
	symlink(t, "docs/plan.md", filepath.Join(r.Root, "alias.md"))
	for _, out := range []string{"docs/plan.md", "./docs/plan.md", filepath.Join(r.Root, "docs/plan.md"), "alias.md", "docs/../docs/plan.md"} {
		res := r.Run("", "task-brief", "docs/plan.md", "1", out)
		assert.Equal(t, 2, res.Code, out)
		assert.Contains(t, res.Stderr, out)
		res = r.Run("", "review-package", "docs/plan.md", "HEAD", "HEAD", out)
		assert.Equal(t, 2, res.Code, out)
		assert.Equal(t, twoTasks, readFile(t, filepath.Join(r.Root, "docs/plan.md")))
	}
	assertNoTemps(t, r.Root)
}

// Difference 6: any plan name is a file name.
func TestDashAndAssignmentPlanNamesAreFiles(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	for _, tc := range []struct{ plan, slug string }{
		{"-p.md", "-p"}, {"--x.md", "--x"}, {"--", "--"}, {"-", "-"}, {"a=b.md", "a=b"}, {"--suffix=x.md", "--suffix=x"},
	} {
		r.Write(tc.plan, twoTasks)
		res := r.Run("", "sdd-workspace", tc.plan)
		require.Equal(t, 0, res.Code, "%s: %s", tc.plan, res.Stderr)
		assert.Equal(t, ws(r, tc.slug)+"\n", res.Stdout)
		res = r.Run("", "task-brief", tc.plan, "2")
		require.Equal(t, 0, res.Code, "%s: %s", tc.plan, res.Stderr)
		assert.Equal(t, "## Task 2: second\n\nDo two.\n", readFile(t, filepath.Join(ws(r, tc.slug), "task-2-brief.md")))
	}
}

// Difference 8: a revision that looks like an option never reaches git.
func TestDashRevisionsAreBadRevisions(t *testing.T) {
	t.Parallel()
	r := planRepo(t)
	r.Commit("one")
	escape := filepath.Join(testutil.RealTempDir(t), "x")
	for _, rev := range []string{"--all", "-n", "--default", "--output=" + escape, "-c", "--prefix"} {
		res := r.Run("", "review-package", "plan.md", rev, "HEAD", "out.diff")
		assert.Equal(t, 2, res.Code, rev)
		assert.Equal(t, "bad BASE: "+rev+"\n", res.Stderr)
		res = r.Run("", "review-package", "plan.md", "HEAD", rev, "out.diff")
		assert.Equal(t, 2, res.Code, rev)
		assert.Equal(t, "bad HEAD: "+rev+"\n", res.Stderr)
	}
	assert.NoFileExists(t, escape)
	assert.NoFileExists(t, escape+"..HEAD") // what `rev-list --count --output=F..HEAD` makes
	assert.NoFileExists(t, filepath.Join(r.Root, "out.diff"))
}
