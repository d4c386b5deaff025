package commands_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// run runs cmd in this process as its binary would run it, and returns its
// exit status, stdout and stderr.
func run(cmd cliapp.Command, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	status := cliapp.Run(context.Background(), cmd, append([]string{cmd.Name}, args...), &stdout, &stderr)
	return status, stdout.String(), stderr.String()
}

// taskRange makes a repository with a plan and a task of two commits, and
// enters it; it returns BASE.
func taskRange(t *testing.T) (*testutil.Repo, string) {
	t.Helper()
	r := testutil.NewRepo(t)
	r.Enter()
	base := r.Commit("plan", "plan.md", "## Task 1\n\nDo it.\n")
	r.Commit("one", "a.txt", "a\n")
	r.Commit("two", "b.txt", "b\n")
	return r, base
}

// withoutGit leaves no git on PATH for the rest of the test.
func withoutGit(t *testing.T) { t.Setenv("PATH", t.TempDir()) }

// review-package judges, in the script's order: the argument count, the
// plan, BASE, HEAD, then the output. Each case is bad in two ways; only
// the first is reported. A revision that reads as an option is judged
// without git (here there is none to ask).
func TestReviewPackageChecksInOrder(t *testing.T) {
	_, base := taskRange(t)
	for _, tc := range []struct {
		name   string
		args   []string
		noGit  bool
		status int
		stderr string
	}{
		{"count before plan", []string{"nope.md", base}, false, 2, "usage: review-package PLAN_FILE BASE HEAD [OUTFILE]\n"},
		{"plan before BASE", []string{"nope.md", "nope", "HEAD"}, false, 2, "no such plan file: nope.md\n"},
		{"BASE before HEAD", []string{"plan.md", "nope1", "nope2", "out.diff"}, false, 2, "bad BASE: nope1\n"},
		{"BASE before the output", []string{"plan.md", "nope", "HEAD", "plan.md"}, false, 2, "bad BASE: nope\n"},
		{"HEAD before the output", []string{"plan.md", base, "nope", "plan.md"}, false, 2, "bad HEAD: nope\n"},
		{"a dash BASE needs no git", []string{"plan.md", "--output=x", "-n", "out.diff"}, true, 2, "bad BASE: --output=x\n"},
		{"BASE, with git's word, before a dash HEAD", []string{"plan.md", base, "-n", "out.diff"}, true, 2,
			"review-package: git: command not found (git must be on PATH)\nbad BASE: " + base + "\n"},
		{"a dash HEAD after a good BASE", []string{"plan.md", base, "-n", "out.diff"}, false, 2, "bad HEAD: -n\n"},
		{"the output is the plan", []string{"plan.md", base, "HEAD", "./plan.md"}, false, 2,
			"review-package: refusing to write ./plan.md: it is the plan file plan.md\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noGit {
				withoutGit(t)
			}
			status, stdout, stderr := run(commands.ReviewPackage, tc.args...)
			assert.Equal(t, tc.status, status)
			assert.Equal(t, tc.stderr, stderr)
			assert.Empty(t, stdout)
			for _, name := range []string{"out.diff", "x", ".superpowers"} {
				assert.NoFileExists(t, name)
				assert.NoDirExists(t, name)
			}
		})
	}
}

func TestReviewPackageWritesAndCounts(t *testing.T) {
	r, base := taskRange(t)
	status, stdout, stderr := run(commands.ReviewPackage, "plan.md", base, "HEAD", "out.diff")
	require.Equal(t, 0, status, stderr)
	fi, err := os.Stat("out.diff")
	require.NoError(t, err)
	assert.Equal(t, "wrote out.diff: 2 commit(s), "+strconv.FormatInt(fi.Size(), 10)+" bytes\n", stdout)
	assert.Empty(t, stderr)

	// Without OUTFILE: the workspace, named after the short revisions.
	status, stdout, stderr = run(commands.ReviewPackage, "plan.md", base, "HEAD")
	require.Equal(t, 0, status, stderr)
	want := filepath.Join(r.Root, ".superpowers", "sdd", "plan", "review-"+r.Git("rev-parse", "--short", base)+".."+r.Git("rev-parse", "--short", "HEAD")+".diff")
	fi, err = os.Stat(want)
	require.NoError(t, err)
	assert.Equal(t, "wrote "+want+": 2 commit(s), "+strconv.FormatInt(fi.Size(), 10)+" bytes\n", stdout)
}

// A full commit name that names nothing passes rev-parse --verify, as in
// the script, and fails in git log: git's status and words, no package.
func TestReviewPackageHandsOnGitsFailure(t *testing.T) {
	taskRange(t)
	const missing = "0123456789012345678901234567890123456789"
	status, stdout, stderr := run(commands.ReviewPackage, "plan.md", missing, "HEAD", "out.diff")
	assert.Equal(t, 128, status)
	assert.Contains(t, stderr, "fatal: Invalid revision range "+missing+"..HEAD")
	assert.Empty(t, stdout)
	assert.NoFileExists(t, "out.diff")
}

// task-brief: the argument count, the plan, then (after the output is
// checked) the task.
func TestTaskBriefChecksInOrder(t *testing.T) {
	taskRange(t)
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"count before plan", []string{"nope.md"}, 2, "usage: task-brief PLAN_FILE TASK_NUMBER [OUTFILE]\n"},
		{"plan before output", []string{"nope.md", "1", "plan.md"}, 2, "no such plan file: nope.md\n"},
		{"the output is the plan", []string{"plan.md", "9", "plan.md"}, 2, "task-brief: refusing to write plan.md: it is the plan file plan.md\n"},
		{"no such task", []string{"plan.md", "9", "out.md"}, 3, "task 9 not found in plan.md (no heading matching 'Task 9')\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, stdout, stderr := run(commands.TaskBrief, tc.args...)
			assert.Equal(t, tc.status, status)
			assert.Equal(t, tc.stderr, stderr)
			assert.Empty(t, stdout)
			assert.NoFileExists(t, "out.md")
		})
	}
	status, stdout, stderr := run(commands.TaskBrief, "plan.md", "1", "out.md")
	require.Equal(t, 0, status, stderr)
	assert.Equal(t, "wrote out.md: 3 lines\n", stdout)
}
