package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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

// TestWalkThroughSideBySide: the human answers two at a time; each task
// starts in its own worktree (Start task N, never a batch), its
// implementer works there (Work in:), its check runs there, and its close
// joins it into the branch; Task 3, which lists what Tasks 1 and 2 write,
// starts once both have joined. Every task's commits are reviewed once,
// in its own package, and are on the branch at the end.
func TestWalkThroughSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("TestWalkThroughSixTasksSideBySide proves these rules on Claude Code's file; -short drops the repetition")
	}
	t.Parallel()
	for _, host := range []string{"claude-code", "codex"} {
		t.Run(host, func(t *testing.T) { sideBySide(t, host) })
	}
}

// sideBySide is TestWalkThroughSideBySide on host's file: Codex's sends
// the dispatches as spawn_agent calls, then waits for each; Claude Code's
// sends several Agent calls in one message, which run at once.
func sideBySide(t *testing.T, host string) {
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	r := runDirect(t, repo, follower.SideScenario(2), directOptions{host: host})
	requireFinished(t, r)
	ledger := finishedLedgerOf(r, "greet-side")
	for i := 1; i <= 3; i++ {
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: branch=sdd/greet-side/task-%d\n", i, i))
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", i))
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", i))
	}
	require.Equal(t, "", repo.Git("branch", "--list", "sdd/*"), "every task's branch removed once joined")
	require.Equal(t, "", repo.Git("status", "--porcelain"))
	for _, f := range []string{"greet.txt", "check1.sh", "bye.txt", "index.txt"} {
		_, err := os.Stat(filepath.Join(repo.Root, f))
		require.NoError(t, err, "%s is on the branch", f)
	}
	d := countDispatches(r.calls)
	t.Log(walkLine("side by side, two at a time, "+host, 3, d, r.calls))
	if steps := dispatchSteps(r.calls); host == "claude-code" && steps >= d.implementers+d.reviewers+d.fixes {
		t.Errorf("%d dispatch steps for %d dispatches: no two were sent in one message", steps, d.implementers+d.reviewers+d.fixes)
	}
}

// dispatchSteps counts the controller's messages that dispatch.
func dispatchSteps(calls []directCall) int {
	messages := map[int]bool{}
	for _, c := range controllerCalls(calls) {
		if c.Tool == "Agent" {
			messages[c.Message] = true
		}
	}
	return len(messages)
}

// sixTasks is a plan of six ordinary tasks as writing-plans writes them:
// five parts that need nothing of each other (each its file and its
// test), and a sixth that lists them all; and the run of it in which
// every task is done and reviewed clean.
func sixTasks() (plan string, sc follower.Scenario) {
	var b strings.Builder
	b.WriteString("# Parts plan\n\n## Global Constraints\n- Plain text files only, each ending with a newline.\n\n")
	sc = follower.Scenario{Plan: "docs/plans/parts.md", FinalMinors: []string{"the parts could share a header"}}
	var all []string
	for k := 1; k <= 5; k++ {
		f := fmt.Sprintf("part%d.txt", k)
		all = append(all, f)
		fmt.Fprintf(&b, "### Task %d: Part %d\n\n**Files:**\n- Create: `%s`\n- Test: `check%d.sh`\n\nCreate %s containing `part %d`, and check%d.sh that checks it.\n\n", k, k, f, k, f, k, k)
		sc.Tasks = append(sc.Tasks, follower.Task{N: k, Title: fmt.Sprintf("Part %d", k), Test: "test -s " + f,
			Commits: []follower.Commit{{Message: fmt.Sprintf("Task %d: %s", k, f), Files: []follower.File{
				{Path: f, Content: fmt.Sprintf("part %d\n", k)}, {Path: fmt.Sprintf("check%d.sh", k), Content: fmt.Sprintf("grep -qx 'part %d' %s\n", k, f)}}}}})
	}
	fmt.Fprintf(&b, "### Task 6: Index\n\n**Files:**\n- Create: `index.txt`\n\nList %s in index.txt, one a line.\n", strings.Join(all, ", "))
	sc.Tasks = append(sc.Tasks, follower.Task{N: 6, Title: "Index", Test: "test -s index.txt",
		Commits: []follower.Commit{{Message: "Task 6: index.txt", Files: []follower.File{{Path: "index.txt", Content: strings.Join(all, "\n") + "\n"}}}}})
	return b.String(), sc
}

