package harness

import (
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The scenarios every host runs, in its real CLI, written once: the
// follower (internal/dev/follower) as the session's model, its subagents
// as the host's own, the skill as the project's installer put it, each
// in a repository whose path holds a space and an é. A host package runs
// them all with one test:
//
//	func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }

// WalkThroughChecker is a Host with checks of its own on a walk-through
// (what only its CLI shows: the model its subagents ran on, the bytes of
// its instructions), run after the shared ones.
type WalkThroughChecker interface {
	CheckWalkThrough(t *testing.T, s *Sessions, p *Played)
}

// RunScenarios runs the scenarios in h's CLI, side by side, each a
// subtest: WalkThrough, LargePackage, ForeignLedger, Parallel where the
// host's Facts say so, MicroTasks and MicroResume where they say Micro,
// and Resume/<state>.
func RunScenarios(t *testing.T, h Host) {
	t.Run("WalkThrough", func(t *testing.T) { t.Parallel(); walkThrough(t, h) })
	t.Run("LargePackage", func(t *testing.T) { t.Parallel(); largePackage(t, h) })
	t.Run("ForeignLedger", func(t *testing.T) { t.Parallel(); foreignLedger(t, h) })
	if h.Facts().Parallel {
		t.Run("Parallel", func(t *testing.T) { t.Parallel(); parallel(t, h) })
	}
	if h.Facts().Micro {
		t.Run("MicroTasks", func(t *testing.T) { t.Parallel(); microTasks(t, h) })
		t.Run("MicroResume", func(t *testing.T) { t.Parallel(); microResume(t, h) })
	}
	t.Run("Resume", func(t *testing.T) {
		only := resumes(h.Facts())
		for _, c := range follower.Resumes() {
			if only != nil && !slices.Contains(only, c.Name) {
				continue
			}
			t.Run(c.Name, func(t *testing.T) { t.Parallel(); resume(t, h, c) })
		}
	})
}

// resumes are the names of the states a host of f resumes from; nil:
// all.
func resumes(f Facts) []string {
	if os.Getenv(AllResumesEnv) == "all" {
		return nil
	}
	if r := f.Resumes; r != nil {
		return r
	}
	return FewResumes
}

// scenario is sc with the skill named as h lists it.
func scenario(h Host, sc follower.Scenario) follower.Scenario {
	sc.Skill = h.Facts().SkillName()
	return sc
}

func prompt(h Host, verb, plan string) string {
	return verb + " the plan " + plan + " with the " + h.Facts().SkillName() + " skill."
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// requireDone fails unless the follower's last words end a run.
func requireDone(t *testing.T, p *Played) {
	t.Helper()
	require.True(t, strings.HasPrefix(p.Final, "Done: "), "the controller's last words: %s", p.Final)
}

func toolsOf(calls []follower.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Tool)
	}
	return out
}

// finished is the ledger of the plan whose workspace is named ws as the
// run left it (follower.FinishedLedger): the copy FollowKeeping made
// before Finish, and the lines Finish's call printed.
func finished(t *testing.T, p *Played, keep, ws string) string {
	t.Helper()
	s, ok := p.Ran("sdd-ledger finish ")
	require.True(t, ok, "no call ran Finish")
	return follower.FinishedLedger(readFile(t, filepath.Join(keep, ws, "progress.md")), s.Text)
}

