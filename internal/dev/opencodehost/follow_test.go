package opencodehost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// These tests run the skill in the real CLI: the follower's controller
// (follow.go) as the main session's model, its subagents as OpenCode's
// own subagents, the skill and the plugin installed as the installer is
// to (InstallSkill), with OpenCode's default permissions: what `opencode
// run` allows unasked (every tool in the project, and reads in a skill's
// directory) and nothing more; anything that asks is refused, and the
// tests fail on a refusal. They run in parallel with each other, after
// the suite's other tests: each has its own HOME, model and repository.

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

const runPrompt = "Carry out the plan " + follower.WalkPlanPath + " with the " + SkillName + " skill."

// newFollowHost is a host for repo with the skill installed.
func newFollowHost(t *testing.T, repo string) (*Host, string) {
	t.Helper()
	h := New(t, repo)
	h.Timeout = 5 * time.Minute
	return h, h.InstallSkill()
}

// requireDone fails unless the follower's last words end a run.
func requireDone(t *testing.T, s *Session) {
	t.Helper()
	require.True(t, strings.HasPrefix(s.Final, "Done: "), "the controller's last words: %s\ntranscript:\n%s", s.Final, s.Transcript())
}

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
			if u.Name == "bash" && strings.Contains(follower.ByName(u.Command()), marker) {
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
	for _, u := range s.Uses {
		if u.Name == "bash" && strings.Contains(follower.ByName(u.Command()), "sdd-ledger finish ") {
			return follower.FinishedLedger(readFile(t, filepath.Join(keep, "greet", "progress.md")), u.Output)
		}
	}
	t.Fatalf("no call ran Finish")
	return ""
}

// checkSubagents reads the calls of every subagent of the session from
// opencode's database and fails the test on a call of theirs that failed:
// the run's events have only the main session's calls. It returns the
// subagents' calls.
func checkSubagents(t *testing.T, h *Host, s *Session) []ToolUse {
	t.Helper()
	ids := s.Tasks()
	uses := h.ToolUses(ids)
	var all []ToolUse
	for _, id := range ids {
		assert.NotEmpty(t, uses[id], "subagent %s made no call", id)
		for _, u := range uses[id] {
			assert.Equal(t, "completed", u.Status, "subagent %s: %s %s: %s", id, u.Name, scripted.Clip(string(u.Input), 300), u.Error)
			all = append(all, u)
		}
	}
	return all
}

// noRefusal fails the test if opencode asked for a permission in the
// session (opencode run refuses every ask on the user's behalf).
func noRefusal(t *testing.T, s *Session) {
	t.Helper()
	for _, l := range strings.Split(s.Stderr, "\n") {
		assert.NotContains(t, l, "permission requested", "a permission was asked for, and refused")
	}
}

var skillEntryRe = regexp.MustCompile(`(?s)<skill>\s*<name>` + regexp.QuoteMeta(SkillName) + `</name>.*?</skill>`)

// instructionBytes are what OpenCode sends the model of the skill: the
// always-on listing of it in the main session's first request (its
// <skill> entry), and the skill tool's result when it is invoked.
func instructionBytes(t *testing.T, h *Host, s *Session) (listing, invoked int) {
	t.Helper()
	for _, r := range h.Server.Requests() {
		if r.Prompt != RunMessage(s.Prompt) {
			continue
		}
		for _, m := range r.System {
			if e := skillEntryRe.FindString(m); e != "" {
				listing = len(e)
				t.Logf("the skill's listing:\n%s", e)
			}
		}
		break
	}
	for _, u := range s.Uses {
		if u.Name == "skill" {
			invoked = len(u.Output)
			break
		}
	}
	return listing, invoked
}

