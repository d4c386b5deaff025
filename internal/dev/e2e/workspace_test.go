//go:build !windows

package e2e

// Difference 2 (docs/spec.md): which directory a plan gets. A plan is the
// file the kernel reaches through its spelling (symlinks and ".." in the
// kernel's order, never cleaned first), and a workspace the bash scripts
// left behind is adopted only when its ledger does not name another plan.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/reference"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// symlinkedPlans is a repository holding plan.md at its root and a second
// plan.md in other/, reached from the root as link/../plan.md, where link
// points at other/sub: the kernel reads that spelling as other/plan.md,
// a lexical clean as the root's plan.md.
func symlinkedPlans(t *testing.T, withRootPlan bool) *testutil.Repo {
	t.Helper()
	r := testutil.NewRepo(t)
	if withRootPlan {
		r.Write("plan.md", "## Task 1\nroot plan\n")
	}
	r.Write("other/plan.md", "## Task 1\nother plan\n")
	r.Write("other/sub/.keep", "")
	require.NoError(t, os.Symlink("other/sub", filepath.Join(r.Root, "link")))
	return r
}

func TestDotDotAfterASymlinkIsTheKernels(t *testing.T) {
	t.Parallel()
	r := symlinkedPlans(t, true)
	res := r.Run("", "sdd-workspace", "plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan")+"\n", res.Stdout)

	// Another file: it must not share the root plan's workspace.
	requireWorkspace(t, r, "", "link/../plan.md", ws(r, "plan-other"), "other/plan.md")
	assert.Equal(t, "plan.md\n", readFile(t, filepath.Join(ws(r, "plan"), "plan-path")))

	// Its brief is the other plan's text, in its own workspace.
	res = r.Run("", "task-brief", "link/../plan.md", "1")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "## Task 1\nother plan\n", readFile(t, filepath.Join(ws(r, "plan-other"), "task-1-brief.md")))
}

func TestDotDotAfterASymlinkWithoutARootPlan(t *testing.T) {
	t.Parallel()
	// The script succeeds here (it only takes the basename); so must we,
	// where a lexical clean looks for a plan.md at the root and fails.
	r := symlinkedPlans(t, false)
	requireWorkspace(t, r, "", "link/../plan.md", ws(r, "plan"), "other/plan.md")
}

func TestEverySpellingOfTheKernelsPlanIsOnePlan(t *testing.T) {
	t.Parallel()
	r := symlinkedPlans(t, true)
	r.Write("x/.keep", "")
	require.NoError(t, os.Symlink(filepath.Join(r.Root, "other"), filepath.Join(r.Root, "abslink")))
	for _, s := range []struct{ dir, plan string }{
		{"", "./x/../plan.md"},
		{"", filepath.Join(r.Root, "plan.md")},
		{"link", "../../plan.md"}, // from inside other/sub, via the link
	} {
		res := r.Run(s.dir, "sdd-workspace", s.plan)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, ws(r, "plan")+"\n", res.Stdout, "%s in %q", s.plan, s.dir)
	}
	for _, s := range []struct{ dir, plan string }{
		{"", "link/../plan.md"},
		{"", "other/plan.md"},
		{"", "abslink/plan.md"},
		{"", r.Root + "/link/../plan.md"}, // not filepath.Join: it would clean the ".." away
		{"", r.Root + "/abslink/sub/../plan.md"},
		{"link", "../plan.md"},
	} {
		res := r.Run(s.dir, "sdd-workspace", s.plan)
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, ws(r, "plan-other")+"\n", res.Stdout, "%s in %q", s.plan, s.dir)
	}
}

func TestLogicalWorkingDirectoryDoesNotMislead(t *testing.T) {
	t.Parallel()
	// A shell that cd'ed through a symlink keeps the logical path in $PWD;
	// "../plan.md" from there is still the kernel's: the parent of the
	// link's target.
	r := symlinkedPlans(t, true)
	env := append(append([]string{}, r.Env...), "PWD="+filepath.Join(r.Root, "link"))
	res := testutil.RunIn(filepath.Join(r.Root, "link"), env, testutil.Bin(t, "sdd-workspace"), "../plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan")+"\n", res.Stdout) // the slug is free: the root plan never asked
	assert.Equal(t, "other/plan.md\n", readFile(t, filepath.Join(ws(r, "plan"), "plan-path")))
}

// ledger is a reference-made workspace's ledger naming plan.
func ledger(plan string, lines ...string) string {
	return "# SDD ledger — plan: " + plan + "\n" + strings.Join(append(lines, ""), "\n")
}

