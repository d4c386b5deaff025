package follower

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
)

// WalkFinding is the walk-through's one finding (Task 2's defect).
const WalkFinding = "bye.txt:1 says goodby, the brief says bye"

// FinalFinding is a defect only the whole branch shows: Task 3's index
// names a file by a name no task wrote.
const FinalFinding = "index.txt:2 names bye.text, the branch has bye.txt"

// StubbornScenario is the walk-through with Task 2's defect fixed in
// round fixedIn (never, past 5), and the controller's ruling on it (and on
// a second finding a test may add) once round 5 leaves it open.
func StubbornScenario(fixedIn int, ruling string) Scenario {
	sc := WalkScenario()
	d := *sc.Tasks[1].Defect
	d.FixedIn = fixedIn
	d.Attempts = true
	sc.Tasks[1].Defect = &d
	sc.Tasks[1].Rulings = map[string]string{WalkFinding: ruling, "bye.txt lacks a header": "park: a header is not in the brief"}
	return sc
}

// FinalDefectScenario is the walk-through with FinalFinding planted in
// Task 3: the task's review cannot see it, the final review reports it,
// and the final fix fixes it when fixedIn is 1; ruling is the
// controller's ruling on it when the fix leaves it open.
func FinalDefectScenario(fixedIn int, ruling string) Scenario {
	sc := WalkScenario()
	sc.Tasks[2].Defect = &Defect{Path: "index.txt", Wrong: "greet.txt\nbye.text\n", Marker: "bye.text",
		Finding: FinalFinding, FixedIn: fixedIn, OnlyFinal: true, Attempts: true}
	if ruling != "" {
		sc.Tasks[2].Rulings = map[string]string{FinalFinding: ruling}
	}
	return sc
}

// Resume is a state a run is resumed from, for each row of the text's
// state table (SKILL.md's): a scenario's run cut after Cut controller
// calls, the last of them the step After, its files then changed by Edit
// (a state no cut makes: a hand-trimmed ledger, an added line), and the
// steps a controller that follows the text takes next, after Skill and
// Look. Row is the row sdd-ledger's Look must name for the first unit
// not done (the follower's own reading of the table must agree, at every
// step). Both executors run the same list: the direct one resumes as
// after a compaction (its subagents still reachable), the real host in a
// new session.
type Resume struct {
	Name     string // the row, and what makes the state
	Row      string // the row Look names
	Scenario func() Scenario
	Cut      int
	After    string
	Edit     func(root, workspace string) error // nil: none
	Next     []string
	// Stop is in the last words of a run that stops (asks or reports);
	// "" for one that runs to its end.
	Stop string
	// Walk is true where the run ends with the ledger an uncut
	// walk-through writes.
	Walk bool
	// Ends checks the ledger a finished run leaves, given the branch's
	// commits (oldest first), where Walk cannot; nil: none.
	Ends func(ledger string, commits []string) error
}

// AfterCompaction is the state's scenario as a controller resumed after
// a compaction of the same session takes it up: where the cut came right
// after a dispatch, the dispatch whose answer it lost.
func (c Resume) AfterCompaction() Scenario {
	sc := c.Scenario()
	if step, ok := strings.CutPrefix(c.After, "Agent "); ok {
		if i := strings.LastIndex(step, " ("); i >= 0 {
			step = step[:i]
		}
		sc.Lost = step
	}
	return sc
}

