package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The walk-through: the follower (internal/dev/follower) reads the skill
// text as the Skill tool hands it over and follows it literally, block by
// block, with the real commands, real git and scripted subagents, through
// a whole run. It is the text's proof: a block that fails under sh, a
// placeholder the text does not define, a block that is missing or
// misnamed, a wrong resume row, a ledger line that does not come out
// right, or a step that costs more calls than the v6.2.0 text needed makes
// one of these tests fail.

const walkPlanPath = "docs/plans/greet.md"

const walkPlan = "# Greeting plan\n\n" +
	"## Global Constraints\n- Plain text files only, each ending with a newline.\n\n" +
	"## Task 1: Greeting\nCreate greet.txt containing `hello`, and check1.sh that checks it.\n\n" +
	"## Task 2: Farewell\nCreate bye.txt containing `bye`.\n\n" +
	"## Task 3: Index\nList greet.txt and bye.txt in index.txt.\n"

// walkScenario is the run of skill/example.md: Task 1 in two commits with
// a Minor and a spec ⚠️ the controller's check settles, Task 2 with a
// planted Important defect fixed in round 1, Task 3 clean, a final review
// with one Minor.
func walkScenario() follower.Scenario {
	return follower.Scenario{
		Plan: walkPlanPath,
		Tasks: []follower.Task{
			{N: 1, Title: "Greeting", Test: "sh check1.sh",
				Commits: []follower.Commit{
					{Message: "Task 1: greet.txt", Files: []follower.File{{Path: "greet.txt", Content: "hello\n"}}},
					{Message: "Task 1: check1.sh", Files: []follower.File{{Path: "check1.sh", Content: "grep -qx hello greet.txt\n"}}},
				},
				Minors:       []string{"check1.sh repeats the file name"},
				Unverifiable: "greet.txt reads hello when check1.sh runs: run sh check1.sh"},
			{N: 2, Title: "Farewell", Test: "test -s bye.txt",
				Commits: []follower.Commit{{Message: "Task 2: bye.txt", Files: []follower.File{{Path: "bye.txt", Content: "bye\n"}}}},
				Defect:  &follower.Defect{Path: "bye.txt", Wrong: "goodby\n", Marker: "goodby", Finding: "bye.txt:1 says goodby, the brief says bye"}},
			{N: 3, Title: "Index", Test: "test -s index.txt",
				Commits: []follower.Commit{{Message: "Task 3: index.txt", Files: []follower.File{{Path: "index.txt", Content: "greet.txt\nbye.txt\n"}}}}},
		},
		FinalMinors: []string{"naming drift between greet and bye"},
	}
}

// walkRepo is a repository with the plan committed on main and the run's
// branch checked out.
func walkRepo(t *testing.T, planPath, plan string) *testutil.Repo {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("plan", planPath, plan)
	repo.Git("checkout", "-q", "-b", "feature/run")
	return repo
}

// controllerCalls are the controller's tool calls (its Say ends a turn and
// is no tool call).
func controllerCalls(calls []directCall) []directCall {
	var out []directCall
	for _, c := range calls {
		if c.Actor == "controller" && c.Tool != "Say" {
			out = append(out, c)
		}
	}
	return out
}

// failedCalls lists every call of the run that failed.
func failedCalls(calls []directCall) []string {
	var out []string
	for _, c := range calls {
		if c.IsError {
			out = append(out, fmt.Sprintf("%s %s %.300q: %.600q", c.Actor, c.Tool, c.Input, c.Output))
		}
	}
	return out
}

// requireFinished fails unless the controller's last words are the end of
// a run and no call failed, showing the calls when not.
func requireFinished(t *testing.T, r *directRun) {
	t.Helper()
	if !strings.HasPrefix(r.final, "Done: ") || len(failedCalls(r.calls)) > 0 {
		t.Fatalf("the run did not finish cleanly: %s\nfailed calls:\n%s\ncalls:\n%s", r.final, strings.Join(failedCalls(r.calls), "\n"), callList(r.calls))
	}
}

