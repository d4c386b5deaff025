package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

const runPrompt = "Carry out the plan " + follower.WalkPlanPath + " with the " + follower.DefaultSkill + " skill."

// requireDone fails unless the follower's last words end a run.
func requireDone(t *testing.T, s *Session) {
	t.Helper()
	require.NotNil(t, s.Final, "the session has no result")
	require.True(t, strings.HasPrefix(s.Final.Result, "Done: "), "the controller's last words: %s\ntranscript:\n%s", s.Final.Result, s.Transcript())
}

// controllerUses are the main session's tool calls.
func controllerUses(s *Session) []ToolUse {
	var out []ToolUse
	for _, u := range s.Uses {
		if u.Agent == "" {
			out = append(out, u)
		}
	}
	return out
}

// names are the calls' tool names.
func names(uses []ToolUse) []string {
	var out []string
	for _, u := range uses {
		out = append(out, u.Name)
	}
	return out
}

// perTask splits the controller's calls at the calls that start each task
// (sdd-ledger task) and the final review (sdd-ledger final): the calls of
// setup, of each task, and of the final review.
func perTask(uses []ToolUse, tasks int) (setup int, each []int, final int) {
	start := func(marker string) int {
		for i, u := range uses {
			if u.Name == "Bash" && strings.Contains(u.Command(), marker) {
				return i
			}
		}
		return -1
	}
	var starts []int
	for n := 1; n <= tasks; n++ {
		starts = append(starts, start(fmt.Sprintf("sdd-ledger task '%s' %d", follower.WalkPlanPath, n)))
	}
	starts = append(starts, start("sdd-ledger final "), len(uses))
	for n := 0; n < tasks; n++ {
		each = append(each, starts[n+1]-starts[n])
	}
	return starts[0], each, starts[tasks+1] - starts[tasks]
}

// finished is the ledger as the run left it (follower.FinishedLedger):
// the copy FollowKeeping made before Finish, and the lines Finish's call
// recorded.
func finished(t *testing.T, s *Session, keep string) string {
	t.Helper()
	for _, u := range controllerUses(s) {
		if u.Name == "Bash" && strings.Contains(u.Command(), "sdd-ledger finish ") {
			r, ok := s.ResultOf(u.ID)
			require.True(t, ok, "Finish's call has no result")
			return follower.FinishedLedger(readFile(t, filepath.Join(keep, "greet", "progress.md")), r.Text)
		}
	}
	t.Fatalf("no call ran Finish")
	return ""
}