// Resumes are the states, one or more for each row.
func Resumes() []Resume {
	const (
		plan   = "Read greet.md"
		review = "Read review-….md"
		rare   = "Read rare.md"
	)
	walk := WalkScenario
	parked := func() Scenario { return StubbornScenario(9, "park: the brief allows either spelling") }
	blocked := func() Scenario { return StubbornScenario(9, "block: Task 3 reads bye.txt") }
	twice := func() Scenario { return StubbornScenario(2, "") }
	finalFix := func() Scenario { return FinalDefectScenario(1, "") }
	finalPark := func() Scenario { return FinalDefectScenario(2, "park: the index is informational") }
	finalGoOn := func() Scenario {
		sc := finalPark()
		sc.Human.GoOn = "review the late commit"
		return sc
	}
	goOn := func() Scenario {
		sc := walk()
		sc.Human.GoOn = "the plan now says bye"
		return sc
	}
	keep := func() Scenario {
		sc := walk()
		// After the rebase the branch holds Task 1's two commits, then
		// Task 2's: Task 1 done, Task 2 to be reviewed again.
		sc.Human.Restart = &Restart{What: "the branch was rebased onto main",
			Done: []Earlier{{N: 1, First: 1, Last: 2}}, Review: &Earlier{N: 2, First: 3}}
		return sc
	}
	next := "Bash Record the round+Close+Start task N"
	_ = review
	return []Resume{
		{Name: "new: no ledger", Row: "new", Scenario: walk, Cut: 3, After: "Bash Look", Walk: true,
			Next: []string{plan, "Bash Start the run+Start task N", "Agent implementer 1 (sonnet)"}},
		{Name: "new: only its first line", Row: "new", Scenario: walk, Cut: 5, After: "Bash Start the run+Start task N", Walk: true,
			Edit: unstarted(1),
			Next: []string{plan, "Bash Start the run+Start task N", "Agent implementer 1 (sonnet)"}},
		{Name: "implement", Row: "implement", Scenario: walk, Cut: 5, After: "Bash Start the run+Start task N", Walk: true,
			Next: []string{plan, "Agent implementer 1 (sonnet)", "Bash Package"}},
		{Name: "implement: an implementer's BLOCKED recorded, its change carried", Row: "implement",
			Scenario: func() Scenario { return AskingScenario("BLOCKED") }, Cut: 19, After: "Bash Block+Unblock",
			Next: []string{plan, "Agent implementer 3 (opus)", "Bash Package"}},
		{Name: "package", Row: "package", Scenario: walk, Cut: 6, After: "Agent implementer 1 (sonnet)", Walk: true,
			Next: []string{plan, "Bash Package", "Agent reviewer 1 (sonnet)", "Bash ? sh check1.sh+Close+Start task N"}},
		{Name: "review", Row: "review", Scenario: walk, Cut: 7, After: "Bash Package", Walk: true,
			Next: []string{plan, "Agent reviewer 1 (sonnet)", "Bash ? sh check1.sh+Close+Start task N"}},
		{Name: "check", Row: "check", Scenario: walk, Cut: 8, After: "Agent reviewer 1 (sonnet)", Walk: true,
			Next: []string{plan, "Bash ? sh check1.sh+Close+Start task N", "Agent implementer 2 (sonnet)"}},
		{Name: "start", Row: "start", Scenario: walk, Cut: 9, After: "Bash ? sh check1.sh+Close+Start task N", Walk: true,
			Edit: unstarted(2),
			Next: []string{plan, "Bash Start task N", "Agent implementer 2 (sonnet)"}},
		{Name: "fix", Row: "fix", Scenario: walk, Cut: 12, After: "Agent reviewer 2 (sonnet)", Walk: true,
			Next: []string{plan, "Agent fix 2 (sonnet)", "Bash Package"}},
		{Name: "refix", Row: "refix", Scenario: walk, Cut: 13, After: "Agent fix 2 (sonnet)", Walk: true,
			Next: []string{plan, "Bash Package", "Agent re-reviewer 2 (sonnet)", next}},
		{Name: "re-review", Row: "re-review", Scenario: walk, Cut: 14, After: "Bash Package", Walk: true,
			Next: []string{plan, "Agent re-reviewer 2 (sonnet)", next}},
		{Name: "record-close", Row: "record-close", Scenario: walk, Cut: 15, After: "Agent re-reviewer 2 (sonnet)", Walk: true,
			Next: []string{plan, next, "Agent implementer 3 (sonnet)"}},
		{Name: "record: findings left open", Row: "record", Scenario: twice, Cut: 15, After: "Agent re-reviewer 2 (sonnet)",
			Next: []string{plan, "Bash Record the round", "Agent fix 2 (sonnet)"}},
		{Name: "close", Row: "close", Scenario: walk, Cut: 19, After: "Agent reviewer 3 (sonnet)", Walk: true,
			Next: []string{plan, "Bash Close+Final package", "Agent final reviewer 0 (opus)"}},
		{Name: "breaker", Row: "breaker", Scenario: parked, Cut: 32, After: "Bash Record the round",
			Next: []string{plan, rare, "Bash Park+Close+Start task N"}, Ends: bothParked(1)},
		{Name: "breaker: one of two parked", Row: "breaker", Scenario: parked, Cut: 32, After: "Bash Record the round",
			Edit: func(_, ws string) error { return parkSome(ws, 1) },
			Next: []string{plan, rare, "Bash Park+Close+Start task N"}, Ends: bothParked(2)},
		{Name: "ruled: every open finding parked", Row: "ruled", Scenario: parked, Cut: 32, After: "Bash Record the round",
			Edit: func(_, ws string) error { return parkSome(ws, 2) },
			Next: []string{plan, "Bash Close+Start task N"}, Ends: bothParked(2)},
		{Name: "blocked", Row: "blocked", Scenario: blocked, Cut: 32, After: "Bash Record the round",
			Edit: func(_, ws string) error {
				return appendLedger(ws, "Task 2: BLOCKED — F1 "+WalkFinding+": Task 3 reads bye.txt\n")
			},
			Next: []string{plan, "Say"}, Stop: "Task 2 is BLOCKED"},
		{Name: "blocked: the human says go on", Row: "blocked", Scenario: goOn, Cut: 9, After: "Bash ? sh check1.sh+Close+Start task N",
			Edit: func(_, ws string) error {
				return appendLedger(ws, "Task 2: BLOCKED — the plan does not say which farewell\n")
			},
			Next: []string{plan, rare, "Bash Unblock", "Agent implementer 2 (sonnet)"}, Ends: unblockedThenDone},
		{Name: "rewritten: the branch rebased under the run", Row: "rewritten", Scenario: walk, Cut: 12, After: "Agent reviewer 2 (sonnet)",
			Edit: rebaseUnderTheRun, Next: []string{plan, rare, "Say"}, Stop: "no longer holds"},
		{Name: "renumbered: a task put before the one under way", Row: "renumbered", Scenario: walk, Cut: 9, After: "Bash ? sh check1.sh+Close+Start task N",
			Edit: renumberUnderTheRun, Next: []string{plan, rare, "Say"}, Stop: "no longer holds"},
		{Name: "rewritten: the human keeps the rebased branch", Row: "rewritten", Scenario: keep, Cut: 12, After: "Agent reviewer 2 (sonnet)",
			Edit: rebaseUnderTheRun, Next: []string{plan, rare, "Bash Restart+Start the run+Earlier run, done+Earlier run, to review+Look", "Bash Package", "Agent reviewer 2 (sonnet)"},
			Ends: restartedThenDone},
		{Name: "refix: a commit after a clean review", Row: "refix", Scenario: walk, Cut: 8, After: "Agent reviewer 1 (sonnet)",
			Edit: commitOnTheRun, Next: []string{plan, "Bash Package", "Agent re-reviewer 1 (sonnet)", "Bash Record the round+Close+Start task N"}},
		{Name: "late: a commit after round 5", Row: "late", Scenario: parked, Cut: 32, After: "Bash Record the round",
			Edit: commitOnTheRun, Next: []string{plan, "Say"}, Stop: "waits for your word"},
		{Name: "final: every task complete", Row: "final", Scenario: walk, Cut: 20, After: "Bash Close+Final package", Walk: true,
			Edit: func(_, ws string) error { return dropFinal(ws) },
			Next: []string{plan, "Bash Final package", "Agent final reviewer 0 (opus)", "Bash Close+Finish"}},
		{Name: "final: the branch merged before its review", Row: "final", Scenario: walk, Cut: 20, After: "Bash Close+Final package",
			Edit: func(root, ws string) error {
				if err := dropFinal(ws); err != nil {
					return err
				}
				return mergeIntoMain(root)
			},
			Next: []string{plan, "Bash Final package", "Bash Finish", "Say"}},
		{Name: "final-review", Row: "final-review", Scenario: walk, Cut: 20, After: "Bash Close+Final package", Walk: true,
			Next: []string{plan, "Agent final reviewer 0 (opus)", "Bash Close+Finish"}},
		{Name: "close: the final review clean", Row: "close", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)", Walk: true,
			Next: []string{plan, "Bash Close+Finish", "Say"}},
		{Name: "finished", Row: "finished", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Edit: func(_, ws string) error { return finalComplete(ws) },
			Next: []string{plan, "Bash Finish", "Say"}},
		{Name: "joined: a merge commit to check", Row: "joined", Scenario: func() Scenario { return SideScenario(2) }, Cut: 19, After: "Bash Record the round+Close+Look",
			Next: []string{"Read rare.md", "Read greet-side.md", "Bash ? test -s bye.txt+Close", "Bash Look", "Bash Start task N+Look"}},
		{Name: "blocked: the final review", Row: "blocked", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Edit: func(_, ws string) error {
				return appendLedger(ws, "Final: BLOCKED — greet and bye disagree on the encoding\n")
			},
			Next: []string{plan, "Say"}, Stop: "Final is BLOCKED"},
		{Name: "fix: the final review", Row: "fix", Scenario: finalFix, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Next: []string{plan, "Agent fix 0 (sonnet)", "Bash Package", "Agent re-reviewer 0 (sonnet)", "Bash Record the round+Close+Finish"}, Ends: finalFixed},
		{Name: "refix: the final fix", Row: "refix", Scenario: finalFix, Cut: 22, After: "Agent fix 0 (sonnet)",
			Next: []string{plan, "Bash Package", "Agent re-reviewer 0 (sonnet)", "Bash Record the round+Close+Finish"}, Ends: finalFixed},
		{Name: "re-review: the final fix", Row: "re-review", Scenario: finalFix, Cut: 23, After: "Bash Package",
			Next: []string{plan, "Agent re-reviewer 0 (sonnet)", "Bash Record the round+Close+Finish"}, Ends: finalFixed},
		{Name: "record-close: the final fix", Row: "record-close", Scenario: finalFix, Cut: 24, After: "Agent re-reviewer 0 (sonnet)",
			Next: []string{plan, "Bash Record the round+Close+Finish", "Say"}, Ends: finalFixed},
		{Name: "record: the final fix left it open", Row: "record", Scenario: finalPark, Cut: 24, After: "Agent re-reviewer 0 (sonnet)",
			Next: []string{plan, "Bash Record the round", rare, "Bash Park+Close+Finish"}},
		{Name: "breaker: the final review", Row: "breaker", Scenario: finalPark, Cut: 25, After: "Bash Record the round",
			Next: []string{plan, rare, "Bash Park+Close+Finish", "Say"}},
		{Name: "late: a commit after the final fix", Row: "late", Scenario: finalPark, Cut: 25, After: "Bash Record the round",
			Edit: commitOnTheRun, Next: []string{plan, "Say"}, Stop: "Final waits for your word"},
		{Name: "late: the human says go on after the final fix", Row: "late", Scenario: finalGoOn, Cut: 25, After: "Bash Record the round",
			Edit: commitOnTheRun, Next: []string{plan, rare, "Bash Unblock", "Bash Package", "Agent re-reviewer 0 (sonnet)", "Bash Record the round", "Bash Park+Close+Finish", "Say"},
			Ends: lateReviewedThenParked},
	}
}

