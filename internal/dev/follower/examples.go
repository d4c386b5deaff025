package follower

import (
	"fmt"
	"slices"
	"strings"
)

// The example runs the tests share: the walk-through of skill/example.md
// (three tasks, a fix round, a final review with a Minor) and a plan whose
// first task's package is large. The direct executor (internal/dev/
// skilltext) and the host suites (internal/dev/harness) run the same ones.

// WalkSettled is the decision Task 1 settles for the tasks after it.
const WalkSettled = "greet.txt holds hello and a newline, nothing else"

// WalkPlanPath is where the walk-through's plan is committed.
const WalkPlanPath = "docs/plans/greet.md"

// WalkPlan is the walk-through's plan: three small tasks.
const WalkPlan = "# Greeting plan\n\n" +
	"## Global Constraints\n- Plain text files only, each ending with a newline.\n\n" +
	"## Task 1: Greeting\nCreate greet.txt containing `hello`, and check1.sh that checks it.\n\n" +
	"## Task 2: Farewell\nCreate bye.txt containing `bye`.\n\n" +
	"## Task 3: Index\nList greet.txt and bye.txt in index.txt.\n"

// SidePlanPath and SidePlan are the walk-through's plan with a Files
// list to each task, as writing-plans writes them: Tasks 1 and 2 need
// nothing of each other (Look's side?: names them), Task 3 lists what
// both write.
const SidePlanPath = "docs/plans/greet-side.md"

var SidePlan = strings.NewReplacer(
	"## Task 1: Greeting\n", "## Task 1: Greeting\n\n**Files:**\n- Create: `greet.txt`\n- Test: `check1.sh`\n\n",
	"## Task 2: Farewell\n", "## Task 2: Farewell\n\n**Files:**\n- Create: `bye.txt`\n\n",
	"## Task 3: Index\n", "## Task 3: Index\n\n**Files:**\n- Create: `index.txt`\n\n",
).Replace(WalkPlan)

// PlanText is the text of the example plan at path (WalkPlanPath,
// MicroPlanPath, SidePlanPath), for a test that builds a repository from
// a Scenario's Plan; "" for another path.
func PlanText(path string) string {
	return map[string]string{WalkPlanPath: WalkPlan, MicroPlanPath: MicroPlan, SidePlanPath: SidePlan}[path]
}

// Workspace is the name of the workspace sdd-workspace makes for one of
// the example plans: its base name without .md (a constant of ours, not a
// user's path).
func Workspace(plan string) string {
	return strings.TrimSuffix(plan[strings.LastIndex(plan, "/")+1:], ".md")
}

// SideScenario is the walk-through on SidePlan, the human having
// answered k tasks at a time (0: not asked yet).
func SideScenario(k int) Scenario {
	sc := WalkScenario()
	sc.Plan = SidePlanPath
	if k > 0 {
		sc.Human = Human{Answered: true, Side: k}
	}
	return sc
}

// SideConflictScenario is SideScenario(2) in which Tasks 1 and 2 each
// also write notes.txt, which neither Files list names: each joins alone,
// and Task 2's join conflicts with Task 1's notes; its fix round merges
// and keeps both.
func SideConflictScenario() Scenario {
	sc := SideScenario(2)
	sc.Tasks[0].Commits[0].Files = append(append([]File(nil), sc.Tasks[0].Commits[0].Files...), File{Path: "notes.txt", Content: "greeting: hello\n"})
	sc.Tasks[1].Commits[0].Files = append(append([]File(nil), sc.Tasks[1].Commits[0].Files...), File{Path: "notes.txt", Content: "farewell: bye\n"})
	sc.Resolved = map[string]string{"notes.txt": "greeting: hello\nfarewell: bye\n"}
	return sc
}

// DoneBeforeScenario is the walk-through in which Task 1's first commit
// also writes Task 3's index.txt as the plan wants it: Task 3's
// implementer finds its work in the tree and commits nothing, its package
// has no commit, and its reviewer judges the tree.
func DoneBeforeScenario() Scenario {
	sc := WalkScenario()
	c := sc.Tasks[0].Commits[0]
	c.Files = append(append([]File(nil), c.Files...), sc.Tasks[2].Commits[0].Files...)
	sc.Tasks[0].Commits = append([]Commit{c}, sc.Tasks[0].Commits[1:]...)
	sc.Tasks[2].InTree = true
	return sc
}

