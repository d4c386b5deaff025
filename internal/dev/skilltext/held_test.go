package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The runs that hold the text's decisions the follower once made in Go
// (issue 37): what follows a failed check, the Placeholder table's values,
// where a fix round goes on each host after a compaction or in a new
// session, which tasks a batch takes, the questions before Task 1 (and
// the branches that need the human's yes), the ways on after rewritten
// history (a human who runs the command they are given), a host file's
// stop for a refused file, the subagents' rules from their role files.
// Each is a mutantRun of the catalogue (TestTextMutants) and passes on
// skill/ (TestHeldRunsPassOnTheText). The rules no run can hold are
// docs/prose-rules.md's (TestProseRulesNameScenarios).

// resumeOf is follower.Resumes()'s state of that name.
func resumeOf(t *testing.T, name string) follower.Resume {
	t.Helper()
	for _, c := range follower.Resumes() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no resume state %q", name)
	return follower.Resume{}
}

// fixDispatches are a run's fix-round dispatches, each as the subagent
// it continued, or "new" for a fresh implementer.
func fixDispatches(calls []directCall) []string {
	var out []string
	for _, c := range controllerCalls(calls) {
		if c.Tool != "Agent" || !strings.HasPrefix(c.Input, "Fix round ") {
			continue
		}
		if c.Continued != "" {
			out = append(out, c.Continued)
		} else {
			out = append(out, "new")
		}
	}
	return out
}

// finishedRun are the problems of a run that must finish cleanly.
func finishedRun(r *directRun) []string {
	var p []string
	if !strings.HasPrefix(r.final, "Done: ") {
		p = append(p, "the run did not finish: "+r.final)
	}
	return append(p, failedCalls(r.calls)...)
}

// hostRun runs sc on host's file of the text to its end, then check.
func hostRun(host string, sc func() follower.Scenario, check func(r *directRun) []string) mutantRun {
	return func(t *testing.T, dir string) []string {
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, sc(), directOptions{skillDir: dir, host: host})
		p := finishedRun(r)
		if check != nil {
			p = append(p, check(r)...)
		}
		return p
	}
}

// continuing requires a run's fix rounds to go on as want says: each the
// id of the subagent it continued, or "new".
func continuing(want ...string) func(r *directRun) []string {
	return func(r *directRun) []string {
		if got := fixDispatches(r.calls); strings.Join(got, "|") != strings.Join(want, "|") {
			return []string{fmt.Sprintf("the fix rounds went to %q, want %q", got, want)}
		}
		return nil
	}
}

// hostResume cuts a run on host's file where follower.Resumes()'s state
// name says, and resumes it on that file after a compaction of the same
// session (its subagents reachable) or in a new session (newSession);
// the resumed run must finish, its fix rounds going as check says.
func hostResume(host, name string, newSession bool, check func(r *directRun) []string) mutantRun {
	return func(t *testing.T, dir string) []string {
		c := resumeOf(t, name)
		plan := c.Scenario().Plan
		repo := walkRepo(t, plan, follower.PlanText(plan))
		cut := runDirect(t, repo, c.Scenario(), directOptions{skillDir: dir, host: host, maxCalls: c.Cut})
		if !cut.cut {
			return []string{"the run ended before its cut: " + cut.final}
		}
		if c.Edit != nil {
			if err := c.Edit(repo.Root, filepath.Join(repo.Root, ".superpowers", "sdd", follower.Workspace(plan))); err != nil {
				t.Fatal(err)
			}
		}
		r := runDirect(t, repo, c.Scenario(), directOptions{skillDir: dir, host: host, after: cut, newSession: newSession})
		p := finishedRun(r)
		if check != nil {
			p = append(p, check(r)...)
		}
		return p
	}
}

