package follower

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		Finding: FinalFinding, FixedIn: fixedIn, OnlyFinal: true}
	if ruling != "" {
		sc.Tasks[2].Rulings = map[string]string{FinalFinding: ruling}
	}
	return sc
}

// Resume is a state a run is resumed from, for each row of the text's
// Resume tables (SKILL.md's and resume.md's): a scenario's run cut after
// Cut controller calls, the last of them the step After, its files then
// changed by Edit (a state no cut makes: a hand-trimmed ledger, a lost
// workspace), and the steps a controller that follows the text takes
// next, after Skill and Look. Both executors run the same list: the
// direct one resumes as after a compaction (its subagents still
// reachable), the real host in a new session.
type Resume struct {
	Row      string // the row, as the table words it
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
	// commits (oldest first), where Walk cannot; nil: none. Only the
	// direct executor can: in the host, Finish deletes the ledger.
	Ends func(ledger string, commits []string) error
}

// Resumes are the states, one or more for each row.
func Resumes() []Resume {
	const review = "Read review-….md"
	walk := WalkScenario
	parked := func() Scenario { return StubbornScenario(9, "park: the brief allows either spelling") }
	finalFix := func() Scenario { return FinalDefectScenario(1, "") }
	return []Resume{
		{Row: "none, or only its first line", Scenario: walk, Cut: 2, After: "Bash Look", Walk: true,
			Next: []string{"Read greet.md", "Bash Start the run+Start task N", "Agent implementer 1 (sonnet)"}},
		{Row: "no line for the task", Scenario: walk, Cut: 8, After: "Bash Close+Start task N", Walk: true,
			Edit: func(_, ws string) error {
				if err := truncateLedger(ws, "Task 2: base="); err != nil {
					return err
				}
				return os.Remove(filepath.Join(ws, "task-2-brief.md"))
			},
			Next: []string{"Bash Start task N", "Agent implementer 2 (sonnet)"}},
		{Row: "last line base=, commits after it", Scenario: walk, Cut: 5, After: "Agent implementer 1 (sonnet)", Walk: true,
			Next: []string{"Bash Build the package", "Agent reviewer 1 (opus)", "Bash Close+Start task N"}},
		{Row: "last line base=, no commits after it", Scenario: walk, Cut: 4, After: "Bash Start the run+Start task N", Walk: true,
			Next: []string{"Agent implementer 1 (sonnet)", "Bash Build the package"}},
		{Row: "last line reviewed_head=, the same sha as the reviewed_head= before it", Scenario: func() Scenario { return StubbornScenario(2, "") },
			Cut: 14, After: "Bash Re-review package",
			Next: []string{review, "Bash Record the round", "ToolSearch select:SendMessage", "SendMessage fix 2 round 2"}},
		{Row: "last line reviewed_head=, that review not in", Scenario: walk, Cut: 6, After: "Bash Build the package", Walk: true,
			Next: []string{"Agent reviewer 1 (opus)", "Bash Close+Start task N"}},
		{Row: "last line reviewed_head=, that review not in (a re-review)", Scenario: walk, Cut: 14, After: "Bash Re-review package", Walk: true,
			Next: []string{review, "Agent re-reviewer 2 (sonnet)", "Bash Record the round+Close+Start task N"}},
		{Row: "last line reviewed_head= of a re-review, its review in", Scenario: walk, Cut: 15, After: "Agent re-reviewer 2 (sonnet)", Walk: true,
			Next: []string{review, review, "Bash Record the round+Close+Start task N"}},
		{Row: "last line reviewed_head=, review in, nothing open", Scenario: walk, Cut: 7, After: "Agent reviewer 1 (opus)", Walk: true,
			Next: []string{review, "Bash Close+Start task N", "Agent implementer 2 (sonnet)"}},
		{Row: "findings open, commits after the last reviewed_head", Scenario: walk, Cut: 13, After: "SendMessage fix 2 round 1", Walk: true,
			Next: []string{review, "Bash Re-review package", "Agent re-reviewer 2 (sonnet)", "Bash Record the round+Close+Start task N"}},
		{Row: "findings open, no commits after it, R < 5", Scenario: walk, Cut: 11, After: "Agent reviewer 2 (opus)", Walk: true,
			Next: []string{review, "ToolSearch select:SendMessage", "SendMessage fix 2 round 1"}},
		{Row: "BLOCKED", Scenario: func() Scenario { return StubbornScenario(9, "block: Task 3 reads bye.txt") },
			Cut: 27, After: "Bash Record the round",
			Edit: func(_, ws string) error {
				return appendLedger(ws, "Task 2: BLOCKED — F1 "+WalkFinding+": Task 3 reads bye.txt\n")
			},
			Next: []string{"Say"}, Stop: "Task 2 is BLOCKED"},
		{Row: "fix round 5/5 as the last line, findings open", Scenario: parked, Cut: 27, After: "Bash Record the round",
			Next: []string{"Read resume.md", "Bash Park+Close+Start task N"}},
		{Row: "parked as the last line, open findings without a parked line", Scenario: parked, Cut: 27, After: "Bash Record the round",
			Edit: func(_, ws string) error { return parkSome(ws, 1) },
			Next: []string{"Read resume.md", "Bash Park+Close+Start task N"}, Ends: bothParked},
		{Row: "parked as the last line, every open finding ruled", Scenario: parked, Cut: 27, After: "Bash Record the round",
			Edit: func(_, ws string) error { return parkSome(ws, 2) },
			Next: []string{"Read resume.md", "Bash Close+Start task N"}, Ends: bothParked},
		{Row: "every task complete, no Final: line", Scenario: walk, Cut: 20, After: "Bash Close+Final package", Walk: true,
			Edit: func(_, ws string) error { return dropFinal(ws) },
			Next: []string{"Read resume.md", "Bash Final package", "Agent final reviewer 0 (opus)", "Bash Close+Finish"}},
		{Row: "last line Final: reviewed_head=, that review not in", Scenario: walk, Cut: 20, After: "Bash Close+Final package", Walk: true,
			Next: []string{"Read resume.md", "Agent final reviewer 0 (opus)", "Bash Close+Finish"}},
		{Row: "one Final: reviewed_head=, its review in, Critical or Important findings", Scenario: finalFix, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Next: []string{"Read resume.md", review, "Agent fix 0 (sonnet)", "Bash Re-review package", "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}, Ends: finalFixed},
		{Row: "one Final: reviewed_head=, its review in, findings (the fix committed, its package not built)", Scenario: finalFix, Cut: 22, After: "Agent fix 0 (sonnet)",
			Next: []string{"Read resume.md", review, "Agent fix 0 (sonnet)", "Bash Re-review package", "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}, Ends: finalFixed},
		{Row: "last line Final: reviewed_head=, that review not in (the final re-review)", Scenario: finalFix, Cut: 23, After: "Bash Re-review package",
			Next: []string{"Read resume.md", review, "Agent re-reviewer 0 (sonnet)", "Bash Close+Finish"}, Ends: finalFixed},
		{Row: "one Final: reviewed_head=, its review in, nothing but Minor", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)", Walk: true,
			Next: []string{"Read resume.md", review, "Bash Close+Finish", "Say"}},
		{Row: "two Final: reviewed_head= lines, the second review in", Scenario: finalFix, Cut: 24, After: "Agent re-reviewer 0 (sonnet)",
			Next: []string{"Read resume.md", review, review, "Bash Close+Finish", "Say"}, Ends: finalFixed},
		{Row: "Final: complete", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Edit: func(_, ws string) error { return finalComplete(ws) },
			Next: []string{"Read resume.md", "Bash Finish", "Say"}},
		{Row: "Final: BLOCKED", Scenario: walk, Cut: 21, After: "Agent final reviewer 0 (opus)",
			Edit: func(_, ws string) error {
				return appendLedger(ws, "Final: BLOCKED — greet and bye disagree on the encoding\n")
			},
			Next: []string{"Read resume.md", "Say"}, Stop: "greet and bye disagree on the encoding"},
		{Row: "the workspace is gone", Scenario: walk, Cut: 13, After: "SendMessage fix 2 round 1",
			Edit: func(root, _ string) error { return os.RemoveAll(filepath.Join(root, ".superpowers")) },
			Next: []string{"Read greet.md", "Say"}, Stop: "Task 2: fix F1"},
	}
}

func ledgerPath(ws string) string { return filepath.Join(ws, "progress.md") }

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

// bothParked: Task 2 closes with both of round 5's open findings parked.
func bothParked(ledger string, _ []string) error {
	got := lastLines(ledger, "Task 2: ", 3)
	want := []string{
		"Task 2: parked — F1 " + WalkFinding + " — ruling: the brief allows either spelling",
		"Task 2: parked — F2 bye.txt lacks a header — ruling: a header is not in the brief",
	}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasSuffix(got[2], ", 2 parked)") {
		return fmt.Errorf("Task 2's last lines %q, want %q and a complete line with 2 parked", got, want)
	}
	return nil
}

// finalFixed: the final fix is the branch's sixth and last commit, the
// final re-review's head, and the final review closes clean: the ledger's
// Final: lines are those of an uncut run.
func finalFixed(ledger string, commits []string) error {
	if len(commits) != 6 {
		return fmt.Errorf("%d commits on the branch, want 6 (the final fix the last)", len(commits))
	}
	got := lastLines(ledger, "Final: ", 10)
	want := []string{"Final: base=", "Final: reviewed_head=" + commits[4],
		"Final: minor (deferred): naming drift between greet and bye",
		"Final: reviewed_head=" + commits[5], "Final: complete (commits "}
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
