package copilothost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// These tests run the skill in the real CLI: the follower's controller
// (follow.go) as the session's model, its subagents as Copilot's own
// (task), the skill installed by the project's installer, with the
// permissions a user gives a non-interactive run (userRules).

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

const runPrompt = "Carry out the plan " + follower.WalkPlanPath + " with the " + SkillName + " skill."

// newFollowHost is a host for repo with the skill installed, its
// sessions run with sc's rules.
func newFollowHost(t *testing.T, repo string, sc follower.Scenario) (*Host, string) {
	t.Helper()
	h := New(t, repo)
	h.Timeout = 5 * time.Minute
	dir := h.InstallSkill()
	h.Allow = userRules(sc, dir)
	return h, dir
}

// userRules are the rules a user gives a non-interactive run of the
// skill: --add-dir for the skill's folder (outside the repository, where
// the CLI's path check refuses it), its four commands as host-copilot.md
// writes them (quoted: a rule matches the command's text), the plan's
// git add, git commit and test commands for the subagents, and write
// (create and edit) for the reports and the code.
func userRules(sc follower.Scenario, skillDir string) []string {
	rules := []string{"--add-dir=" + skillDir, "write"}
	for _, c := range ship.Commands {
		rules = append(rules, "shell('"+skillDir+"/bin/"+c+"':*)")
	}
	rules = append(rules, "shell(git add)", "shell(git commit)")
	// A rule names a command (git's and gh's: with their subcommand),
	// not its arguments: "shell(sh check1.sh)" does not allow sh
	// check1.sh, "shell(sh)" does.
	for _, t := range sc.Tasks {
		if name, _, _ := strings.Cut(t.Test, " "); t.Test != "" && !slices.Contains(rules, "shell("+name+")") {
			rules = append(rules, "shell("+name+")")
		}
	}
	return rules
}

// requireDone fails unless the follower's last words end a run.
func requireDone(t *testing.T, s *Session) {
	t.Helper()
	require.True(t, strings.HasPrefix(s.Final, "Done: "), "the controller's last words: %s\ntranscript:\n%s", s.Final, s.Transcript())
}

// controllerUses are the session's own calls.
func controllerUses(s *Session) []ToolUse {
	var out []ToolUse
	for _, u := range s.Uses {
		if u.Agent == "" {
			out = append(out, u)
		}
	}
	return out
}

func names(uses []ToolUse) []string {
	var out []string
	for _, u := range uses {
		out = append(out, u.Name)
	}
	return out
}