func TestForeignLedgerIsSkippedUntouched(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/a/plan.md", twoTasks)
	r.Write("docs/b/plan.md", twoTasks)
	// Plan A's run by the bash scripts: a workspace without a marker.
	foreign := ledger("docs/a/plan.md", "Task 1: base=abc", "Task 1: complete (commits abc..def, review clean)")
	r.Write(".superpowers/sdd/plan/progress.md", foreign)
	r.Write(".superpowers/sdd/plan/task-1-brief.md", "A's brief\n")

	requireWorkspace(t, r, "", "docs/b/plan.md", ws(r, "plan-b"), "docs/b/plan.md")
	// Plan A's directory is exactly as it was: no marker, same files.
	assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "plan-path"))
	assert.Equal(t, foreign, readFile(t, filepath.Join(ws(r, "plan"), "progress.md")))
	assert.Equal(t, "A's brief\n", readFile(t, filepath.Join(ws(r, "plan"), "task-1-brief.md")))
	entries, err := os.ReadDir(ws(r, "plan"))
	require.NoError(t, err)
	assert.Len(t, entries, 2)

	// Briefs and packages of B go to B's directory.
	res := r.Run("", "task-brief", "docs/b/plan.md", "1")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote "+filepath.Join(ws(r, "plan-b"), "task-1-brief.md")+": 4 lines\n", res.Stdout)
	assert.Equal(t, "A's brief\n", readFile(t, filepath.Join(ws(r, "plan"), "task-1-brief.md")))

	// Plan A itself still adopts its own directory.
	requireWorkspace(t, r, "", "docs/a/plan.md", ws(r, "plan"), "docs/a/plan.md")
	assert.Equal(t, foreign, readFile(t, filepath.Join(ws(r, "plan"), "progress.md")))
}

// onlyLedger leaves r no workspace but plan's, holding progress as its
// ledger.
func onlyLedger(t *testing.T, r *testutil.Repo, progress string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(filepath.Join(r.Root, ".superpowers")))
	r.Write(".superpowers/sdd/plan/progress.md", progress)
}

func TestOwnLedgerIsAdoptedHoweverItSpellsThePlan(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/plan.md", twoTasks)
	r.Write("sub/.keep", "")
	abs := filepath.Join(r.Root, "docs", "plan.md")
	for _, spelling := range []string{
		"docs/plan.md", "./docs/plan.md", abs, "docs//plan.md", "sub/../docs/plan.md",
		"docs/plan.md\r", "docs/plan.md \t", // trailing CR and blanks
	} {
		t.Run(strings.NewReplacer("/", "_", "\r", "CR", "\t", "TAB").Replace(spelling), func(t *testing.T) {
			own := "# SDD ledger — plan: " + spelling + "\nTask 1: base=abc\n"
			onlyLedger(t, r, own)
			requireWorkspace(t, r, "docs", "plan.md", ws(r, "plan"), "docs/plan.md")
			assert.Equal(t, own, readFile(t, filepath.Join(ws(r, "plan"), "progress.md")))
		})
	}
}

func TestLedgerIdentityLineIsParsedExactly(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("docs/b/plan.md", twoTasks)
	for _, c := range []struct {
		name, progress string
		adopted        bool
	}{
		{"no identity line", "Task 1: base=abc\n", true},
		{"empty ledger", "", true},
		{"hyphen instead of em dash", "# SDD ledger - plan: docs/a/plan.md\n", true},
		{"identity on the second line", "\n# SDD ledger — plan: docs/a/plan.md\n", true},
		{"foreign, CRLF", "# SDD ledger — plan: docs/a/plan.md\r\nTask 1: base=abc\r\n", false},
		{"foreign, no newline", "# SDD ledger — plan: docs/a/plan.md", false},
		{"foreign plan that no longer exists", ledger("docs/gone/plan.md"), false},
		{"foreign absolute", ledger("/nowhere/plan.md"), false},
		{"own, spelled with ..", ledger("docs/b/../b/plan.md"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			onlyLedger(t, r, c.progress)
			res := r.Run("", "sdd-workspace", "docs/b/plan.md")
			require.Equal(t, 0, res.Code, res.Stderr)
			if c.adopted {
				assert.Equal(t, ws(r, "plan")+"\n", res.Stdout)
				return
			}
			assert.Equal(t, ws(r, "plan-b")+"\n", res.Stdout)
			assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "plan-path"))
			assert.Equal(t, c.progress, readFile(t, filepath.Join(ws(r, "plan"), "progress.md")))
		})
	}
}