// WalkScenario is the run of skill/example.md: Task 1 in two commits with
// a Minor and a spec ⚠️ the controller's check settles, Task 2 with a
// planted Important defect fixed in round 1, Task 3 clean, a final review
// with one Minor.
func WalkScenario() Scenario {
	return Scenario{
		Plan: WalkPlanPath,
		Tasks: []Task{
			{N: 1, Title: "Greeting", Test: "sh check1.sh",
				Commits: []Commit{
					{Message: "Task 1: greet.txt", Files: []File{{Path: "greet.txt", Content: "hello\n"}}},
					{Message: "Task 1: check1.sh", Files: []File{{Path: "check1.sh", Content: "grep -qx hello greet.txt\n"}}},
				},
				Minors:       []string{"check1.sh repeats the file name"},
				Unverifiable: "greet.txt reads hello when check1.sh runs: run sh check1.sh",
				Settled:      []string{WalkSettled}},
			{N: 2, Title: "Farewell", Test: "test -s bye.txt",
				Commits: []Commit{{Message: "Task 2: bye.txt", Files: []File{{Path: "bye.txt", Content: "bye\n"}}}},
				Defect:  &Defect{Path: "bye.txt", Wrong: "goodby\n", Marker: "goodby", Finding: "bye.txt:1 says goodby, the brief says bye"}},
			{N: 3, Title: "Index", Test: "test -s index.txt",
				Commits: []Commit{{Message: "Task 3: index.txt", Files: []File{{Path: "index.txt", Content: "greet.txt\nbye.txt\n"}}}}},
		},
		FinalMinors: []string{"naming drift between greet and bye"},
	}
}

// CheckFinding is the controller's line for Task 1's check when it
// fails: the check's command, and that it failed.
const CheckFinding = "sh check1.sh fails"

// CheckFailsScenario is the walk-through whose Task 1 greet.txt holds
// "hello " (a trailing blank): no review sees it in the diff, Task 1's
// review lists its check as not verifiable, the check (sh check1.sh)
// fails, and what follows is the text's rule for a failed check (a
// finding, a fix round that fixes it, its re-review).
func CheckFailsScenario() Scenario {
	sc := WalkScenario()
	sc.Tasks[0].Defect = &Defect{Path: "greet.txt", Wrong: "hello \n", Marker: "hello ", Finding: CheckFinding, Unseen: true}
	return sc
}

// AskingScenario is the walk-through whose Task 3 implementer first
// answers status (NEEDS_CONTEXT, BLOCKED, DONE_WITH_CONCERNS): what the
// controller then does is the text's rule for that status.
func AskingScenario(status string) Scenario {
	sc := WalkScenario()
	sc.Tasks[2].Asks, sc.Tasks[2].Context = status, "index.txt lists the files, one a line"
	return sc
}

// bigTable is a generated file of lines lines of about 40 bytes.
func bigTable(lines int) string {
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "row %05d: the quick brown fox jumps over\n", i)
	}
	return b.String()
}

// BigPlanPath and BigPlan are a plan whose Task 1 generates a large file.
const BigPlanPath = "docs/plans/table.md"

const BigPlan = "# Table plan\n\n## Global Constraints\n- Generated files are committed.\n\n" +
	"## Task 1: Table\nGenerate table.txt.\n\n## Task 2: Note\nWrite note.txt.\n"

// BigScenario runs BigPlan with a table of lines lines (about 40 bytes
// each): 7500 make a package over the Read tool's 256 KB.
func BigScenario(lines int) Scenario {
	return Scenario{
		Plan: BigPlanPath,
		Tasks: []Task{
			{N: 1, Title: "Table", Test: "test -s table.txt",
				Commits: []Commit{{Message: "Task 1: table.txt", Files: []File{{Path: "table.txt", Content: bigTable(lines)}}}}},
			{N: 2, Title: "Note", Test: "test -s note.txt",
				Commits: []Commit{{Message: "Task 2: note.txt", Files: []File{{Path: "note.txt", Content: "generated\n"}}}}},
		},
	}
}

// The v6.2.0 text's cost, measured by following it: a three-task run with
// one fix round took about 5, 9 and 4 controller calls for its tasks.
var WalkCeilings = []int{5, 9, 4}

// WalkFiles are the files of the walk-through's workspace before Finish,
// sorted: a package (diff and review) for each review, each task's brief
// and report, the constraints, the plan's path, the ledger. mainHead is
// main's head, c the branch's five commits, short a sha's short form.
func WalkFiles(mainHead string, c []string, short func(string) string) []string {
	pkg := func(a, b string) string { return "review-" + short(a) + ".." + short(b) }
	var files []string
	for _, x := range []string{pkg(mainHead, c[1]), pkg(c[1], c[2]), pkg(c[2], c[3]), pkg(c[3], c[4]), pkg(mainHead, c[4])} {
		files = append(files, x+".diff", x+".md")
	}
	for n := 1; n <= 3; n++ {
		files = append(files, fmt.Sprintf("task-%d-brief.md", n), fmt.Sprintf("task-%d-report.md", n))
	}
	files = append(files, "constraints.md", "plan-path", "progress.md")
	slices.Sort(files)
	return files
}