// callList is the run as a readable list, for failure messages.
func callList(calls []directCall) string {
	var b strings.Builder
	for i, c := range calls {
		first, _, _ := strings.Cut(c.Input, "\n")
		fmt.Fprintf(&b, "%3d %-11s %-11s %.140s", i+1, c.Actor, c.Tool, first)
		if c.IsError {
			fmt.Fprintf(&b, "  [error: %.300q]", c.Output)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// stepCounts splits the controller's calls into setup, tasks and final:
// a task's calls run from the call that writes its `Task <N>: base=` line
// to the call before the next task's such call; the final review's from
// the call that writes `Final: base=`. setup is the calls before Task 1's.
func stepCounts(calls []directCall, tasks int) (setup int, perTask []int, final int) {
	cc := controllerCalls(calls)
	start := func(prefix string) int {
		for i, c := range cc {
			for _, l := range c.Ledgers {
				if strings.Contains("\n"+l, "\n"+prefix) {
					return i
				}
			}
		}
		return -1
	}
	var starts []int
	for n := 1; n <= tasks; n++ {
		starts = append(starts, start(fmt.Sprintf("Task %d: base=", n)))
	}
	starts = append(starts, start("Final: base="), len(cc))
	for n := 0; n < tasks; n++ {
		perTask = append(perTask, starts[n+1]-starts[n])
	}
	return starts[0], perTask, starts[tasks+1] - starts[tasks]
}

// shas are the branch's commits, oldest first, after start.
func branchCommits(repo *testutil.Repo, start string) []string {
	return strings.Fields(repo.Git("log", "--reverse", "--format=%H", start+"..HEAD"))
}

func short(repo *testutil.Repo, sha string) string { return repo.Git("rev-parse", "--short", sha) }

func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// The v6.2.0 text's cost, measured by following it: a three-task run with
// one fix round took about 5, 9 and 4 controller calls for its tasks.
var walkCeilings = []int{5, 9, 4}

func TestWalkThrough(t *testing.T) {
	repo := walkRepo(t, walkPlanPath, walkPlan)
	mainHead := repo.Git("rev-parse", "main")
	r := runDirect(t, repo, walkScenario(), directOptions{})
	requireFinished(t, r)

	// The commits: Task 1's two, Task 2's and its fix, Task 3's.
	c := branchCommits(repo, "main")
	require.Len(t, c, 5, repo.Git("log", "--oneline", "main..HEAD"))
	assert.Equal(t, "Task 1: greet.txt\nTask 1: check1.sh\nTask 2: bye.txt\nTask 2: fix F1\nTask 3: index.txt",
		repo.Git("log", "--reverse", "--format=%s", "main..HEAD"))
	assert.Equal(t, "bye\n", readFileT(t, filepath.Join(repo.Root, "bye.txt")), "the fix round fixed the defect")
	assert.Empty(t, repo.Git("status", "--porcelain"), "nothing of the run is left for git to see")

	// The workspace is gone, and only it.
	ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	assert.NoDirExists(t, ws)
	assert.Equal(t, []string{".gitignore"}, dirFiles(t, filepath.Join(repo.Root, ".superpowers", "sdd")))

	// The ledger as Finish found it, line by line, and the files beside it.
	kept := filepath.Join(r.keep, "greet")
	s := func(sha string) string { return short(repo, sha) }
	want := strings.Join([]string{
		"# SDD ledger — plan: " + walkPlanPath,
		"Task 1: base=" + mainHead,
		"Task 1: implementer=agent-1",
		"Task 1: reviewed_head=" + c[1],
		"Task 1: minor (deferred): check1.sh repeats the file name",
		fmt.Sprintf("Task 1: complete (commits %s..%s, review clean)", s(mainHead), s(c[1])),
		"Task 2: base=" + c[1],
		"Task 2: implementer=agent-3",
		"Task 2: reviewed_head=" + c[2],
		"Task 2: reviewed_head=" + c[3],
		fmt.Sprintf("Task 2: fix round 1/5 (1 addressed, 0 open — none; commits %s..%s)", s(c[2]), s(c[3])),
		fmt.Sprintf("Task 2: complete (commits %s..%s, review clean)", s(c[1]), s(c[3])),
		"Task 3: base=" + c[3],
		"Task 3: implementer=agent-6",
		"Task 3: reviewed_head=" + c[4],
		fmt.Sprintf("Task 3: complete (commits %s..%s, review clean)", s(c[3]), s(c[4])),
		"Final: base=" + mainHead,
		"Final: reviewed_head=" + c[4],
		"Final: minor (deferred): naming drift between greet and bye",
		fmt.Sprintf("Final: complete (commits %s..%s, review clean)", s(mainHead), s(c[4])),
	}, "\n") + "\n"
	assert.Equal(t, want, readFileT(t, filepath.Join(kept, "progress.md")))
	pkg := func(a, b string) string { return "review-" + s(a) + ".." + s(b) }
	var files []string
	for _, p := range []string{pkg(mainHead, c[1]), pkg(c[1], c[2]), pkg(c[2], c[3]), pkg(c[3], c[4]), pkg(mainHead, c[4])} {
		files = append(files, p+".diff", p+".md")
	}
	for n := 1; n <= 3; n++ {
		files = append(files, fmt.Sprintf("task-%d-brief.md", n), fmt.Sprintf("task-%d-report.md", n))
	}
	files = append(files, "constraints.md", "plan-path", "progress.md")
	sort.Strings(files)
	assert.Equal(t, files, dirFiles(t, kept))
	assert.Equal(t, "## Global Constraints\n- Plain text files only, each ending with a newline.\n\n", readFileT(t, filepath.Join(kept, "constraints.md")))
	assert.Contains(t, readFileT(t, filepath.Join(kept, "task-2-report.md")), "\n## Fix round 1\n", "the fix report was appended")
	assert.True(t, strings.HasPrefix(readFileT(t, filepath.Join(kept, pkg(mainHead, c[1])+".md")), "Spec: ⚠️\n"), "the review beside its package")

	// Every dispatch names its model; the fix went to the implementer by
	// SendMessage, loaded once.
	var models, tools []string
	for _, k := range controllerCalls(r.calls) {
		tools = append(tools, k.Tool)
		if k.Tool == "Agent" {
			models = append(models, k.Model)
		}
	}
	assert.Equal(t, []string{"sonnet", "opus", "sonnet", "opus", "sonnet", "sonnet", "opus", "opus"}, models)
	assert.Equal(t, []string{"Skill", "Bash", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "ToolSearch", "SendMessage", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash"}, tools, callList(r.calls))

	// What it costs, against the v6.2.0 text.
	setup, per, final := stepCounts(r.calls, 3)
	t.Logf("controller calls: setup %d (+1: Start the run is Task 1's first call), tasks %v, final %d; total %d",
		setup, per, final, len(controllerCalls(r.calls)))
	for i, n := range per {
		assert.LessOrEqual(t, n, walkCeilings[i], "Task %d costs %d controller calls, the v6.2.0 text %d", i+1, n, walkCeilings[i])
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}