func ledgerPath(ws string) string { return filepath.Join(ws, "progress.md") }

// unstarted takes Task n's start back: its base line and all after it,
// and its brief, as a controller cut before it started the task left them.
func unstarted(n int) func(_, ws string) error {
	return func(_, ws string) error {
		if err := truncateLedger(ws, fmt.Sprintf("Task %d: base=", n)); err != nil {
			return err
		}
		return os.Remove(filepath.Join(ws, fmt.Sprintf("task-%d-brief.md", n)))
	}
}

// truncateLedger cuts the ledger before its line that starts with prefix.
func truncateLedger(ws, prefix string) error {
	b, err := os.ReadFile(ledgerPath(ws))
	if err != nil {
		return err
	}
	i := strings.Index(string(b), "\n"+prefix)
	if i < 0 {
		return errors.New("the ledger has no line " + prefix)
	}
	return os.WriteFile(ledgerPath(ws), b[:i+1], 0o644)
}

func appendLedger(ws, lines string) error {
	f, err := os.OpenFile(ledgerPath(ws), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(lines)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parkSome makes round 5 leave two findings open (WalkFinding and a
// header finding), and parks the first k of them as the Park block would.
func parkSome(ws string, k int) error {
	b, err := os.ReadFile(ledgerPath(ws))
	if err != nil {
		return err
	}
	ledger := strings.TrimSuffix(string(b), "\n")
	i := strings.LastIndex(ledger, "\n")
	one := "1 open — F1 " + WalkFinding + ";"
	if !strings.HasPrefix(ledger[i+1:], "Task 2: fix round 5/5 (0 addressed, ") || !strings.Contains(ledger[i+1:], one) {
		return errors.New("the ledger does not end with round 5 leaving " + WalkFinding + " open: " + ledger[i+1:])
	}
	ledger = ledger[:i+1] + strings.Replace(ledger[i+1:], one, "2 open — F1 "+WalkFinding+"; F2 bye.txt lacks a header;", 1) + "\n"
	for _, p := range []string{
		"Task 2: parked — F1 " + WalkFinding + " — ruling: the brief allows either spelling\n",
		"Task 2: parked — F2 bye.txt lacks a header — ruling: a header is not in the brief\n",
	}[:k] {
		ledger += p
	}
	return os.WriteFile(ledgerPath(ws), []byte(ledger), 0o644)
}

// finalComplete appends the Final: complete line Close writes.
func finalComplete(ws string) error {
	base, head, err := finalRange(ws)
	if err != nil {
		return err
	}
	return appendLedger(ws, "Final: complete (commits "+base+".."+head+", review clean)\n")
}

// mergeIntoMain merges the branch into main, fast-forward: main then holds
// every commit of it (merged early, before the final review).
func mergeIntoMain(root string) error {
	branch := exec.Command("git", "symbolic-ref", "--short", "HEAD")
	branch.Dir = root
	b, err := branch.Output()
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"checkout", "-q", "main"}, {"merge", "-q", "--ff-only", strings.TrimSpace(string(b))}, {"checkout", "-q", strings.TrimSpace(string(b))}} {
		if err := gitIn(root, args...); err != nil {
			return err
		}
	}
	return nil
}

// dropFinal takes the final review back to before it began: the ledger
// cut before its Final: base= line, and its package removed, so that the
// resumed run must build it.
func dropFinal(ws string) error {
	base, head, err := finalRange(ws)
	if err != nil {
		return err
	}
	pkg := "review-" + base + ".." + head + ".diff"
	if err := os.Remove(filepath.Join(ws, pkg)); err != nil {
		return err
	}
	return truncateLedger(ws, "Final: base=")
}

// lastLines are the ledger's last n lines that start with prefix.
func lastLines(ledger, prefix string, n int) []string {
	var out []string
	for _, l := range strings.Split(ledger, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// bothParked: Task 2 closes with its k open findings of round 5 parked.
func bothParked(k int) func(string, []string) error {
	return func(ledger string, _ []string) error {
		want := []string{
			"Task 2: parked — F1 " + WalkFinding + " — ruling: the brief allows either spelling",
			"Task 2: parked — F2 bye.txt lacks a header — ruling: a header is not in the brief",
		}[:k]
		got := lastLines(ledger, "Task 2: ", k+1)
		if len(got) != k+1 || strings.Join(got[:k], "\n") != strings.Join(want, "\n") || !strings.HasSuffix(got[k], fmt.Sprintf(", %d parked)", k)) {
			return fmt.Errorf("Task 2's last lines %q, want %q and a complete line with %d parked", got, want, k)
		}
		return nil
	}
}

// finalFixed: the final fix is the branch's sixth and last commit, the
// final re-review's head, and the final review closes clean after its one
// round: the ledger's Final: lines are those of an uncut run.
func finalFixed(ledger string, commits []string) error {
	if len(commits) != 6 {
		return fmt.Errorf("%d commits on the branch, want 6 (the final fix the last)", len(commits))
	}
	// The final fix's implementer, where the host gives ids, is recorded
	// as <agent id> says (the last fix dispatch's); its id is the host's.
	got := lastLines(WithoutImplementers(ledger), "Final: ", 10)
	want := []string{"Final: base=", "Final: reviewed_head=" + commits[4], "Final: reviewed_head=" + commits[5],
		"Final: minor (deferred): naming drift between greet and bye",
		"Final: fix round 1/1 (1 addressed, 0 open — none; commits " + commits[4][:7], "Final: complete (commits "}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok || !strings.HasSuffix(got[len(got)-1], commits[5][:7]+", review clean)") {
		return fmt.Errorf("the Final: lines %q, want %q…", got, want)
	}
	return nil
}

// finalRange is the final review's range as the ledger records it, its
// shas shortened as git shortens them in a repository this small.
func finalRange(ws string) (base, head string, err error) {
	b, err := os.ReadFile(ledgerPath(ws))
	if err != nil {
		return "", "", err
	}
	bl := lastLines(string(b), "Final: base=", 1)
	hl := lastLines(string(b), "Final: reviewed_head=", 1)
	if len(bl) != 1 || len(hl) != 1 {
		return "", "", errors.New("the ledger has no Final: base= and reviewed_head= lines")
	}
	return strings.TrimPrefix(bl[0], "Final: base=")[:7], strings.TrimPrefix(hl[0], "Final: reviewed_head=")[:7], nil
}

// gitIn runs git in root as the tests' repositories run it (hermetic, the
// fixed clock), for an edit a human makes under the run.
func gitIn(root string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = gitenv.Hermetic(filepath.Dir(root))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// renumberUnderTheRun puts a new Task 2 into the plan, Task 2 under way
// becoming Task 3: a human's edit of the plan while the run goes on.
func renumberUnderTheRun(root, _ string) error {
	p := filepath.Join(root, filepath.FromSlash(WalkPlanPath))
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	plan := strings.Replace(string(b), "## Task 3: Index", "## Task 4: Index", 1)
	plan = strings.Replace(plan, "## Task 2: Farewell", "## Task 2: Welcome\nCreate welcome.txt containing `welcome`.\n\n## Task 3: Farewell", 1)
	return os.WriteFile(p, []byte(plan), 0o644)
}

// rebaseUnderTheRun is a human's rebase of the run's branch onto a start
// branch that moved on: every sha the ledger recorded is off the branch.
func rebaseUnderTheRun(root, _ string) error {
	branch := exec.Command("git", "symbolic-ref", "--short", "HEAD")
	branch.Dir = root
	b, err := branch.Output()
	if err != nil {
		return err
	}
	if err := gitIn(root, "checkout", "-q", "main"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "upstream.txt"), []byte("from main\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"add", "upstream.txt"},
		{"commit", "-q", "-m", "upstream: a change the run did not make"},
		{"checkout", "-q", strings.TrimSpace(string(b))},
		{"rebase", "-q", "main"},
	} {
		if err := gitIn(root, args...); err != nil {
			return err
		}
	}
	return nil
}

// commitOnTheRun is a commit someone made on the run's branch after a
// review (a human's, an implementer's late one).
func commitOnTheRun(root, _ string) error {
	if err := os.WriteFile(filepath.Join(root, "late.txt"), []byte("late\n"), 0o644); err != nil {
		return err
	}
	if err := gitIn(root, "add", "late.txt"); err != nil {
		return err
	}
	return gitIn(root, "commit", "-q", "-m", "a late commit")
}

// unblockedThenDone: Task 2's BLOCKED line, the human's word to go on,
// then Task 2 done and the run finished.
func unblockedThenDone(ledger string, _ []string) error {
	return lacks("the ledger", ledger,
		"Task 2: BLOCKED — the plan does not say which farewell\nTask 2: unblocked — the plan now says bye\n",
		"\nTask 2: complete (commits ", "\nFinal: complete (commits ")
}

// lateReviewedThenParked: the late commit after the final fix reviewed
// on the human's word (Final's one round given again, as rare.md's Go
// on says), its finding still open, parked by the breaker, and the run
// finished.
func lateReviewedThenParked(ledger string, _ []string) error {
	_, after, ok := strings.Cut(ledger, "\nFinal: unblocked — review the late commit\n")
	if !ok {
		return fmt.Errorf("the ledger has no Final: unblocked line:\n%s", ledger)
	}
	return lacks("the ledger after the unblocked line", after,
		"\nFinal: fix round 1/1 (0 addressed, 1 open — F1 "+FinalFinding+"; commits ",
		"\nFinal: parked — F1 "+FinalFinding+" — ruling: the index is informational\n",
		"\nFinal: complete (commits ")
}

// restartedThenDone: the record begun again on the human's word, Task 1
// counted done by them, Task 2 reviewed again, the run finished.
func restartedThenDone(ledger string, _ []string) error {
	_, after, ok := strings.Cut(ledger, "Run: restarted — the branch was rebased onto main\n")
	if !ok {
		return fmt.Errorf("the ledger has no restart line:\n%s", ledger)
	}
	return lacks("the ledger after the restart", after, "Task 1: complete (commits ", "earlier run, human confirmed)", "\nTask 2: complete (commits ", "\nFinal: complete (commits ")
}

// lacks is an error naming the first of wants that text (what) does not
// hold; nil when it holds them all.
func lacks(what, text string, wants ...string) error {
	for _, want := range wants {
		if !strings.Contains(text, want) {
			return fmt.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
	return nil
}