// TestFollowWalkThrough: the follower carries out skill/example.md's run
// in the real CLI, from the installed skill and plugin, with OpenCode's
// default permissions, in a repository whose path holds a space and an é:
// three tasks, a fix round, the final review, the workspace deleted,
// every dispatch a task call in the foreground, the whole run one turn of
// the controller. Each task costs no more controller calls than the
// v6.2.0 text did, and the ledger, the workspace's files and the commits
// are the walk-through's.
func TestFollowWalkThrough(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h, skillDir := newFollowHost(t, repo)
	sc := follower.WalkScenario()
	keep := testutil.RealTempDir(t)
	mainHead := testutil.Git(t, repo, "rev-parse", "main")
	s := h.Run(runPrompt, FollowKeeping(sc, repo, keep))
	requireDone(t, s)
	noRefusal(t, s)

	uses := s.Uses
	assert.Equal(t, []string{"skill", "read", "bash", "read", "bash", "task", "bash", "task",
		"bash", "task", "bash", "task", "task", "bash", "task",
		"bash", "task", "bash", "task",
		"bash", "task", "bash"}, names(uses))
	setup, each, final := perTask(uses, 3)
	listing, invoked := instructionBytes(t, h, s)
	t.Logf("controller calls in the real CLI: setup %d, tasks %v, final %d (v6.2.0: tasks %v); %d requests, session %v",
		setup, each, final, follower.WalkCeilings, len(h.Server.Requests()), s.Elapsed.Round(time.Millisecond))
	body := len(skillBodyOf(t, skillDir))
	t.Logf("instruction bytes: the always-on listing of the skill %d; the skill tool's result %d (SKILL.md's body %d, OpenCode's wrapping, base directory and sampled file list %d)",
		listing, invoked, body, invoked-body)
	for i, n := range each {
		assert.LessOrEqual(t, n, follower.WalkCeilings[i], "Task %d's controller calls", i+1)
	}
	assert.LessOrEqual(t, setup, 4, "setup's calls")
	assert.LessOrEqual(t, final, 3, "the final review's calls")
	assert.NotZero(t, listing, "the skill is listed to the model")
	// OpenCode tells the model no exit status; the event stream has it:
	// every step of the controller succeeded.
	for _, u := range uses {
		if u.Name == "bash" {
			code, ok := u.Exit()
			assert.True(t, ok && code == 0, "%s exited %d (%v)", u.Command(), code, ok)
		}
	}

	// Every dispatch is OpenCode's general subagent, which runs on the
	// parent's model: task takes no model, so the text's tiers (the
	// follower names sonnet, then opus for the final review) do not reach
	// OpenCode.
	var models []string
	for _, u := range uses {
		if u.Name == "task" {
			assert.Contains(t, string(u.Input), `"subagent_type":"general"`)
			var md struct {
				Model struct{ ProviderID, ModelID string }
			}
			require.NoError(t, json.Unmarshal(u.Metadata, &md))
			models = append(models, md.Model.ProviderID+"/"+md.Model.ModelID)
		}
	}
	assert.Equal(t, slices.Repeat([]string{"sdd/scripted"}, 9), models)
	subs := checkSubagents(t, h, s)
	t.Logf("the subagents' calls: %d", len(subs))
	assert.GreaterOrEqual(t, len(subs), 9*3, "every subagent reads its role file and more")

	// What the run left: five commits (the fix among them), the ledger
	// and the files of the workspace as they were before Finish, the
	// workspace deleted; the commands came from the skill's bin/ (the
	// session's PATH holds no other copy: InstallSkill checks).
	c := testutil.BranchCommits(t, repo)
	require.Len(t, c, 5)
	assert.Equal(t, "bye\n", readFile(t, filepath.Join(repo, "bye.txt")))
	short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
	ledger := finished(t, s, keep)
	ids := follower.ImplementerIDs(ledger)
	require.Len(t, ids, 4)
	assert.Equal(t, s.Tasks()[0], ids[0], "Task 1's implementer is the first task's session")
	assert.Equal(t, follower.WalkLedger(mainHead, c, short, ids...), ledger)
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
	assert.FileExists(t, filepath.Join(skillDir, "bin", "sdd-ledger"))
	// What the human must still decide is in the last message.
	assert.Contains(t, s.Final, "Task 1: minor (deferred): check1.sh repeats the file name")
	assert.Contains(t, s.Final, "verdict: Final: complete")
}