// TestFollowWalkThrough: the follower carries out skill/example.md's run
// in the real CLI, from the installed plugin, with only the permissions a
// user gives (the skill's allowed-tools for its commands; the plan's git
// and test commands for the subagents; no Bash for the controller): three
// tasks, a fix round, the final review, the workspace deleted, every
// dispatch in the foreground, so the whole run is one turn of the
// controller, in which the skill's commands stay pre-approved. Each task costs no more controller calls
// than the v6.2.0 text did, and the ledger, the workspace's files and the
// commits are the walk-through's.
func TestFollowWalkThrough(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h := New(t, repo)
	sc := follower.WalkScenario()
	h.Allow = sc.UserRules()
	keep := testutil.RealTempDir(t)
	mainHead := testutil.Git(t, repo, "rev-parse", "main")
	s := h.Run(runPrompt, FollowKeeping(sc, repo, keep))
	requireDone(t, s)

	uses := controllerUses(s)
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Read", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash"}, names(uses))
	setup, each, final := perTask(uses, 3)
	t.Logf("controller calls in the real CLI: setup %d, tasks %v, final %d (v6.2.0: tasks %v); %d requests, %v",
		setup, each, final, follower.WalkCeilings, len(h.Server.Requests()), s.Elapsed)
	for i, n := range each {
		assert.LessOrEqual(t, n, follower.WalkCeilings[i], "Task %d's controller calls", i+1)
	}
	assert.LessOrEqual(t, setup, 4, "setup's calls")
	assert.LessOrEqual(t, final, 3, "the final review's calls")

	// Every dispatch named its model, and the subagents ran on it: the
	// tasks are of the standard tier, the final reviewer the most capable.
	var models []string
	for _, u := range uses {
		if u.Name == "Agent" {
			var d Dispatch
			require.NoError(t, json.Unmarshal(u.Input, &d))
			models = append(models, d.Model)
		}
	}
	assert.Equal(t, []string{"sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "opus"}, models)

	// What the run left: five commits (the fix among them), the ledger
	// and the files of the workspace as they were before Finish, the
	// workspace deleted, the commands found in the plugin's bin/ (the
	// sessions' PATH holds no other copy).
	c := testutil.BranchCommits(t, repo)
	require.Len(t, c, 5)
	assert.Equal(t, "bye\n", readFile(t, filepath.Join(repo, "bye.txt")))
	short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
	ids := follower.ImplementerIDs(finished(t, s, keep))
	require.Len(t, ids, 4)
	assert.Equal(t, follower.WalkLedger(mainHead, c, short, ids...), finished(t, s, keep))
	pkg := func(a, b string) string { return "review-" + short(a) + ".." + short(b) }
	var files []string
	for _, x := range []string{pkg(mainHead, c[1]), pkg(c[1], c[2]), pkg(c[2], c[3]), pkg(c[3], c[4]), pkg(mainHead, c[4])} {
		files = append(files, x+".diff", x+".md")
	}
	for n := 1; n <= 3; n++ {
		files = append(files, fmt.Sprintf("task-%d-brief.md", n), fmt.Sprintf("task-%d-report.md", n))
	}
	files = append(files, "constraints.md", "plan-path", "progress.md")
	sort.Strings(files)
	assert.Equal(t, files, testutil.DirNames(t, filepath.Join(keep, "greet")))
	assert.NoDirExists(t, filepath.Join(repo, ".superpowers", "sdd", "greet"))
	assert.DirExists(t, filepath.Join(repo, ".superpowers", "sdd"))
	assert.FileExists(t, filepath.Join(h.Plugin, "bin", "sdd-ledger"))
	// What the human must still decide is in the last message.
	assert.Contains(t, s.Final.Result, "Task 1: minor (deferred): check1.sh repeats the file name")
	assert.Contains(t, s.Final.Result, "verdict: Final: complete")
}

// TestFollowLargePackage: a task whose package is over the Read tool's
// 256 KB; its reviewer and the final reviewer read it in parts of 2000
// lines, and no Read comes back refused.
func TestFollowLargePackage(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.BigPlanPath, follower.BigPlan)
	h := New(t, repo)
	sc := follower.BigScenario(7500)
	h.Allow = sc.UserRules()
	s := h.Run("Carry out the plan "+follower.BigPlanPath+" with the "+follower.DefaultSkill+" skill.", Follow(sc))
	requireDone(t, s)
	var parts []string
	for _, u := range s.Uses {
		if u.Agent == "" || u.Name != "Read" {
			continue
		}
		var in struct {
			Path   string `json:"file_path"`
			Offset int    `json:"offset"`
			Limit  int    `json:"limit"`
		}
		require.NoError(t, json.Unmarshal(u.Input, &in))
		if strings.HasSuffix(in.Path, ".diff") {
			require.NotZero(t, in.Limit, "a package read whole: %s", in.Path)
			parts = append(parts, fmt.Sprintf("%d/%d", in.Offset, in.Limit))
		}
	}
	// Task 1's package (4 parts), Task 2's (1), the final one (4).
	assert.Equal(t, []string{"1/2000", "2001/2000", "4001/2000", "6001/2000", "1/2000",
		"1/2000", "2001/2000", "4001/2000", "6001/2000"}, parts)
}