// checkCalls holds each controller step to the host's calls for its
// tool, and each command of the skill to the host file's form of it.
func checkCalls(t *testing.T, h Host, s *Sessions, p *Played) {
	t.Helper()
	f := h.Facts()
	for _, st := range p.Controller() {
		if re := f.Calls[st.Tool]; re != nil && !st.Together {
			names := strings.Join(st.Calls, " ") + " "
			assert.Regexp(t, re, names, "the host's calls of %s %s", st.Tool, clip(st.Input))
		}
		if st.Tool != "Bash" {
			continue
		}
		for _, name := range ship.Commands {
			form := "'" + s.BinDir + "/" + name + "'"
			if f.OnPath {
				form = name
			}
			assert.Equal(t, strings.Count(follower.ByName(st.Input), name+" "), strings.Count(st.Input, form+" "),
				"%s not run as %s in %q", name, form, st.Input)
		}
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// carryOut runs sc's plan to its end in one session of h, in a new
// repository holding the plan: the repository, the machine, the copy of
// the workspace before Finish (FollowKeeping) and the session; before,
// if not nil, has the machine before the session begins.
func carryOut(t *testing.T, h Host, sc follower.Scenario, before func(*Sessions)) (repo string, s *Sessions, keep string, p *Played) {
	repo = testutil.PlanRepo(t, sc.Plan, follower.PlanText(sc.Plan))
	sc = scenario(h, sc)
	s = h.Start(t, repo, sc)
	if before != nil {
		before(s)
	}
	keep = testutil.RealTempDir(t)
	p = s.Session(prompt(h, "Carry out", sc.Plan), FollowKeeping(h, sc, repo, keep))
	requireDone(t, p)
	return repo, s, keep, p
}

// walkThrough: the follower carries out skill/example.md's run: three
// tasks, a fix round, the final review, the workspace deleted, every
// dispatch a subagent of the host's. Each task costs no more controller
// calls than the v6.2.0 text did, and the ledger, the workspace's files
// and the commits are the walk-through's.
func walkThrough(t *testing.T, h Host) {
	repo, s, keep, p := carryOut(t, h, follower.WalkScenario(), nil)
	mainHead := testutil.Git(t, repo, "rev-parse", "main")

	calls := p.Calls()
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Read", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Say"}, toolsOf(calls))
	checkCalls(t, h, s, p)
	setup, each, final := PerTask(calls, 3)
	hostCalls := 0
	for _, st := range p.Controller() {
		hostCalls += len(st.Calls)
	}
	t.Logf("controller calls in the real CLI: setup %d, tasks %v, final %d (v6.2.0: tasks %v); the host's calls of the controller %d; %d requests, session %v",
		setup, each, final, follower.WalkCeilings, hostCalls, len(s.Server.Requests()), p.Elapsed.Round(time.Millisecond))
	for i, n := range each {
		assert.LessOrEqual(t, n, follower.WalkCeilings[i], "Task %d's controller calls", i+1)
	}
	assert.LessOrEqual(t, setup, 4, "setup's calls")
	assert.LessOrEqual(t, final, 3, "the final review's calls")

	// Where the host's file gives the tiers' models, the tasks are of the
	// standard tier and the final reviewer the most capable; elsewhere no
	// dispatch names one.
	var models, ids []string
	for _, st := range p.Controller() {
		if st.Tool == "Agent" {
			models = append(models, st.Model)
			ids = append(ids, st.ID)
		}
	}
	want := slices.Repeat([]string{""}, 9)
	if h.Facts().Tiers {
		want = append(slices.Repeat([]string{"sonnet"}, 8), "opus")
	}
	assert.Equal(t, want, models)
	if m := h.Facts().Model; m != "" {
		for _, r := range s.Server.Requests() {
			assert.Equal(t, m, r.Model, "request %d", r.Seq)
		}
	}
	if d := h.Facts().Dispatch; d.Call != "" {
		for _, c := range s.Server.Calls(p.Conversation) {
			if c.Name != d.Call {
				continue
			}
			if d.Field != "" {
				assert.Equal(t, d.Agent, c.Str(d.Field), "the agent %s runs", c.Qualified())
			}
			var in map[string]any
			json.Unmarshal(c.Input, &in)
			if !h.Facts().Tiers {
				assert.Empty(t, in["model"], "%s names no model", c.Qualified())
			}
		}
	}

	// What the run left: five commits (the fix among them), the ledger
	// and the files of the workspace as they were before Finish, the
	// workspace deleted.
	c := testutil.BranchCommits(t, repo)
	require.Len(t, c, 5)
	assert.Equal(t, "bye\n", readFile(t, filepath.Join(repo, "bye.txt")))
	short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
	ledger := finished(t, p, keep, "greet")
	if h.Facts().AgentIDs {
		// The implementers the ledger records are agents the host gave;
		// where the fix round continued Task 2's, it records none again.
		got := follower.ImplementerIDs(ledger)
		for _, id := range got {
			assert.Contains(t, ids, id, "an implementer no dispatch answered with")
		}
		if h.Facts().Continues {
			require.Len(t, got, 3)
			got = slices.Insert(got, 2, got[1])
		}
		require.Len(t, got, 4)
		assert.Equal(t, follower.WalkLedger(mainHead, c, short, got...), ledger)
	} else {
		assert.Empty(t, follower.ImplementerIDs(ledger))
		assert.Equal(t, follower.WithoutImplementers(follower.WalkLedger(mainHead, c, short, "", "", "", "")), ledger)
	}
	assert.Equal(t, follower.WalkFiles(mainHead, c, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
	assert.NoDirExists(t, filepath.Join(repo, ".superpowers", "sdd", "greet"))
	assert.DirExists(t, filepath.Join(repo, ".superpowers", "sdd"))
	assert.FileExists(t, filepath.Join(s.BinDir, "sdd-ledger"))
	// What the human must still decide is in the last message.
	assert.Contains(t, p.Final, "Task 1: minor (deferred): check1.sh repeats the file name")
	assert.Contains(t, p.Final, "verdict: Final: complete")
	checkFixRound(t, h, p)
	if c, ok := h.(WalkThroughChecker); ok {
		c.CheckWalkThrough(t, s, p)
	}
}

// checkFixRound: Task 2's fix round went where the host's file says.
// Where the host continues the implementer, the fix prompt went to Task
// 2's implementer (its id), which did the fix in its own conversation,
// and no conversation began with the fix prompt; elsewhere it started a
// new implementer.
func checkFixRound(t *testing.T, h Host, p *Played) {
	var implementer string
	fixes := 0
	for _, st := range p.Controller() {
		d, ok := follower.ParseDispatch(st.Input)
		if st.Tool != "Agent" || !ok || d.N != 2 {
			continue
		}
		switch d.Role {
		case follower.RoleImplementer:
			implementer = st.ID
		case follower.RoleFix:
			fixes++
			if !h.Facts().Continues {
				assert.Empty(t, st.Continued, "a fix round continued an agent")
				assert.Contains(t, p.Steps, st.Input, "no new implementer took the fix prompt")
				continue
			}
			require.NotEmpty(t, implementer)
			assert.Equal(t, implementer, st.Continued, "the fix round went to another agent than Task 2's implementer")
			assert.Equal(t, implementer, st.ID)
			assert.NotContains(t, p.Steps, st.Input, "the fix prompt began a conversation of its own")
			var inImplementer []string
			for conv, steps := range p.Steps {
				if d, ok := follower.ParseDispatch(conv); ok && d.Role == follower.RoleImplementer && d.N == 2 {
					for _, s := range steps {
						inImplementer = append(inImplementer, s.Tool+" "+s.Input)
					}
				}
			}
			assert.Contains(t, strings.Join(inImplementer, "\n"), "review-", "Task 2's implementer did not read the review of its fix round")
		}
	}
	assert.Equal(t, 1, fixes, "Task 2's fix rounds")
}

// largePackage: a task whose package (7500 lines) is over the 256 KB the
// role files read whole. Its reviewer and the final reviewer read it in
// parts of 2000 lines, in the host's way (Facts.Reads); the reading is
// complete (the follower checks the bytes against the size the dispatch
// gives) and no call fails.
func largePackage(t *testing.T, h Host) {
	repo := testutil.PlanRepo(t, follower.BigPlanPath, follower.BigPlan)
	sc := scenario(h, follower.BigScenario(7500))
	s := h.Start(t, repo, sc)
	p := s.Session(prompt(h, "Carry out", follower.BigPlanPath), Follow(h, sc))
	requireDone(t, p)
	var parts, byReader []string
	pieces, early := 0, 0
	for _, conv := range slices.Sorted(maps.Keys(p.Steps)) {
		if conv == p.Conversation {
			continue
		}
		var mine []string
		for _, st := range p.Steps[conv] {
			if st.Tool != "Read" || !strings.HasSuffix(st.Input, ".diff") {
				continue
			}
			require.NotZero(t, st.Limit, "a package read whole: %s", st.Input)
			mine = append(mine, fmt.Sprintf("%d/%d", st.Offset, st.Limit))
			if len(st.Calls) > 1 {
				pieces++
			}
			if (st.Offset-1)%follower.ReadLimit != 0 {
				early++ // went on from where the host said the last part stopped
			}
		}
		if mine != nil {
			parts = append(parts, mine...)
			byReader = append(byReader, strings.Join(mine, " "))
		}
	}
	slices.Sort(byReader)
	t.Logf("the packages' reads: %v, %d of them in more than one call, %d going on where the host stopped the last; %d requests, %v",
		parts, pieces, early, len(s.Server.Requests()), p.Elapsed.Round(time.Millisecond))
	// Task 1's package in 4 parts, Task 2's in 1, the final one in 4: each
	// reader's parts in order.
	whole := "1/2000 2001/2000 4001/2000 6001/2000"
	standard := []string{"1/2000", whole, whole}
	switch h.Facts().Reads {
	case Whole:
		assert.Equal(t, standard, byReader)
		assert.Zero(t, pieces, "a part read in more than one call")
	case Pieces:
		assert.Equal(t, standard, byReader)
		assert.NotZero(t, pieces, "a part read in more than one call, each from the line the last one cut")
	case GoesOn:
		assert.Greater(t, early, 0, "a part stopped early and the reader went on where the host said")
		assert.Greater(t, len(parts), 9, "more parts than 2000-line ones alone")
	}
}

// foreignLedger: the plan's workspace holds a one-line ledger of another
// plan; the controller stops and asks, and leaves it as it was.
func foreignLedger(t *testing.T, h Host) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	sc := scenario(h, follower.WalkScenario())
	s := h.Start(t, repo, sc)
	r := testutil.RunIn(repo, gitenv.Hermetic(s.Home), filepath.Join(s.BinDir, "sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	ws := strings.TrimSpace(r.Stdout)
	const other = "# SDD ledger — plan: docs/plans/other.md\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(other), 0o644))
	before := testutil.DirNames(t, ws)
	p := s.Session(prompt(h, "Carry out", follower.WalkPlanPath), Follow(h, sc))
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Say"}, toolsOf(p.Calls()))
	assert.Contains(t, p.Final, "it is another run's only record")
	assert.Equal(t, other, readFile(t, filepath.Join(ws, "progress.md")))
	assert.Equal(t, before, testutil.DirNames(t, ws), "no brief, no package written")
	assert.Empty(t, testutil.Git(t, repo, "log", "--format=%H", "main..HEAD"), "no task started")
}

// stepNamer names a session's controller calls by the text's steps
// (follower.Steps of the skill installed in s), each dispatch's without
// its model where the host's tiers name none.
func stepNamer(t *testing.T, h Host, s *Sessions) func([]follower.Call) []string {
	steps, err := follower.NewSteps(s.SkillDir)
	require.NoError(t, err)
	return func(calls []follower.Call) []string {
		out := steps.Names(calls)
		for i, n := range out {
			out[i] = asHost(h, n)
		}
		return out
	}
}

// asHost is a step of follower.Resumes as h takes it: without the
// dispatch's model where the host's tiers name none.
func asHost(h Host, step string) string {
	if h.Facts().Tiers {
		return step
	}
	return WithoutModel(step)
}

// resume: a run cut in state c, its files changed as the state says, and
// a new session in the same HOME and repository, which finds the state
// with Look (Look names the state's row) and takes the row's steps (the
// list the direct executor resumes from; a dispatch's step without its
// model where the host's tiers name none), then finishes, with the
// ledger the state expects, or stops as the row says. It returns the
// resumed session, for a scenario's own checks.
func resume(t *testing.T, h Host, c follower.Resume) *Played {
	sc := scenario(h, c.Scenario())
	repo := testutil.PlanRepo(t, sc.Plan, follower.PlanText(sc.Plan))
	name := follower.Workspace(sc.Plan)
	s := h.Start(t, repo, sc)
	named := stepNamer(t, h, s)
	asHere := func(step string) string { return asHost(h, step) }
	cut := s.Session(prompt(h, "Carry out", sc.Plan), FollowUntil(h, sc, c.Cut))
	require.Equal(t, CutText, cut.Final)
	got := named(cut.Calls())
	require.Len(t, got, c.Cut)
	require.Equal(t, asHere(c.After), got[c.Cut-1], "the cut's last step")
	ws := filepath.Join(repo, ".superpowers", "sdd", name)
	if c.Edit != nil {
		require.NoError(t, c.Edit(repo, ws))
	}
	keep := testutil.RealTempDir(t)
	// A new session: what the cut one dispatched is not this one's.
	sc.NewSession = true
	p := s.Session(prompt(h, "Resume", sc.Plan), FollowKeeping(h, sc, repo, keep))
	got = named(p.Calls())
	require.GreaterOrEqual(t, len(got), 3)
	require.Equal(t, []string{"Skill " + h.Facts().SkillName(), "Read " + follower.HostFile(h.Host()), "Bash Look"}, got[:3])
	look, _ := p.Ran("sdd-ledger look ")
	row, ok := LookRow(look.Text)
	require.True(t, ok, "no Look printed a next: line")
	assert.Equal(t, c.Row, row, "the row Look names")
	var want []string
	for _, n := range c.Next {
		want = append(want, asHere(n))
	}
	require.Equal(t, want, got[3:min(len(got), 3+len(want))], "the steps after Look; all of them:\n%s", strings.Join(got, "\n"))
	// A new session continues only agents it dispatched itself: the cut
	// session's are an earlier session's (the host file's exception).
	mine := map[string]bool{}
	for _, st := range p.Controller() {
		if st.Tool != "Agent" {
			continue
		}
		if st.Continued != "" {
			assert.True(t, mine[st.Continued], "the new session continued %s, an agent of the session cut off", st.Continued)
		} else if st.ID != "" {
			mine[st.ID] = true
		}
	}
	if c.Stop != "" {
		assert.Contains(t, p.Final, c.Stop)
		return p
	}
	requireDone(t, p)
	assert.NoDirExists(t, ws)
	ledger := finished(t, p, keep, name)
	if c.Walk {
		cs := testutil.BranchCommits(t, repo)
		require.Len(t, cs, 5)
		short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
		mainHead := testutil.Git(t, repo, "rev-parse", "main")
		want := follower.WalkLedger(mainHead, cs, short, "", "", "", "")
		assert.Equal(t, follower.WithoutImplementers(want), follower.WithoutImplementers(ledger))
		assert.Equal(t, follower.WalkFiles(mainHead, cs, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
		assert.Contains(t, p.Final, "verdict: Final: complete")
	}
	if c.Ends != nil {
		assert.NoError(t, c.Ends(ledger, testutil.BranchCommits(t, repo)))
	}
	return p
}