// TestFollowForeignLedger: the plan's workspace holds a one-line ledger
// of another plan; the controller stops and asks, and leaves it as it
// was.
func TestFollowForeignLedger(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h, skillDir := newFollowHost(t, repo)
	r := testutil.RunIn(repo, gitenv.Hermetic(h.Home), filepath.Join(skillDir, "bin", "sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	ws := strings.TrimSpace(r.Stdout)
	const other = "# SDD ledger — plan: docs/plans/other.md\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(other), 0o644))
	before := testutil.DirNames(t, ws)
	s := h.Run(runPrompt, Follow(follower.WalkScenario()))
	noRefusal(t, s)
	assert.Equal(t, []string{"skill", "read", "bash"}, names(s.Uses))
	assert.Contains(t, s.Final, "it is another run's only record")
	assert.Equal(t, other, readFile(t, filepath.Join(ws, "progress.md")))
	assert.Equal(t, before, testutil.DirNames(t, ws), "no brief, no package written")
	assert.Empty(t, testutil.Git(t, repo, "log", "--format=%H", "main..HEAD"), "no task started")
}

// resumeStates are the states of follower.Resumes this suite resumes
// from (each costs about a walk-through, and the suite's time is CI's):
// a run cut in Task 2's fix round, after the fix was dispatched and
// before its package, so the new session must find the fix's commits
// from the disk alone.
var resumeStates = []string{"refix"}

// TestFollowResume: for each of resumeStates, a run cut there, its files
// changed as the state says, and a new `opencode run` session in the same
// HOME and repository, which finds the state with Look (Look names the
// state's row) and takes the row's steps (the list the direct executor
// and the Claude Code suite resume from; OpenCode's task takes no model,
// so a dispatch's step is compared without it), then runs to the end:
// the walk-through's ledger (but the implementers' ids), its workspace
// files and commits.
func TestFollowResume(t *testing.T) {
	for _, c := range follower.Resumes() {
		if !slices.Contains(resumeStates, c.Name) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
			h, skillDir := newFollowHost(t, repo)
			steps, err := follower.NewSteps(skillDir)
			require.NoError(t, err)
			cut := h.Run(runPrompt, FollowUntil(c.Scenario(), c.Cut))
			noRefusal(t, cut)
			require.Equal(t, CutText, cut.Final)
			got := stepNames(steps, controllerCalls(cut))
			require.Len(t, got, c.Cut)
			require.Equal(t, withoutModel(c.After), got[c.Cut-1], "the cut's last step")
			ws := filepath.Join(repo, ".superpowers", "sdd", "greet")
			if c.Edit != nil {
				require.NoError(t, c.Edit(repo, ws))
			}
			keep := testutil.RealTempDir(t)
			s := h.Run("Resume the plan "+follower.WalkPlanPath+" with the "+SkillName+" skill.", FollowKeeping(c.Scenario(), repo, keep))
			noRefusal(t, s)
			got = stepNames(steps, controllerCalls(s))
			require.GreaterOrEqual(t, len(got), 3)
			require.Equal(t, []string{"Skill " + SkillName, "Read " + follower.HostFile("opencode"), "Bash Look"}, got[:3])
			assert.Equal(t, c.Row, lookRow(t, s), "the row Look names")
			var want []string
			for _, n := range c.Next {
				want = append(want, withoutModel(n))
			}
			next := got[3:min(len(got), 3+len(want))]
			require.Equal(t, want, next, "the steps after Look; all of them:\n%s", strings.Join(got, "\n"))
			checkSubagents(t, h, cut)
			checkSubagents(t, h, s)
			if c.Stop != "" {
				assert.Contains(t, s.Final, c.Stop)
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
				assert.Len(t, testutil.DirNames(t, filepath.Join(keep, "greet")), 19, "the workspace's files: 5 packages and their reviews, 3 briefs and reports, constraints, plan-path, progress")
				assert.Contains(t, s.Final, "verdict: Final: complete")
			}
			if c.Ends != nil {
				assert.NoError(t, c.Ends(ledger, testutil.BranchCommits(t, repo)))
			}
		})
	}
}

var stepModelRe = regexp.MustCompile(` \([a-z0-9-]*\)$`)

