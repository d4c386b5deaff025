package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

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

// walkRepo is a repository with the plan committed on main and the run's
// branch checked out.
func walkRepo(t *testing.T, planPath, plan string) *testutil.Repo {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("plan", planPath, plan)
	repo.Git("checkout", "-q", "-b", "feature/run")
	return repo
}

// runToTheEnd runs sc in a repository whose sc.Plan holds plan, and
// requires the run to finish.
func runToTheEnd(t *testing.T, plan string, sc follower.Scenario) (*testutil.Repo, *directRun) {
	t.Helper()
	repo := walkRepo(t, sc.Plan, plan)
	r := runDirect(t, repo, sc, directOptions{})
	requireFinished(t, r)
	return repo, r
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

// problems collects what a run did wrong, so one check serves the
// walk-through of skill/ (nothing may be wrong) and of a mutated copy
// (something must be).
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p *problems) eq(what string, want, got any) {
	if !reflect.DeepEqual(want, got) {
		p.add("%s:\nwant %q\n got %q", what, want, got)
	}
}

func (p problems) String() string { return strings.Join(p, "\n") }

// walk runs the walk-through scenario on the text in skillDir ("" for
// skill/) and returns what went wrong.
func walk(t *testing.T, skillDir string) (problems, *directRun) {
	t.Helper()
	return walkOn(t, skillDir, "claude-code")
}

// fixContinues are the hosts whose file has Task 2's fix round (round 1)
// continue its implementer.
var fixContinues = map[string]bool{"codex": true, "opencode": true, "copilot": true, "droid": true}