// WalkLedger is the walk-through's ledger at its end, for the branch's
// commits c (after mainHead, oldest first), short giving git's short form
// of a sha, and the implementers' ids: Task 1's, Task 2's, its fix
// round's and Task 3's. A fix round that continued Task 2's implementer
// (its id again) records no implementer= line: the ledger records an id
// only when it changes.
func WalkLedger(mainHead string, c []string, short func(string) string, ids ...string) string {
	s := short
	fixer := "Task 2: implementer=" + ids[2]
	if ids[2] == ids[1] && ids[1] != "" {
		fixer = ""
	}
	lines := []string{
		IdentityPrefix + WalkPlanPath,
		"Task 1: base=" + mainHead,
		"Task 1: implementer=" + ids[0],
		"Task 1: reviewed_head=" + c[1],
		"Task 1: minor (deferred): check1.sh repeats the file name",
		"Task 1: settled — " + WalkSettled,
		fmt.Sprintf("Task 1: complete (commits %s..%s, review clean)", s(mainHead), s(c[1])),
		"Task 2: base=" + c[1],
		"Task 2: implementer=" + ids[1],
		"Task 2: reviewed_head=" + c[2],
		fixer,
		"Task 2: reviewed_head=" + c[3],
		fmt.Sprintf("Task 2: fix round 1/5 (1 addressed, 0 open — none; commits %s..%s)", s(c[2]), s(c[3])),
		fmt.Sprintf("Task 2: complete (commits %s..%s, review clean)", s(c[1]), s(c[3])),
		"Task 3: base=" + c[3],
		"Task 3: implementer=" + ids[3],
		"Task 3: reviewed_head=" + c[4],
		fmt.Sprintf("Task 3: complete (commits %s..%s, review clean)", s(c[3]), s(c[4])),
		"Final: base=" + mainHead,
		"Final: reviewed_head=" + c[4],
		"Final: minor (deferred): naming drift between greet and bye",
		fmt.Sprintf("Final: complete (commits %s..%s, review clean)", s(mainHead), s(c[4])),
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n") + "\n"
}

// FinishedLedger is a ledger as a run left it: kept, the copy made just
// before the call that ran Finish (which deletes it), then the lines that
// call recorded (each command prints "recorded <line>").
func FinishedLedger(kept, finishOutput string) string {
	for _, l := range strings.Split(finishOutput, "\n") {
		if rec, ok := strings.CutPrefix(l, "recorded "); ok {
			kept += rec + "\n"
		}
	}
	return kept
}

// ImplementerIDs are the ids of a ledger's implementer= lines, in order.
func ImplementerIDs(ledger string) []string {
	var out []string
	for _, l := range strings.Split(ledger, "\n") {
		if i := strings.Index(l, ": implementer="); i > 0 {
			out = append(out, l[i+len(": implementer="):])
		}
	}
	return out
}

// WithoutImplementers is a ledger without its implementer= lines, which a
// resumed run may not know.
func WithoutImplementers(ledger string) string {
	var out []string
	for _, l := range strings.SplitAfter(ledger, "\n") {
		if !strings.Contains(l, ": implementer=") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// MicroPlanPath and MicroPlan are a plan of MicroTasks tiny tasks of one
// shape, written as superpowers' writing-plans writes tasks (its header,
// Global Constraints and the rule after them, each task's Files,
// Interfaces and checkbox steps with the change spelled out): the same
// one-word edit in eight files, the plan a batch is for.
const (
	MicroPlanPath = "docs/plans/color.md"
	MicroTasks    = 8
)

var MicroPlan = func() string {
	var b strings.Builder
	b.WriteString("# Color Spelling Implementation Plan\n\n" +
		"> **For agentic workers:** REQUIRED SUB-SKILL: Use superpowers:subagent-driven-development (recommended) or superpowers:executing-plans to implement this plan task-by-task. Steps use checkbox (`- [ ]`) syntax for tracking.\n\n" +
		"**Goal:** Spell color the American way in every palette file.\n\n**Architecture:** One word per file; nothing reads these files yet.\n\n**Tech Stack:** plain text\n\n" +
		"## Global Constraints\n\n- American spelling: color, never colour.\n\n---\n\n")
	for i := 1; i <= MicroTasks; i++ {
		fmt.Fprintf(&b, "### Task %d: Spell color in palette %d\n\n**Files:**\n- Modify: `palette/p%d.txt:1`\n\n**Interfaces:**\n- Consumes: none\n- Produces: none\n\n"+
			"- [ ] **Step 1: Write the word**\n\nThe file holds exactly:\n\n```text\ncolor\n```\n\n"+
			"- [ ] **Step 2: Commit**\n\n```bash\ngit add palette/p%d.txt\ngit commit -m \"palette %d: color\"\n```\n\n", i, i, i, i, i)
	}
	return b.String()
}()

// MicroScenario runs MicroPlan: every task the same one-line file on the
// fast tier (its text holds the whole change), all of them one batch, one
// clean review, one final review.
func MicroScenario() Scenario {
	sc := Scenario{Plan: MicroPlanPath}
	for i := 1; i <= MicroTasks; i++ {
		p := fmt.Sprintf("palette/p%d.txt", i)
		sc.Tasks = append(sc.Tasks, Task{N: i, Title: fmt.Sprintf("Spell color in palette %d", i), Tier: "fast",
			Test:    "grep -qx color " + p,
			Commits: []Commit{{Message: fmt.Sprintf("palette %d: color", i), Files: []File{{Path: p, Content: "color\n"}}}}})
	}
	return sc
}

// JudgmentTask is the task of MicroJudgmentScenario that needs judgment,
// and of MicroSettledScenario that defines what a later task uses.
const JudgmentTask = 7

// MicroJudgmentScenario is MicroScenario whose Task 7 needs judgment
// (the controller finds it so, reading it): Look proposes all eight as a
// batch, and the controller takes Tasks 1-6, then Tasks 7 and 8 each on
// its own (Look's proposal begins at Task 1 only).
func MicroJudgmentScenario() Scenario {
	sc := MicroScenario()
	sc.Tasks[JudgmentTask-1].Judgment = true
	// Task 8, on its own too, settles a decision whose text a shell
	// would expand outside single quotes.
	sc.Tasks[MicroTasks-1].Settled = []string{"palette 8's color is $accent, as written"}
	return sc
}

// MicroSettledScenario is MicroScenario whose Task 7 defines what Task 8
// uses (a decision it settles): rare.md's Batches keeps it out of a
// batch as it keeps a task that needs judgment, so the controller takes
// Tasks 1-6, then Tasks 7 and 8 each on its own.
func MicroSettledScenario() Scenario {
	sc := MicroScenario()
	sc.Tasks[JudgmentTask-1].Settled = []string{"palette 7 names the shade teal, which palette 8 uses"}
	return sc
}

// MicroDefectScenario is MicroScenario with a planted defect in Task 3 of
// the batch: the batch's review names it with its task, one fix round
// fixes it.
func MicroDefectScenario() Scenario {
	sc := MicroScenario()
	sc.Tasks[2].Defect = &Defect{Path: "palette/p3.txt", Wrong: "colour\n", Marker: "colour", Finding: "palette/p3.txt:1 says colour, the brief says color"}
	sc.Tasks[2].Test = "test -s palette/p3.txt" // what the implementer ran, which the defect passes
	return sc
}

// DisputedFinding is the finding of MicroDisputeScenario's Task 5 that
// round 1 disputes and round 2 fixes.
const DisputedFinding = "palette/p5.txt:1 says colr, the brief says color"

// MicroDisputeScenario is MicroDefectScenario with a second defect in the
// batch, Task 5's: fix round 1 fixes Task 3's and disputes Task 5's (no
// change for it), the re-review rules it as its role file says (NOT
// ADDRESSED: a dispute the diff does not settle), round 2 fixes it.
func MicroDisputeScenario() Scenario {
	sc := MicroDefectScenario()
	sc.Tasks[4].Defect = &Defect{Path: "palette/p5.txt", Wrong: "colr\n", Marker: "colr", Finding: DisputedFinding, FixedIn: 2, Disputes: true}
	sc.Tasks[4].Test = "test -s palette/p5.txt"
	return sc
}

// BrokenByFix is the finding of the defect BreakingFixScenario's fix
// brings in.
const BrokenByFix = "greet.txt:1 says hello!, Task 1 settled hello"

// BreakingFixScenario is the walk-through whose Task 2 fix round 1 fixes
// its finding and breaks greet.txt: the re-review reports that as a New
// finding, numbered as its role file says, and round 2 fixes it.
func BreakingFixScenario() Scenario {
	sc := WalkScenario()
	d := *sc.Tasks[1].Defect
	d.Breaks = &Defect{Path: "greet.txt", Wrong: "hello!\n", Marker: "hello!", Finding: BrokenByFix, Right: "hello\n"}
	sc.Tasks[1].Defect = &d
	return sc
}

// ReopenedMinor is the Minor finding of ReopenScenario's Task 3.
const ReopenedMinor = "index.txt:3 leaves a TODO line"

// ReopenScenario is the walk-through whose Task 3 leaves a TODO line in
// index.txt: its review reports it as Minor (deferred), and the final
// review, reading the ledger's minor (deferred) line, finds it must be
// fixed now: an open finding, which the final fix fixes.
func ReopenScenario() Scenario {
	sc := WalkScenario()
	sc.Tasks[2].Defect = &Defect{Path: "index.txt", Wrong: "greet.txt\nbye.txt\nTODO\n", Marker: "TODO", Finding: ReopenedMinor, Minor: true, Reopen: true}
	return sc
}