// checkFailsRun: Task 1's check fails (follower.CheckFailsScenario); the
// text's rule for it makes a finding of it, a fix round fixes it, and
// the run finishes with greet.txt right.
func checkFailsRun(t *testing.T, dir string) []string {
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	r := runDirect(t, repo, follower.CheckFailsScenario(), directOptions{skillDir: dir})
	var p []string
	if !strings.HasPrefix(r.final, "Done: ") {
		p = append(p, "the run did not finish: "+r.final)
	}
	for _, f := range failedCalls(r.calls) {
		if !strings.HasPrefix(f, `controller Bash "sh check1.sh && `) { // the check that fails
			p = append(p, f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(repo.Root, "greet.txt")); string(b) != "hello\n" {
		p = append(p, fmt.Sprintf("greet.txt is %q at the end: the failed check's defect stayed", b))
	}
	ledger := finishedLedger(r)
	for _, want := range []string{"\nTask 1: finding — F1 " + follower.CheckFinding + "\n", "\nTask 1: fix round 1/5 (1 addressed, 0 open — none; "} {
		if !strings.Contains(ledger, want) {
			p = append(p, fmt.Sprintf("the ledger lacks %q:\n%s", want, ledger))
		}
	}
	return p
}

// microJudgmentRun: Look proposes the eight micro-tasks as one batch;
// Task 7 needs judgment, which rare.md's Batches keeps out of a batch:
// Tasks 1-6 are one batch, Tasks 7 and 8 each a task of its own.
var microJudgmentRun = microApartRun(follower.MicroJudgmentScenario)

// microSettledRun: the same with a Task 7 that defines what Task 8 uses.
var microSettledRun = microApartRun(follower.MicroSettledScenario)

// microApartRun runs a scenario of the eight micro-tasks whose Task 7
// rare.md's Batches keeps out of a batch: Tasks 1-6 must be one batch,
// Tasks 7 and 8 each a task of its own.
func microApartRun(sc func() follower.Scenario) mutantRun {
	return func(t *testing.T, dir string) []string { return microApart(t, dir, sc()) }
}

func microApart(t *testing.T, dir string, sc follower.Scenario) []string {
	repo := walkRepo(t, follower.MicroPlanPath, follower.MicroPlan)
	r := runDirect(t, repo, sc, directOptions{skillDir: dir})
	p := finishedRun(r)
	ledger := finishedLedgerOf(r, "color")
	for n := 1; n <= follower.MicroTasks; n++ {
		line := ""
		for _, l := range strings.Split(ledger, "\n") {
			if strings.HasPrefix(l, fmt.Sprintf("Task %d: complete (", n)) {
				line = l
			}
		}
		batched := strings.HasSuffix(line, ", with Task 1)")
		if want := n > 1 && n < follower.JudgmentTask; line == "" || batched != want {
			p = append(p, fmt.Sprintf("Task %d's complete line %q: in Task 1's batch %v, want %v", n, line, batched, want))
		}
	}
	if d := countDispatches(r.calls); d.implementers != 3 {
		p = append(p, fmt.Sprintf("%d implementer dispatches, want 3 (the batch of Tasks 1-6, Task 7, Task 8)", d.implementers))
	}
	return p
}

// questionsRun: an earlier run's commits on the branch and a
// contradiction in the plan: the controller asks both in its first turn,
// as Before Task 1 says (everything at once), and with the human's
// answers the run finishes.
func questionsRun(t *testing.T, dir string) []string {
	repo, _ := earlierRun(t)
	sc := follower.ContradictionScenario()
	ask := runDirect(t, repo, sc, directOptions{skillDir: dir})
	var p []string
	for _, want := range []string{follower.Contradiction, "commits since main", "Which count as done"} {
		if !strings.Contains(ask.final, want) {
			p = append(p, fmt.Sprintf("the first turn's question lacks %q: %s", want, ask.final))
		}
	}
	sc.Human = follower.Human{Answered: true, Done: []follower.Earlier{{N: 1, First: 1, Last: 2}}}
	return append(p, finishedRun(runDirect(t, repo, sc, directOptions{skillDir: dir, after: ask}))...)
}

// fileIs is a problem unless the repository's file holds want at the end.
func fileIs(root, path, want string) []string {
	if b, _ := os.ReadFile(filepath.Join(root, path)); string(b) != want {
		return []string{fmt.Sprintf("%s is %q at the end, want %q", path, b, want)}
	}
	return nil
}

// ledgerHas is a problem for each line start the ledger lacks.
func ledgerHas(ledger string, wants ...string) []string {
	var p []string
	for _, w := range wants {
		if !strings.Contains(ledger, "\n"+w) {
			p = append(p, fmt.Sprintf("the ledger lacks %q:\n%s", w, ledger))
		}
	}
	return p
}

// fixedRun runs sc on its plan with dir's text: the run must finish with
// each file holding its text and the ledger holding lines.
func fixedRun(sc func() follower.Scenario, files map[string]string, lines ...string) mutantRun {
	return func(t *testing.T, dir string) []string {
		s := sc()
		repo := walkRepo(t, s.Plan, follower.PlanText(s.Plan))
		r := runDirect(t, repo, s, directOptions{skillDir: dir})
		p := finishedRun(r)
		for path, want := range files {
			p = append(p, fileIs(repo.Root, path, want)...)
		}
		return append(p, ledgerHas(finishedLedgerOf(r, follower.Workspace(s.Plan)), lines...)...)
	}
}

// disputeRun: a batch's fix round fixes one finding and disputes the
// other; the re-review rules the disputed one NOT ADDRESSED (the diff does
// not settle it), and round 2 fixes it.
var disputeRun = fixedRun(follower.MicroDisputeScenario, map[string]string{"palette/p3.txt": "color\n", "palette/p5.txt": "color\n"},
	"Task 1: fix round 1/5 (1 addressed, 1 open — F2 Task 5: "+follower.DisputedFinding+"; commits ",
	"Task 1: fix round 2/5 (1 addressed, 0 open — none; commits ")

// breakingFixRun: Task 2's fix brings in a defect; the re-review reports
// it as New, numbered on from the findings it ruled on (F2), and round 2
// fixes it.
var breakingFixRun = fixedRun(follower.BreakingFixScenario, map[string]string{"greet.txt": "hello\n"},
	"Task 2: fix round 1/5 (1 addressed, 1 open — F2 "+follower.BrokenByFix+"; commits ",
	"Task 2: fix round 2/5 (1 addressed, 0 open — none; commits ")

// reopenRun: Task 3's Minor finding is deferred; the final review finds
// the ledger's line of it must be fixed now, and the final fix fixes it.
var reopenRun = fixedRun(follower.ReopenScenario, map[string]string{"index.txt": "greet.txt\nbye.txt\n"},
	"Task 3: minor (deferred): "+follower.ReopenedMinor,
	"Final: fix round 1/1 (1 addressed, 0 open — none; commits ")

// gitSpanRe is a git command the controller's words give the human.
var gitSpanRe = regexp.MustCompile("`(git [^`]+)`")

// humansEdit is what the human has in their tree, not committed, when the
// run stops: a file of main's the branch never changes.
const humansEdit = "the human's notes, not yet committed\n"

// putBackRun: the branch is rebased under the run and the human has an
// edit in the tree; the controller stops and gives the ways on (rare.md's
// History); the human takes the first, running the git command the
// controller's words give, and their edit survives it; the run, resumed,
// finishes with the walk-through's ledger.
func putBackRun(t *testing.T, dir string) []string {
	c := resumeOf(t, "rewritten: the branch rebased under the run")
	repo := testutil.NewRepo(t)
	repo.Commit("plan and notes", follower.WalkPlanPath, follower.WalkPlan, "notes.txt", "notes\n")
	repo.Git("checkout", "-q", "-b", "feature/run")
	cut := runDirect(t, repo, c.Scenario(), directOptions{skillDir: dir, maxCalls: c.Cut})
	if !cut.cut {
		return []string{"the run ended before its cut: " + cut.final}
	}
	if err := c.Edit(repo.Root, ""); err != nil {
		t.Fatal(err)
	}
	repo.Write("notes.txt", humansEdit)
	stop := runDirect(t, repo, c.AfterCompaction(), directOptions{skillDir: dir, after: cut})
	p := failedCalls(stop.calls)
	m := gitSpanRe.FindStringSubmatch(stop.final)
	if m == nil {
		return append(p, "the controller's words give the human no git command to put the branch back: "+stop.final)
	}
	if res := testutil.RunIn(repo.Root, repo.Env, "sh", "-c", m[1]); res.Code != 0 {
		return append(p, fmt.Sprintf("the human ran %q: %s", m[1], res.Stderr))
	}
	r := runDirect(t, repo, c.Scenario(), directOptions{skillDir: dir, after: stop})
	p = append(p, finishedRun(r)...)
	p = append(p, fileIs(repo.Root, "notes.txt", humansEdit)...)
	// main moved on under the run (the commit the branch was rebased
	// onto); the branch is back on main's commit before it.
	if cs := branchCommits(repo, "main~1"); len(cs) == 5 {
		want := follower.WithoutImplementers(walkLedger(repo, repo.Git("rev-parse", "main~1"), cs, "", "", "", ""))
		if got := follower.WithoutImplementers(finishedLedger(r)); got != want {
			p = append(p, "the ledger is not the walk-through's:\n"+lineDiff("want", want, "got", got))
		}
	} else {
		p = append(p, fmt.Sprintf("%d commits on the branch after the human's command, want the walk-through's 5", len(cs)))
	}
	return p
}

// refusedRun: Gemini CLI refuses a file git ignores unless the user turns
// that off, and every file of the workspace is one: the first subagent
// that reads one (Task 1's implementer, its brief) reports it refused,
// and the controller stops and asks the user for the setting, as
// host-gemini.md says.
func refusedRun(t *testing.T, dir string) []string {
	repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	r := runDirect(t, repo, follower.WalkScenario(), directOptions{skillDir: dir, host: "gemini", refuseIgnored: true})
	var p []string
	if !strings.HasPrefix(r.final, "Stopping at Task 1: ") || !strings.Contains(r.final, `"respectGitIgnore": false`) {
		p = append(p, "the run did not stop and ask for the setting: "+r.final)
	}
	for _, f := range failedCalls(r.calls) {
		if !strings.Contains(f, "is ignored by configured ignore patterns") {
			p = append(p, f)
		}
	}
	return p
}

// onMasterRun: the checkout is on master; the controller asks the human
// before anything is written, as the text says working there needs their
// yes.
func onMasterRun(t *testing.T, dir string) []string {
	repo := testutil.NewRepo(t)
	repo.Commit("plan", follower.WalkPlanPath, follower.WalkPlan)
	repo.Git("branch", "-m", "main", "master")
	sc := follower.WalkScenario()
	sc.StartBranch = "master"
	r := runDirect(t, repo, sc, directOptions{skillDir: dir})
	p := failedCalls(r.calls)
	if !strings.Contains(r.final, "This checkout is on master") {
		p = append(p, "the run did not ask before working on master: "+r.final)
	}
	if _, err := os.Stat(filepath.Join(repo.Root, ".superpowers", "sdd", "greet", "progress.md")); err == nil {
		p = append(p, "a ledger was written before the human's yes")
	}
	return p
}

// TestHeldRunsPassOnTheText: each run the catalogue's newer mutants are
// killed by passes on skill/ itself.
func TestHeldRunsPassOnTheText(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	for name, run := range heldRuns() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if p := run(t, ""); len(p) > 0 {
				t.Errorf("the run on skill/: %s", strings.Join(p, "\n"))
			}
		})
	}
}