// withoutModel is a dispatch's step without its model: "Agent fix 2".
func withoutModel(step string) string {
	if !strings.HasPrefix(step, "Agent ") {
		return step
	}
	return stepModelRe.ReplaceAllString(step, "")
}

// stepNames are the steps calls are, dispatches without their model.
func stepNames(steps *follower.Steps, calls []follower.Call) []string {
	out := steps.Names(calls)
	for i, n := range out {
		out[i] = withoutModel(n)
	}
	return out
}

// lookRow is the row the session's first Look names on its next: line.
func lookRow(t *testing.T, s *Session) string {
	t.Helper()
	for _, u := range s.Uses {
		if u.Name == "bash" && strings.HasPrefix(follower.ByName(u.Command()), "sdd-ledger look ") {
			for _, l := range strings.Split(u.Output, "\n") {
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

// controllerCalls are the main session's calls as the follower names them
// (Claude Code's tool names), its last words (a result that is no cut)
// the last.
func controllerCalls(s *Session) []follower.Call {
	var out []follower.Call
	for _, u := range s.Uses {
		var in struct {
			Command, Prompt, Name string
			Path                  string `json:"filePath"`
		}
		json.Unmarshal(u.Input, &in)
		c := follower.Call{Tool: u.Name}
		switch u.Name {
		case "bash":
			c.Tool, c.Input = "Bash", in.Command
		case "read":
			c.Tool, c.Input = "Read", in.Path
		case "skill":
			c.Tool, c.Input = "Skill", in.Name
		case "task":
			c.Tool, c.Input = "Agent", in.Prompt
		}
		out = append(out, c)
	}
	if s.Final != "" && s.Final != CutText {
		out = append(out, follower.Call{Tool: "Say", Input: s.Final})
	}
	return out
}

// skillBodyOf is the installed SKILL.md without its front matter.
func skillBodyOf(t *testing.T, skillDir string) string {
	t.Helper()
	md := readFile(t, filepath.Join(skillDir, "SKILL.md"))
	rest, ok := strings.CutPrefix(md, "---\n")
	require.True(t, ok, "SKILL.md has no front matter")
	_, body, ok := strings.Cut(rest, "\n---\n")
	require.True(t, ok, "SKILL.md's front matter does not end")
	return body
}

// TestFollowLargePackage: a task whose package is over OpenCode's 50 KB
// for one read (7500 lines, over 256 KB). Its reviewer and the final
// reviewer read it in parts of 2000 lines, and where a part stops at 50
// KB, go on from the offset the read tool names, as the role files say;
// the reading is complete (the follower checks the bytes against the
// size the dispatch gives) and no call fails.
func TestFollowLargePackage(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.BigPlanPath, follower.BigPlan)
	h, _ := newFollowHost(t, repo)
	sc := follower.BigScenario(7500)
	s := h.Run("Carry out the plan "+follower.BigPlanPath+" with the "+SkillName+" skill.", Follow(sc))
	requireDone(t, s)
	noRefusal(t, s)
	var parts []string
	early := 0
	for _, u := range checkSubagents(t, h, s) {
		if u.Name != "read" {
			continue
		}
		var in struct {
			Path   string `json:"filePath"`
			Offset int    `json:"offset"`
			Limit  int    `json:"limit"`
		}
		require.NoError(t, json.Unmarshal(u.Input, &in))
		if strings.HasSuffix(in.Path, ".diff") {
			require.NotZero(t, in.Limit, "a package read whole: %s", in.Path)
			parts = append(parts, fmt.Sprintf("%d/%d", in.Offset, in.Limit))
			if (in.Offset-1)%follower.ReadLimit != 0 {
				early++ // went on from where the tool said the part stopped
			}
		}
	}
	t.Logf("the packages' reads: %v, %d of them where an earlier part stopped at 50 KB; %d requests, %v", parts, early, len(h.Server.Requests()), s.Elapsed)
	assert.Greater(t, early, 0, "a part stopped at 50 KB and the reader went on where the tool said")
	assert.Greater(t, len(parts), 9, "more parts than 2000-line ones alone")
}