// TestFollowResume: for each state of follower.Resumes (one or more for
// each row of the text's state table), a run cut there, its files changed
// as the state says, and a new `claude -p` session in the same HOME and
// repository, which finds the state with Look (Look names the state's
// row) and takes the row's steps: the same list the direct executor
// resumes from.
func TestFollowResume(t *testing.T) {
	for _, c := range follower.Resumes() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
			h := New(t, repo)
			h.Allow = c.Scenario().UserRules()
			steps, err := follower.NewSteps(filepath.Join(h.Plugin, "skills", "subagent-driven-development"))
			require.NoError(t, err)
			cut := h.Run(runPrompt, FollowUntil(c.Scenario(), c.Cut))
			require.NotNil(t, cut.Final)
			require.Equal(t, CutText, cut.Final.Result)
			got := steps.Names(controllerCalls(cut))
			require.Len(t, got, c.Cut)
			require.Equal(t, c.After, got[c.Cut-1], "the cut's last step")
			ws := filepath.Join(repo, ".superpowers", "sdd", "greet")
			if c.Edit != nil {
				require.NoError(t, c.Edit(repo, ws))
			}
			keep := testutil.RealTempDir(t)
			s := h.Run("Resume the plan "+follower.WalkPlanPath+" with the "+follower.DefaultSkill+" skill.", FollowKeeping(c.Scenario(), repo, keep))
			got = steps.Names(controllerCalls(s))
			require.GreaterOrEqual(t, len(got), 3)
			require.Equal(t, []string{"Skill " + follower.DefaultSkill, "Read " + follower.HostFile("claude-code"), "Bash Look"}, got[:3])
			assert.Equal(t, c.Row, lookRow(t, s), "the row Look names")
			next := got[3:min(len(got), 3+len(c.Next))]
			require.Equal(t, c.Next, next, "the steps after Look; all of them:\n%s", strings.Join(got, "\n"))
			if c.Stop != "" {
				require.NotNil(t, s.Final)
				assert.Contains(t, s.Final.Result, c.Stop)
				return
			}
			requireDone(t, s)
			assert.NoDirExists(t, ws)
			ledger := finished(t, s, keep)
			if c.Walk {
				cs := testutil.BranchCommits(t, repo)
				require.Len(t, cs, 5)
				short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
				want := follower.WalkLedger(testutil.Git(t, repo, "rev-parse", "main"), cs, short, "", "", "", "")
				assert.Equal(t, follower.WithoutImplementers(want), follower.WithoutImplementers(ledger))
			}
			if c.Ends != nil {
				assert.NoError(t, c.Ends(ledger, testutil.BranchCommits(t, repo)))
			}
			// These tests' names make TMPDIR long: the CLI's sockets go to
			// the test's short XDG_RUNTIME_DIR, not to /tmp/cc-socks-<uid>.
			assert.DirExists(t, filepath.Join(h.Runtime, "cc-socks"))
		})
	}
}

// lookRow is the row the session's first Look names on its next: line.
func lookRow(t *testing.T, s *Session) string {
	t.Helper()
	for _, u := range controllerUses(s) {
		if u.Name == "Bash" && strings.HasPrefix(u.Command(), "sdd-ledger look ") {
			r, _ := s.ResultOf(u.ID)
			for _, l := range strings.Split(r.Text, "\n") {
				if n, ok := strings.CutPrefix(l, "next: "); ok {
					_, row, _ := strings.Cut(n, "row=")
					return strings.TrimSpace(row)
				}
			}
		}
	}
	t.Fatalf("no Look printed a next: line")
	return ""
}

// controllerCalls are the main session's calls as the follower names them,
// its last words (a result that is no cut) the last.
func controllerCalls(s *Session) []follower.Call {
	var out []follower.Call
	for _, u := range controllerUses(s) {
		var in struct {
			Command, Prompt, Model, Skill, Query, To, Message string
			Path                                              string `json:"file_path"`
		}
		json.Unmarshal(u.Input, &in)
		c := follower.Call{Tool: u.Name}
		switch u.Name {
		case "Bash":
			c.Input = in.Command
		case "Read":
			c.Input = in.Path
		case "Skill":
			c.Input = in.Skill
		case "Agent":
			c.Input, c.Model = in.Prompt, in.Model
		case "ToolSearch":
			c.Input = in.Query
		case "SendMessage":
			c.Input = in.To + "\n" + in.Message
		}
		out = append(out, c)
	}
	if s.Final != nil && s.Final.Result != CutText {
		out = append(out, follower.Call{Tool: "Say", Input: s.Final.Result})
	}
	return out
}

// TestFollowForeignLedger: the plan's workspace holds a one-line ledger
// of another plan (written there by hand, or by another tool); the
// controller stops and asks, and leaves it as it was.
func TestFollowForeignLedger(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h := New(t, repo)
	h.Allow = follower.WalkScenario().UserRules()
	r := testutil.RunIn(repo, gitenv.Hermetic(h.Home), filepath.Join(h.Plugin, "bin", "sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	ws := strings.TrimSpace(r.Stdout)
	const other = "# SDD ledger — plan: docs/plans/other.md\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(other), 0o644))
	s := h.Run(runPrompt, Follow(follower.WalkScenario()))
	require.NotNil(t, s.Final)
	assert.Contains(t, s.Final.Result, "it is another run's only record")
	assert.Equal(t, other, readFile(t, filepath.Join(ws, "progress.md")))
	assert.Empty(t, testutil.Git(t, repo, "log", "--format=%H", "main..HEAD"), "no task started")
}