func TestLedgerOfAPlanThatNoLongerExistsIsComparedByPath(t *testing.T) {
	t.Parallel()
	// The ledger names docs/plan.md, which was moved away and then brought
	// back under the same name: the same repository-relative path is the
	// same plan, so the run resumes in its directory.
	r := testutil.NewRepo(t)
	r.Write(".superpowers/sdd/plan/progress.md", ledger("./docs/plan.md", "Task 1: base=abc"))
	r.Write("docs/plan.md", twoTasks)
	res := r.Run("", "sdd-workspace", "docs/plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan")+"\n", res.Stdout)

	// A marker naming a plan that is gone is not this plan's.
	r.Write(".superpowers/sdd/gone/plan-path", "old/gone.md\n")
	r.Write("new/gone.md", twoTasks)
	res = r.Run("", "sdd-workspace", "new/gone.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "gone-new")+"\n", res.Stdout)
	assert.Equal(t, note(ws(r, "gone"), "old/gone.md", "new/gone.md"), res.Stderr)
}

func TestConcurrentCallsBesideAForeignLedger(t *testing.T) {
	t.Parallel()
	r := testutil.NewRepo(t)
	r.Write("a/plan.md", twoTasks)
	r.Write("b/plan.md", twoTasks)
	r.Write("c/plan.md", twoTasks)
	for round := 0; round < 3; round++ {
		onlyLedger(t, r, ledger("c/plan.md"))
		dirs := workspacesAtOnce(t, r, append(repeat("a/plan.md", 8), repeat("b/plan.md", 8)...))
		dirA, dirB := assertOneEach(t, dirs, "a/plan.md", "b/plan.md")
		assert.NotEqual(t, ws(r, "plan"), dirA, "the foreign ledger's directory is never handed out")
		assert.NotEqual(t, ws(r, "plan"), dirB, "the foreign ledger's directory is never handed out")
		assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "plan-path"))
	}
}

func TestMarkerWithoutNewlineIsReadAtOnce(t *testing.T) {
	t.Parallel()
	// Markers are published whole; one without its newline (written by
	// hand) is complete, not "being written": no waiting for it.
	// Timed against the same run on a marker with its newline, round by
	// round: a load on the machine slows both, a wait (100 ms) only one.
	r := testutil.NewRepo(t)
	r.Write("docs/plan.md", twoTasks)
	r.Write(".superpowers/sdd/plan/plan-path", "docs/plan.md")
	whole := testutil.NewRepo(t)
	whole.Write("docs/plan.md", twoTasks)
	whole.Write(".superpowers/sdd/plan/plan-path", "docs/plan.md\n")
	fastest := map[*testutil.Repo]time.Duration{r: time.Hour, whole: time.Hour}
	for i := 0; i < 5; i++ {
		for _, repo := range []*testutil.Repo{r, whole} {
			start := time.Now()
			res := repo.Run("", "sdd-workspace", "docs/plan.md")
			fastest[repo] = min(fastest[repo], time.Since(start))
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Equal(t, ws(repo, "plan")+"\n", res.Stdout)
		}
	}
	assert.Less(t, fastest[r], fastest[whole]+60*time.Millisecond, "a complete marker costs no wait")
	assert.Equal(t, "docs/plan.md", readFile(t, filepath.Join(ws(r, "plan"), "plan-path")))
}

// referenceScripts is the directory of the reference scripts named by
// $SDD_REFERENCE, or "" when it is not set: the cases that run the
// reference beside ours then check ours alone. (An installed plugin is not
// looked for: its version may not be the one docs/spec.md describes.)
func referenceScripts(t *testing.T) string {
	t.Helper()
	dir, err := reference.Find(os.Getenv, "")
	if err != nil {
		t.Logf("the reference is not run beside ours: %v", err)
		return ""
	}
	return dir
}

// note is the line sdd-workspace prints for a workspace it passed over
// because the plan its marker or ledger records no longer exists.
func note(dir, recorded, plan string) string {
	return "sdd-workspace: note: " + dir + " belongs to " + recorded + ", which no longer exists; if " +
		plan + " moved from there, its ledger is " + filepath.Join(dir, "progress.md") + "\n"
}