// TestWalkThroughSixTasksSideBySide: six ordinary tasks, three at a time,
// in Claude Code's file (several Agent calls of one message run at
// once): the five independent ones in two waves, the sixth once they
// have joined; S ≤ 0.6 × (I + R + F), and every task's commits reviewed
// exactly once, in its own package, and on the branch at the end.
func TestWalkThroughSixTasksSideBySide(t *testing.T) {
	t.Parallel()
	plan, sc := sixTasks()
	repo := walkRepo(t, sc.Plan, plan)
	sc.Human = follower.Human{Answered: true, Side: 3}
	r := runDirect(t, repo, sc, directOptions{})
	requireFinished(t, r)
	d := countDispatches(r.calls)
	t.Log(walkLine("six tasks, three at a time", 6, d, r.calls))
	if s, all := dispatchSteps(r.calls), d.implementers+d.reviewers+d.fixes; 10*s > 6*all {
		t.Errorf("%d dispatch steps for %d dispatches: more than 0.6 of them", s, all)
	}
	ledger := finishedLedgerOf(r, "parts")
	for k := 1; k <= 6; k++ {
		require.Equal(t, 1, strings.Count(ledger, fmt.Sprintf("\nTask %d: reviewed_head=", k)), "Task %d reviewed once:\n%s", k, ledger)
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", k))
	}
	require.Equal(t, "Task 1: part1.txt\nTask 2: part2.txt\nTask 3: part3.txt\nTask 4: part4.txt\nTask 5: part5.txt\nTask 6: index.txt",
		strings.Join(sortedLines(repo.Git("log", "--no-merges", "--format=%s", "main..HEAD")), "\n"), "every task's commit on the branch")
	require.Equal(t, "", repo.Git("branch", "--list", "sdd/*"), "every task's branch removed once joined")
	require.Equal(t, "", repo.Git("status", "--porcelain"))

	// The cost: no more controller calls than one at a time, plus one a
	// join (a measure, run in full).
	if testing.Short() {
		return
	}
	serialRepo := walkRepo(t, sc.Plan, plan)
	sc.Human.Side = 1
	serial := runDirect(t, serialRepo, sc, directOptions{})
	requireFinished(t, serial)
	t.Log(walkLine("six tasks, one at a time", 6, countDispatches(serial.calls), serial.calls))
	if side, one := len(controllerCalls(r.calls)), len(controllerCalls(serial.calls)); side > one+6 {
		t.Errorf("%d controller calls side by side, %d one at a time: more than one a join more", side, one)
	}
}

func sortedLines(s string) []string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(ls)
	return ls
}

// TestWalkThroughSideBySideEscape: Task 2's implementer, told to work in
// its worktree, commits on the main checkout instead: the next package
// stops its unit (BLOCKED — it left its worktree, naming the commit;
// which task's implementer escaped, the commit says, not the command),
// the run stops for the human, and nothing of it is joined.
func TestWalkThroughSideBySideEscape(t *testing.T) {
	t.Parallel()
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	sc := follower.SideScenario(2)
	sc.Tasks[1].Escapes = true
	r := runDirect(t, repo, sc, directOptions{})
	require.Contains(t, r.final, "BLOCKED", r.final)
	ledger := r.h.ledgers()["greet-side"]
	require.Regexp(t, `\nTask \d: BLOCKED — it left its worktree: the feature branch moved: .* "Task 2: bye.txt" now`, ledger)
	require.NotContains(t, ledger, "Task 2: reviewed_head=", "no package of the escaped work")
	require.NotContains(t, ledger, "Task 2: joined=")
}