// controllerCalls are the session's calls as the follower names them
// (a Read in several views once), its last words (a result that is no
// cut) the last.
func controllerCalls(s *Session) []follower.Call {
	var out []follower.Call
	last := ""
	for _, u := range controllerUses(s) {
		var in struct{ Command, Path, Prompt, Skill string }
		json.Unmarshal(u.Input, &in)
		if u.Name == "view" && in.Path == last {
			continue
		}
		last = ""
		c := follower.Call{Tool: u.Name}
		switch u.Name {
		case "bash":
			c.Tool, c.Input = "Bash", follower.ByName(in.Command)
		case "view":
			c.Tool, c.Input, last = "Read", in.Path, in.Path
		case "skill":
			c.Tool, c.Input = "Skill", in.Skill
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

func tools(calls []follower.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Tool)
	}
	return out
}

// finished is the ledger as the run left it (follower.FinishedLedger).
func finished(t *testing.T, s *Session, keep string) string {
	t.Helper()
	for _, u := range controllerUses(s) {
		if u.Name == "bash" && strings.Contains(follower.ByName(u.Command()), "sdd-ledger finish ") {
			return follower.FinishedLedger(readFile(t, filepath.Join(keep, "greet", "progress.md")), parseShell(u.Output).Output)
		}
	}
	t.Fatalf("no call ran Finish")
	return ""
}

// lookRow is the row the session's first Look names on its next: line.
func lookRow(t *testing.T, s *Session) string {
	t.Helper()
	for _, u := range controllerUses(s) {
		if u.Name == "bash" && strings.HasPrefix(follower.ByName(u.Command()), "sdd-ledger look ") {
			if row, ok := harness.LookRow(parseShell(u.Output).Output); ok {
				return row
			}
		}
	}
	t.Fatalf("no Look printed a next: line")
	return ""
}

// TestFollowWalkThrough: the follower carries out skill/example.md's run
// in the real CLI, from the skill the installer put in ~/.copilot/skills,
// with the user's rules and nothing more, in a repository whose path
// holds a space and an é: three tasks, a fix round, the final review,
// the workspace deleted, every dispatch a task call in sync mode. Each
// task costs no more controller calls than the v6.2.0 text did, and the
// ledger, the workspace's files and the commits are the walk-through's.
func TestFollowWalkThrough(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	sc := follower.WalkScenario()
	h, skillDir := newFollowHost(t, repo, sc)
	keep := testutil.RealTempDir(t)
	mainHead := testutil.Git(t, repo, "rev-parse", "main")
	s := h.Run(runPrompt, FollowKeeping(sc, repo, keep))
	requireDone(t, s)

	calls := controllerCalls(s)
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Read", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Say"}, tools(calls))
	setup, each, final := harness.PerTask(calls, 3)
	t.Logf("controller calls in the real CLI: setup %d, tasks %v, final %d (v6.2.0: tasks %v); %d tool calls of the controller, %d of its subagents; %d requests, session %v",
		setup, each, final, follower.WalkCeilings, len(controllerUses(s)), len(s.Uses)-len(controllerUses(s)), len(h.Server.Requests()), s.Elapsed.Round(time.Millisecond))
	for i, n := range each {
		assert.LessOrEqual(t, n, follower.WalkCeilings[i], "Task %d's controller calls", i+1)
	}
	assert.LessOrEqual(t, setup, 4, "setup's calls")
	assert.LessOrEqual(t, final, 3, "the final review's calls")
	// Every dispatch is Copilot's general-purpose agent on the session's
	// model: the text's tiers name no model here.
	for _, u := range controllerUses(s) {
		if u.Name == "task" {
			var d Dispatch
			require.NoError(t, json.Unmarshal(u.Input, &d))
			assert.Equal(t, AgentType, d.AgentType)
			assert.Empty(t, d.Model)
		}
	}
	for _, r := range h.Server.Requests() {
		assert.Equal(t, "sdd-scripted", r.Model, "request %d", r.Seq)
	}
	// Every command of the skill ran from the skill's bin/: the session's
	// PATH holds no copy (harness.SystemPath).
	for _, u := range s.Uses {
		for _, name := range ship.Commands {
			if u.Name == "bash" && strings.Contains(u.Command(), name+" ") {
				assert.Contains(t, u.Command(), "'"+skillDir+"/bin/"+name+"' ", "a command of the skill not run from its bin/")
			}
		}
	}

	c := testutil.BranchCommits(t, repo)
	require.Len(t, c, 5)
	assert.Equal(t, "bye\n", readFile(t, filepath.Join(repo, "bye.txt")))
	short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
	// A task in sync mode gives no agent id: the ledger records none.
	ledger := finished(t, s, keep)
	assert.Empty(t, follower.ImplementerIDs(ledger))
	assert.Equal(t, follower.WithoutImplementers(follower.WalkLedger(mainHead, c, short, "", "", "", "")), ledger)
	assert.Equal(t, harness.WalkFiles(mainHead, c, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
	assert.NoDirExists(t, filepath.Join(repo, ".superpowers", "sdd", "greet"))
	assert.DirExists(t, filepath.Join(repo, ".superpowers", "sdd"))
	assert.Contains(t, s.Final, "Task 1: minor (deferred): check1.sh repeats the file name")
	assert.Contains(t, s.Final, "verdict: Final: complete")
}

// TestFollowForeignLedger: the plan's workspace holds a one-line ledger
// of another plan; the controller stops and asks, and leaves it as it
// was.
func TestFollowForeignLedger(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h, skillDir := newFollowHost(t, repo, follower.WalkScenario())
	r := testutil.RunIn(repo, gitenv.Hermetic(h.Home), filepath.Join(skillDir, "bin", "sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	ws := strings.TrimSpace(r.Stdout)
	const other = "# SDD ledger — plan: docs/plans/other.md\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(other), 0o644))
	before := testutil.DirNames(t, ws)
	s := h.Run(runPrompt, Follow(follower.WalkScenario()))
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Say"}, tools(controllerCalls(s)))
	assert.Contains(t, s.Final, "it is another run's only record")
	assert.Equal(t, other, readFile(t, filepath.Join(ws, "progress.md")))
	assert.Equal(t, before, testutil.DirNames(t, ws), "no brief, no package written")
	assert.Empty(t, testutil.Git(t, repo, "log", "--format=%H", "main..HEAD"), "no task started")
}

// resumeStates are the states of follower.Resumes this suite resumes from
// (each costs about a walk-through): a run cut in Task 2's fix round,
// after the fix was dispatched and before its package, so the new
// session must find the fix's commits from the disk alone.
var resumeStates = []string{"refix"}

// TestFollowResume: for each of resumeStates, a run cut there, its files
// changed as the state says, and a new `copilot -p` session in the same
// HOME and repository, which finds the state with Look (Look names the
// state's row) and takes the row's steps (the list the direct executor
// and the other hosts' suites resume from), then runs to the end: the
// walk-through's ledger, its workspace files and commits.
func TestFollowResume(t *testing.T) {
	for _, c := range follower.Resumes() {
		if !slices.Contains(resumeStates, c.Name) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
			h, skillDir := newFollowHost(t, repo, c.Scenario())
			steps, err := follower.NewSteps(skillDir)
			require.NoError(t, err)
			stepNames := func(s *Session) []string {
				out := steps.Names(controllerCalls(s))
				for i, n := range out {
					out[i] = harness.WithoutModel(n)
				}
				return out
			}
			cut := h.Run(runPrompt, FollowUntil(c.Scenario(), c.Cut))
			require.Equal(t, CutText, cut.Final)
			got := stepNames(cut)
			require.Len(t, got, c.Cut)
			require.Equal(t, harness.WithoutModel(c.After), got[c.Cut-1], "the cut's last step")
			ws := filepath.Join(repo, ".superpowers", "sdd", "greet")
			if c.Edit != nil {
				require.NoError(t, c.Edit(repo, ws))
			}
			keep := testutil.RealTempDir(t)
			s := h.Run("Resume the plan "+follower.WalkPlanPath+" with the "+SkillName+" skill.", FollowKeeping(c.Scenario(), repo, keep))
			got = stepNames(s)
			require.GreaterOrEqual(t, len(got), 3)
			require.Equal(t, []string{"Skill " + SkillName, "Read " + follower.HostFile("copilot"), "Bash Look"}, got[:3])
			assert.Equal(t, c.Row, lookRow(t, s), "the row Look names")
			var want []string
			for _, n := range c.Next {
				want = append(want, harness.WithoutModel(n))
			}
			require.Equal(t, want, got[3:min(len(got), 3+len(want))], "the steps after Look; all of them:\n%s", strings.Join(got, "\n"))
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
				mainHead := testutil.Git(t, repo, "rev-parse", "main")
				want := follower.WalkLedger(mainHead, cs, short, "", "", "", "")
				assert.Equal(t, follower.WithoutImplementers(want), follower.WithoutImplementers(ledger))
				assert.Equal(t, harness.WalkFiles(mainHead, cs, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
				assert.Contains(t, s.Final, "verdict: Final: complete")
			}
			if c.Ends != nil {
				assert.NoError(t, c.Ends(ledger, testutil.BranchCommits(t, repo)))
			}
		})
	}
}

// TestFollowLargePackage: a task whose package (7500 lines, over 256 KB)
// is far over what one view shows (about 20 KB). Its reviewer and the
// final reviewer read it in parts of 2000 lines, each in as many views as
// the cut needs, each from the line the last one cut; the reading is
// complete (the follower checks the bytes against the size the dispatch
// gives) and no call fails.
func TestFollowLargePackage(t *testing.T) {
	t.Parallel()
	repo := testutil.PlanRepo(t, follower.BigPlanPath, follower.BigPlan)
	sc := follower.BigScenario(7500)
	h, _ := newFollowHost(t, repo, sc)
	s := h.Run("Carry out the plan "+follower.BigPlanPath+" with the "+SkillName+" skill.", Follow(sc))
	requireDone(t, s)
	views, cut := 0, 0
	for _, u := range s.Uses {
		if u.Agent == "" || u.Name != "view" || !strings.Contains(string(u.Input), ".diff") {
			continue
		}
		views++
		if truncatedRe.MatchString(u.Output) {
			cut++
		}
	}
	t.Logf("the packages' views: %d, %d of them cut at about 20 KB; %d requests, %v", views, cut, len(h.Server.Requests()), s.Elapsed)
	assert.Greater(t, cut, 0, "a view was cut and the reader went on from the cut line")
	assert.Greater(t, views, 9, "more views than 2000-line parts alone")
}