// Difference 2 (2026-12-03): a plan moved with git mv does not silently
// inherit the old path's workspace, nor silently lose it: ours keeps the
// new name and says on stderr which workspace the old path owned, so a
// human can decide. The reference takes the old directory by basename.
// task-brief and review-package resolve the same workspace without a word.
func TestMovedPlanIsNamedNotAdopted(t *testing.T) {
	t.Parallel()
	moved := func(t *testing.T) *testutil.Repo {
		r := testutil.NewRepo(t)
		r.Write("docs/plan.md", twoTasks)
		r.Commit("plan")
		return r
	}
	mv := func(r *testutil.Repo) {
		require.NoError(t, os.MkdirAll(filepath.Join(r.Root, "plans"), 0o755))
		r.Git("mv", "docs/plan.md", "plans/plan.md")
		r.Git("commit", "-q", "-m", "move")
	}

	r := moved(t)
	res := r.Run("", "sdd-workspace", "docs/plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	require.Equal(t, ws(r, "plan")+"\n", res.Stdout)
	r.Write(".superpowers/sdd/plan/progress.md", ledger("docs/plan.md", "Task 1: base=abc"))
	mv(r)
	res = r.Run("", "sdd-workspace", "plans/plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan-plans")+"\n", res.Stdout)
	assert.Equal(t, note(ws(r, "plan"), "docs/plan.md", "plans/plan.md"), res.Stderr)
	assert.Equal(t, "docs/plan.md\n", readFile(t, filepath.Join(ws(r, "plan"), "plan-path")), "the old workspace is untouched")
	// The plan as given, from a subdirectory: the note names it so.
	res = r.Run("plans", "sdd-workspace", "./plan.md")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, ws(r, "plan-plans")+"\n", res.Stdout)
	assert.Equal(t, note(ws(r, "plan"), "docs/plan.md", "./plan.md"), res.Stderr)
	// The per-task commands resolve the same workspace silently.
	res = r.Run("", "task-brief", "plans/plan.md", "1")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Equal(t, "wrote "+filepath.Join(ws(r, "plan-plans"), "task-1-brief.md")+": 4 lines\n", res.Stdout)
	assert.Empty(t, res.Stderr)
	res = r.Run("", "review-package", "plans/plan.md", "HEAD~1", "HEAD")
	require.Equal(t, 0, res.Code, res.Stderr)
	assert.Contains(t, res.Stdout, "wrote "+ws(r, "plan-plans")+string(filepath.Separator)+"review-")
	assert.Empty(t, res.Stderr)

	if ref := referenceScripts(t); ref != "" {
		r := moved(t)
		res := testutil.RunIn(r.Root, r.Env, filepath.Join(ref, "sdd-workspace"), "docs/plan.md")
		require.Equal(t, 0, res.Code, res.Stderr)
		mv(r)
		res = testutil.RunIn(r.Root, r.Env, filepath.Join(ref, "sdd-workspace"), "plans/plan.md")
		require.Equal(t, 0, res.Code, res.Stderr)
		assert.Equal(t, ws(r, "plan")+"\n", res.Stdout, "the reference takes the old directory by basename")
		assert.Empty(t, res.Stderr)
	}
}

// The same note for a directory the reference scripts made (no marker)
// whose ledger names a plan that is gone; none for a directory whose owner
// still exists, marker or ledger.
func TestStrandedWorkspacesAreNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		marker   string // "" for none
		ledger   string // the ledger's identity line's path, "" for no ledger
		exists   bool   // the recorded plan is a file
		recorded string // the path the note names, "" for no note
	}{
		{name: "reference-made, ledger names a gone plan", ledger: "old/plan.md", recorded: "old/plan.md"},
		{name: "reference-made, ledger names a gone plan with CR and blanks", ledger: "old/plan.md \t\r", recorded: "old/plan.md"},
		{name: "reference-made, ledger names an existing plan", ledger: "old/plan.md", exists: true},
		{name: "marker names an existing plan", marker: "old/plan.md\n", exists: true},
		{name: "marker names a gone plan", marker: "old/plan.md\n", recorded: "old/plan.md"},
		{name: "marker names a gone plan, ledger another", marker: "old/plan.md\n", ledger: "other/plan.md", recorded: "old/plan.md"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			run := func(t *testing.T, r *testutil.Repo, prog string) testutil.Result {
				r.Write("new/plan.md", twoTasks)
				if c.exists {
					r.Write("old/plan.md", twoTasks)
				}
				if c.marker != "" {
					r.Write(".superpowers/sdd/plan/plan-path", c.marker)
				}
				if c.ledger != "" {
					r.Write(".superpowers/sdd/plan/progress.md", ledger(c.ledger, "Task 1: base=abc"))
				}
				return testutil.RunIn(r.Root, r.Env, prog, "new/plan.md")
			}
			r := testutil.NewRepo(t)
			res := run(t, r, testutil.Bin(t, "sdd-workspace"))
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Equal(t, ws(r, "plan-new")+"\n", res.Stdout)
			if c.recorded == "" {
				assert.Empty(t, res.Stderr)
			} else {
				assert.Equal(t, note(ws(r, "plan"), c.recorded, "new/plan.md"), res.Stderr)
			}
			assert.NoFileExists(t, filepath.Join(ws(r, "plan"), "task-1-brief.md"))
			res = testutil.RunIn(r.Root, r.Env, testutil.Bin(t, "task-brief"), "new/plan.md", "1")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Empty(t, res.Stderr, "task-brief resolves silently")

			if ref := referenceScripts(t); ref != "" && c.marker == "" {
				r := testutil.NewRepo(t)
				res := run(t, r, filepath.Join(ref, "sdd-workspace"))
				require.Equal(t, 0, res.Code, res.Stderr)
				assert.Equal(t, ws(r, "plan")+"\n", res.Stdout, "the reference uses the directory of the basename")
			}
		})
	}
}