// heldRuns are the runs of issue 37's mutants, by what they show.
func heldRuns() map[string]mutantRun {
	m := map[string]mutantRun{
		"a failed check becomes a finding":                checkFailsRun,
		"Codex CLI: rounds 1-3 continue the implementer":  hostRun("codex", stubbornIn(3), continuing("agent-3", "agent-3", "agent-3")),
		"Claude Code: the fix's implementer recorded":     walkRun,
		"a batch stops before a task that needs judgment": microJudgmentRun,
		"a batch stops before a task later tasks use":     microSettledRun,
		"the questions before Task 1 at once":             questionsRun,
		"a disputed finding not addressed":                disputeRun,
		"a fix's new breakage numbered on":                breakingFixRun,
		"a deferred minor reopened by the final review":   reopenRun,
		"the human puts the branch back as told":          putBackRun,
		"Gemini CLI: a refused file stops the run to ask": refusedRun,
		"on master, the human is asked first":             onMasterRun,
	}
	for _, host := range []string{"codex", "opencode", "copilot"} {
		m[host+": a fix round after a compaction continues"] = hostResume(host, "fix", false, continuing("agent-3"))
		m[host+": a fix round in a new session is a new implementer"] = hostResume(host, "fix", true, continuing("new"))
	}
	return m
}