// walkOn is walk with the host's file of host.
func walkOn(t *testing.T, skillDir, host string) (problems, *directRun) {
	t.Helper()
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	mainHead := repo.Git("rev-parse", "main")
	r := runDirect(t, repo, follower.WalkScenario(), directOptions{skillDir: skillDir, host: host})
	var p problems
	if !strings.HasPrefix(r.final, "Done: ") {
		p.add("the run did not finish: %s", r.final)
	}
	for _, f := range failedCalls(r.calls) {
		p.add("a call failed: %s", f)
	}

	// The commits: Task 1's two, Task 2's and its fix, Task 3's.
	p.eq("the branch's commits", "Task 1: greet.txt\nTask 1: check1.sh\nTask 2: bye.txt\nTask 2: fix F1\nTask 3: index.txt",
		repo.Git("log", "--reverse", "--format=%s", "main..HEAD"))
	c := branchCommits(repo, "main")
	if len(c) != 5 {
		return p, r
	}
	if b, _ := os.ReadFile(filepath.Join(repo.Root, "bye.txt")); string(b) != "bye\n" {
		p.add("bye.txt is %q: the fix round did not fix the defect", b)
	}
	p.eq("git status", "", repo.Git("status", "--porcelain"))

	// The workspace is gone, and only it.
	ws := filepath.Join(repo.Root, ".superpowers", "sdd", "greet")
	if _, err := os.Stat(ws); err == nil {
		p.add("the workspace %s is still there", ws)
	}
	p.eq("what is left under .superpowers/sdd", []string{".gitignore"}, dirFiles(t, filepath.Join(repo.Root, ".superpowers", "sdd")))

	// The ledger as Finish found it, line by line, and the files beside it.
	kept := filepath.Join(r.keep, "greet")
	s := func(sha string) string { return short(repo, sha) }
	// The implementers' ids: Task 2's fix round a new one (agent-5), or
	// the same one continued where the host's file says so.
	ids := []string{"agent-1", "agent-3", "agent-5", "agent-7"}
	if fixContinues[host] {
		ids = []string{"agent-1", "agent-3", "agent-3", "agent-6"}
	}
	var continued []string
	for _, k := range controllerCalls(r.calls) {
		if k.Tool == "Agent" && k.Continued != "" {
			continued = append(continued, k.Continued)
		}
	}
	var wantContinued []string
	if fixContinues[host] {
		wantContinued = []string{"agent-3"}
	}
	p.eq("the subagents continued", wantContinued, continued)
	var fixer string
	for _, k := range r.calls {
		if k.Tool == "Bash" && strings.Contains(k.Input, "git commit") && strings.Contains(k.Input, "fix F1") {
			fixer = k.Actor
		}
	}
	p.eq("the subagent that committed the fix", ids[2], fixer)
	want := walkLedger(repo, mainHead, c, ids...)
	if directHosts[host].noIDs {
		// No dispatch gave an id: every Package records none.
		want = follower.WithoutImplementers(want)
	}
	p.eq("the ledger Finish deleted", want, finishedLedger(r))
	files := follower.WalkFiles(mainHead, c, s)
	if _, err := os.Stat(kept); err == nil {
		p.eq("the workspace's files", files, dirFiles(t, kept))
	}
	cons, _ := os.ReadFile(filepath.Join(kept, "constraints.md"))
	p.eq("constraints.md", "## Global Constraints\n- Plain text files only, each ending with a newline.\n\n", string(cons))
	if rep, _ := os.ReadFile(filepath.Join(kept, "task-2-report.md")); !strings.Contains(string(rep), "\n## Fix round 1\n") || !strings.HasPrefix(string(rep), "# Task 2: Farewell\n") {
		p.add("the fix report was not appended to task-2-report.md, after the implementer's:\n%s", rep)
	}

	// What the human must still decide is in the last message.
	for _, want := range []string{"Task 1: minor (deferred): check1.sh repeats the file name", "Final: minor (deferred): naming drift between greet and bye", "verdict: Final: complete"} {
		if !strings.Contains(r.final, want) {
			p.add("the last message lacks %q", want)
		}
	}

	// Task 1's review could not verify the check: the controller ran it
	// in the call that closed the task.
	var checked bool
	for _, k := range controllerCalls(r.calls) {
		checked = checked || k.Tool == "Bash" && strings.HasPrefix(follower.ByName(k.Input), "sh check1.sh && sdd-ledger close ")
	}
	if !checked {
		p.add("the check of what Task 1's review could not verify (sh check1.sh) never ran before its Close")
	}

	// Every dispatch names its model; the fix went to a fresh implementer.
	var models, tools []string
	for _, k := range controllerCalls(r.calls) {
		tools = append(tools, k.Tool)
		if k.Tool == "Agent" {
			models = append(models, k.Model)
		}
	}
	// The tasks are all of the standard tier: their implementers, reviewers
	// and re-reviewers on sonnet, the final reviewer on opus.
	wantModels := []string{"sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "opus"}
	if host != "claude-code" {
		// Its tiers name no model: every agent runs on the session's.
		wantModels = make([]string, len(wantModels))
	}
	p.eq("the dispatches' models", wantModels, models)
	p.eq("the controller's calls", []string{"Skill", "Read", "Bash", "Read", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash"}, tools)

	// What it costs, against the v6.2.0 text.
	_, per, _ := stepCounts(r.calls, 3)
	for i, n := range per {
		if n > follower.WalkCeilings[i] {
			p.add("Task %d costs %d controller calls, the v6.2.0 text %d", i+1, n, follower.WalkCeilings[i])
		}
	}
	return p, r
}

// finishedLedger is the ledger as the run left it: the copy the executor
// made before the call that ran Finish, then the lines that call recorded.
func finishedLedger(r *directRun) string { return finishedLedgerOf(r, "greet") }

// finishedLedgerOf is finishedLedger for the workspace named ws.
func finishedLedgerOf(r *directRun, ws string) string {
	for _, c := range r.calls {
		if c.Actor == "controller" && c.Tool == "Bash" && follower.RunsFinish(c.Input) {
			b, _ := os.ReadFile(filepath.Join(r.keep, ws, "progress.md"))
			return follower.FinishedLedger(string(b), c.Output)
		}
	}
	return ""
}

// walkLedger is the walk-through's ledger at its end, for the branch's
// commits c (after mainHead) and the implementers' ids.
func walkLedger(repo *testutil.Repo, mainHead string, c []string, ids ...string) string {
	return follower.WalkLedger(mainHead, c, func(sha string) string { return short(repo, sha) }, ids...)
}

// TestWalkThroughEachHost follows skill/ through the walk-through with
// each host's file of it: the same commits, ledger, workspace and calls,
// the commands in the form the file gives (from the skill's bin/ where
// the host puts none on PATH), each dispatch of the agent type it names,
// the models its tiers name (none but Claude Code's), and Task 2's fix
// round continuing its implementer where the file says so (Codex CLI,
// OpenCode, Copilot CLI, Droid), in the same subagent: its id, and the files
// it has read.
func TestWalkThroughEachHost(t *testing.T) {
	t.Parallel()
	for host := range directHosts {
		if host == "claude-code" {
			continue // TestWalkThrough
		}
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			p, r := walkOn(t, "", host)
			if len(p) > 0 {
				t.Fatalf("%s\n\nlast words: %s\ncalls:\n%s", p, r.final, callList(r.calls))
			}
			t.Log(walkLine(host, 3, countDispatches(r.calls), r.calls))
		})
	}
}

// TestWalkThrough follows skill/ through the run of skill/example.md and
// prints what each step costs.
func TestWalkThrough(t *testing.T) {
	t.Parallel()
	p, r := walk(t, "")
	if len(p) > 0 {
		t.Fatalf("%s\n\nlast words: %s\ncalls:\n%s", p, r.final, callList(r.calls))
	}
	setup, per, final := stepCounts(r.calls, 3)
	t.Logf("controller calls: setup %d (then Start the run, which is Task 1's first call), tasks %v, final %d; total %d (ceilings %v)",
		setup, per, final, len(controllerCalls(r.calls)), follower.WalkCeilings)
	d := countDispatches(r.calls)
	t.Log(walkLine("three tasks", 3, d, r.calls))
	if d.implementers < 3 {
		t.Errorf("%d implementer dispatches for three ordinary tasks: they are never batched", d.implementers)
	}
}

// dispatches counts a run's dispatches by kind.
type dispatches struct{ implementers, reviewers, fixes int }

// countDispatches reads the kind of each of the controller's Agent calls
// from its prompt's first words (the text's prompts).
func countDispatches(calls []directCall) dispatches {
	var d dispatches
	for _, c := range controllerCalls(calls) {
		if c.Tool != "Agent" {
			continue
		}
		switch p := c.Input; {
		case strings.HasPrefix(p, "You implement "):
			d.implementers++
		case strings.HasPrefix(p, "You review "), strings.HasPrefix(p, "You re-review "), strings.HasPrefix(p, "You do the final review"):
			d.reviewers++
		case strings.HasPrefix(p, "Fix round "):
			d.fixes++
		}
	}
	return d
}

// walkLine is a walk-through's measure, one line in the form issue 29
// asks for, printed under go test -v.
//
// Its last field, the dispatch steps, is the wall-clock's measure: the
// controller's messages that dispatch, several dispatches sent in one
// message counting once.
func walkLine(name string, tasks int, d dispatches, calls []directCall) string {
	steps := dispatchSteps(calls)
	return fmt.Sprintf("walk-through %s: %d tasks, %d implementer dispatches, %d reviewer dispatches, %d fix dispatches, %d controller calls, %d dispatch steps",
		name, tasks, d.implementers, d.reviewers, d.fixes, len(controllerCalls(calls)), steps)
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// packageReads are the Read calls of subagents on review packages, by
// reader: "offset/limit" for each part, "whole" for one Read.
func packageReads(calls []directCall) map[string][]string {
	out := map[string][]string{}
	for _, c := range calls {
		if c.Tool != "Read" || !strings.HasSuffix(c.Input, ".diff") {
			continue
		}
		if c.Offset == 0 && c.Limit == 0 {
			out[c.Actor] = append(out[c.Actor], "whole")
		} else {
			out[c.Actor] = append(out[c.Actor], fmt.Sprintf("%d/%d", c.Offset, c.Limit))
		}
	}
	return out
}

// TestWalkThroughLargePackage: a task whose package is over 256 KB; its
// reviewer and the final reviewer read it in parts of 2000 lines, as the
// role file says, and never whole (the host refuses that).
func TestWalkThroughLargePackage(t *testing.T) {
	t.Parallel()
	repo, r := runToTheEnd(t, follower.BigPlan, follower.BigScenario(7500))
	t.Log(walkLine("large package", 2, countDispatches(r.calls), r.calls))
	parts := []string{"1/2000", "2001/2000", "4001/2000", "6001/2000"}
	require.Equal(t, map[string][]string{
		"agent-2": parts,                          // Task 1's reviewer
		"agent-4": {"1/2000"},                     // Task 2's: a small package, in one part
		"agent-5": append(parts, "8001/2000")[:4], // the final reviewer: the whole branch
	}, packageReads(r.calls), callList(r.calls))
	// The controller reads its host's file and the plan once, and never
	// a package.
	var reads []string
	for _, c := range r.calls {
		if c.Actor == "controller" && c.Tool == "Read" {
			reads = append(reads, c.Input)
		}
	}
	require.Equal(t, []string{filepath.Join(moduleRoot, "skill", follower.HostFile("claude-code")), filepath.Join(repo.Root, follower.BigPlanPath)}, reads)
}

// TestWalkThroughPackageOver2000Lines: a package under 256 KB with more
// than 2000 lines. One Read returns its first 2000 lines only, so a
// reviewer that read it "once, completely" in one Read would miss the
// rest; read in parts of 2000 lines, it sees every line.
func TestWalkThroughPackageOver2000Lines(t *testing.T) {
	t.Parallel()
	_, r := runToTheEnd(t, follower.BigPlan, follower.BigScenario(4000))
	require.Equal(t, []string{"1/2000", "2001/2000", "4001/2000"}, packageReads(r.calls)["agent-2"])
	t.Log(walkLine("package over 2000 lines", 2, countDispatches(r.calls), r.calls))
}

// writingPlan is follower.WalkPlan in superpowers' own plan format (its
// writing-plans skill): the tasks are `### Task N:` headings after
// `## Global Constraints` and a rule.
var writingPlan = strings.NewReplacer("newline.\n\n", "newline.\n\n---\n\n", "## Task", "### Task").Replace(follower.WalkPlan)

// TestWalkThroughWritingPlansFormat: Start the run copies the Global
// Constraints section up to the next heading of its level or higher, or
// a task heading: in this format every task is deeper, and without the
// stop at a task heading constraints.md, which every subagent reads,
// would hold the whole plan (the implementer stub says so).
func TestWalkThroughWritingPlansFormat(t *testing.T) {
	t.Parallel()
	_, r := runToTheEnd(t, writingPlan, follower.WalkScenario())
	require.Equal(t, "## Global Constraints\n- Plain text files only, each ending with a newline.\n\n\n",
		readFileT(t, filepath.Join(r.keep, "greet", "constraints.md")), "the rule that closes the header is no constraint")
	t.Log(walkLine("writing-plans format", 3, countDispatches(r.calls), r.calls))
}

// TestWalkThroughMicroTasks: a plan of eight tiny tasks of one shape (the
// same edit in eight files, as writing-plans writes tasks) goes to one
// implementer as one batch: one review, one close completing every task
// with its own line, then the final review; dispatches I + R ≤ 4.
func TestWalkThroughMicroTasks(t *testing.T) {
	t.Parallel()
	repo, r := runToTheEnd(t, follower.MicroPlan, follower.MicroScenario())
	d := countDispatches(r.calls)
	t.Log(walkLine("micro-tasks", follower.MicroTasks, d, r.calls))
	if d.implementers+d.reviewers > 4 {
		t.Errorf("%d implementer and %d reviewer dispatches for %d micro-tasks: the batch did not batch", d.implementers, d.reviewers, follower.MicroTasks)
	}
	ledger := finishedLedgerOf(r, "color")
	for i := 1; i <= follower.MicroTasks; i++ {
		if !strings.Contains(ledger, fmt.Sprintf("\nTask %d: complete (commits ", i)) {
			t.Errorf("Task %d has no complete line:\n%s", i, ledger)
		}
	}
	if got := strings.Fields(repo.Git("log", "--format=%s", "main..HEAD")); len(got) == 0 {
		t.Error("no commits")
	}
	for i := 1; i <= follower.MicroTasks; i++ {
		if b, _ := os.ReadFile(filepath.Join(repo.Root, fmt.Sprintf("palette/p%d.txt", i))); string(b) != "color\n" {
			t.Errorf("palette/p%d.txt is %q", i, b)
		}
	}
}

// TestWalkThroughMicroTasksFixLoop: a defect in one task of a batch: the
// review names it with its task, one fix round of the batch fixes it, and
// one close completes every task.
func TestWalkThroughMicroTasksFixLoop(t *testing.T) {
	t.Parallel()
	repo, r := runToTheEnd(t, follower.MicroPlan, follower.MicroDefectScenario())
	d := countDispatches(r.calls)
	t.Log(walkLine("micro-tasks with a fix", follower.MicroTasks, d, r.calls))
	if d.implementers != 1 || d.fixes != 1 {
		t.Errorf("%+v: one implementer and one fix for the batch", d)
	}
	ledger := finishedLedgerOf(r, "color")
	if !strings.Contains(ledger, "Task 1: fix round 1/5 (1 addressed, 0 open — none; commits ") {
		t.Errorf("the batch's round:\n%s", ledger)
	}
	if b, _ := os.ReadFile(filepath.Join(repo.Root, "palette/p3.txt")); string(b) != "color\n" {
		t.Errorf("palette/p3.txt is %q", b)
	}
}

// TestWalkThroughWorkAlreadyDone: Task 3's work is in the tree before it
// begins (Task 1 did it). Its implementer answers DONE with no commit; the
// text's DONE gives after>0, Package packages the empty range (issue 36,
// item 4: it was refused, and the same implementer dispatched for ever),
// the reviewer judges the tree, and the run finishes.
func TestWalkThroughWorkAlreadyDone(t *testing.T) {
	t.Parallel()
	_, r := runToTheEnd(t, follower.WalkPlan, follower.DoneBeforeScenario())
	require.Empty(t, failedCalls(r.calls))
	ledger := finishedLedger(r)
	require.Regexp(t, `(?m)^Task 3: complete \(commits ([0-9a-f]+)\.\.([0-9a-f]+), review clean\)$`, ledger)
	m := regexp.MustCompile(`(?m)^Task 3: complete \(commits ([0-9a-f]+)\.\.([0-9a-f]+),`).FindStringSubmatch(ledger)
	require.Equal(t, m[1], m[2], "an empty range: no commit of Task 3's")
	require.Equal(t, 3, countDispatches(r.calls).implementers, "one implementer dispatch a task, not one after another for Task 3")
}

// TestWalkThroughSideQuestion: a plan whose tasks need nothing of each
// other (Look's side?:) gets the question before Task 1, how many tasks
// at a time; the answer is recorded in the call that starts the run,
// and an answer of one keeps the serial run of the walk-through.
func TestWalkThroughSideQuestion(t *testing.T) {
	t.Parallel()
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	r := runDirect(t, repo, follower.SideScenario(0), directOptions{})
	require.Contains(t, r.final, "Tasks 1 and 2 need nothing of each other: how many tasks may run at a time", "the question before Task 1")

	_, r = runToTheEnd(t, follower.SidePlan, follower.SideScenario(1))
	require.Contains(t, finishedLedgerOf(r, "greet-side"), "\nRun: side by side — 1 at a time\n", "the answer, recorded")
	var starts []string
	for _, k := range controllerCalls(r.calls) {
		if strings.Contains(k.Input, "sdd-ledger start ") {
			starts = append(starts, k.Input)
		}
	}
	require.Equal(t, []string{"sdd-ledger start 'docs/plans/greet-side.md' && sdd-ledger side 'docs/plans/greet-side.md' 1"}, starts, "the answer in the call that starts the run")
	ledger := finishedLedgerOf(r, "greet-side")
	for i := 1; i <= 3; i++ {
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", i))
	}
	require.NotContains(t, ledger, "branch=", "one at a time: no task in a worktree")
	t.Log(walkLine("side question, one at a time", 3, countDispatches(r.calls), r.calls))
}