// TestWalkThroughSideBySideResume: six tasks three at a time, the run
// cut (a compaction) once three implementers have answered and before
// any package: the next controller's Look names every task in flight
// with its worktree, and the run goes on from there to its end, every
// task reviewed once and joined.
func TestWalkThroughSideBySideResume(t *testing.T) {
	t.Parallel()
	plan, sc := sixTasks()
	sc.Human = follower.Human{Answered: true, Side: 3}
	repo, cut := cutRun(t, sc.Plan, plan, sc, 11, "")
	require.Equal(t, 3, countDispatches(cut.calls).implementers, "the cut comes after the three implementers:\n%s", callList(cut.calls))
	r := resumeRun(t, repo, cut, sc, "")
	requireFinished(t, r)
	look := controllerCalls(r.calls)[2]
	require.Contains(t, look.Input, "look", callList(r.calls))
	for k := 1; k <= 3; k++ {
		require.Contains(t, look.Output, fmt.Sprintf("task-%d-worktree (branch sdd/parts/task-%d)", k, k), "Look after the cut names Task %d's worktree", k)
	}
	require.Contains(t, look.Output, "next: Task 1 row=package, Task 2 row=package, Task 3 row=package")
	ledger := finishedLedgerOf(r, "parts")
	for k := 1; k <= 6; k++ {
		require.Equal(t, 1, strings.Count(ledger, fmt.Sprintf("\nTask %d: reviewed_head=", k)), "Task %d reviewed once:\n%s", k, ledger)
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: joined=", k))
	}
	t.Log(walkLine("six tasks, resumed with three in flight", 6, countDispatches(r.calls), r.calls))
}

// TestWalkThroughSideBySideConflict: Tasks 1 and 2, whose Files lists are
// apart, both write notes.txt: each joins alone (Look's waits:), Task 1
// first; Task 2's join conflicts, the conflict comes back as its finding,
// its fix round (in its worktree) merges the branch and keeps both notes,
// the re-review finds it resolved, and the close joins it.
func TestWalkThroughSideBySideConflict(t *testing.T) {
	t.Parallel()
	sc := follower.SideConflictScenario()
	repo := walkRepo(t, sc.Plan, follower.PlanText(sc.Plan))
	r := runDirect(t, repo, sc, directOptions{})
	require.True(t, strings.HasPrefix(r.final, "Done: "), r.final)
	// Two calls fail, as they should: the close whose join conflicted
	// (exit 5, its finding recorded) and the fix's merge that stops at
	// the conflict for its implementer to resolve.
	failed := failedCalls(r.calls)
	require.Len(t, failed, 2, "%q", failed)
	require.Contains(t, failed[0], "sdd-ledger close 'docs/plans/greet-side.md' 2")
	require.Contains(t, failed[1], "merge -q 'feature/run'")
	ledger := finishedLedgerOf(r, follower.Workspace(sc.Plan))
	require.Regexp(t, `\nTask 2: finding — F\d+ joining conflicts with feature/run at [0-9a-f]+ in notes.txt: in the worktree .*task-2-worktree, merge feature/run into sdd/greet-side/task-2 and resolve it\n`, ledger)
	for n := 1; n <= 3; n++ {
		require.Contains(t, ledger, fmt.Sprintf("\nTask %d: complete (commits ", n))
	}
	require.Equal(t, "greeting: hello\nfarewell: bye\n", readFileT(t, filepath.Join(repo.Root, "notes.txt")), "both tasks' notes, merged")
	var waits bool
	for _, k := range controllerCalls(r.calls) {
		waits = waits || strings.Contains(k.Output, "\nwaits: Task 2 it changed files its Files list does not name (notes.txt)")
	}
	require.True(t, waits, "Look said Task 2 joins alone")
	t.Log(walkLine("side by side, a conflict", 3, countDispatches(r.calls), r.calls))
}