// stubbornIn is the walk-through whose Task 2 defect round n fixes, the
// rounds before it attempts that leave it.
func stubbornIn(n int) func() follower.Scenario {
	return func() follower.Scenario { return follower.StubbornScenario(n, "") }
}

// TestProseRulesNameScenarios: docs/prose-rules.md, the one list of the
// text's rules no literal follower holds, names for each the scenario of
// a live trial that would show it broken, as follower.Named() or
// follower.Resumes() names it, and the skill file that states it.
func TestProseRulesNameScenarios(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "prose-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := follower.ParseText(string(b))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for n := range follower.Named() {
		names[n] = true
	}
	for _, c := range follower.Resumes() {
		names[c.Name] = true
	}
	rows := text.TableWith("Rule")
	if len(rows) == 0 {
		t.Fatal("docs/prose-rules.md has no table whose first column is Rule")
	}
	span := regexp.MustCompile("`([^`]+)`")
	for _, r := range rows {
		if len(r) != 5 {
			t.Errorf("a row without five cells: %q", r)
			continue
		}
		file, _, _ := strings.Cut(r[1], ",")
		if _, err := os.Stat(filepath.Join(moduleRoot, "skill", file)); err != nil {
			t.Errorf("%q: where it is, %q, names no file of skill/", r[0], r[1])
		}
		ms := span.FindAllStringSubmatch(r[3], -1)
		if len(ms) == 0 {
			t.Errorf("%q names no scenario of a live trial", r[0])
		}
		for _, m := range ms {
			if !names[m[1]] {
				t.Errorf("%q names the scenario %q, which neither follower.Named() nor follower.Resumes() has", r[0], m[1])
			}
		}
	}
}
