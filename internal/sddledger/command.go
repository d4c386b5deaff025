// Package sddledger is the sdd-ledger command: the run's ledger kept one
// step of the skill at a time. Each verb has its file (look.go, task.go,
// package.go, close.go, …; its testscripts are
// internal/dev/e2e/testdata/script/rule_ld*_<verb>*.txtar); the verbs
// that append a unit's lines share one sequence, step.Run (step.go). The
// facts and the state table's rows are internal/ledger's; the brief and
// the package are written as task-brief and review-package write them
// (internal/commands).
package sddledger

import (
	"math"

	"github.com/sdd-go/sdd-go/internal/cliapp"
)

// The ledger's own exit statuses, beside exit's (0, 1, 2, 3 as the other
// commands use them).
const (
	// Foreign: the workspace's ledger is not this plan's (its first line
	// names another plan, or it is not a regular file); nothing is
	// written.
	Foreign = 4
	// OutOfStep: the step does not fit what the ledger says (a task begun
	// twice, a close with findings open, a package with no commits, a
	// recorded sha that is no commit); nothing is written.
	OutOfStep = 5
	// BadText: a text given for a line (a finding, a ruling, a decision)
	// would make a line in no format of the protocol; nothing is written.
	BadText = 6
)

// Command keeps the run's ledger: each verb is one step of the skill,
// done and recorded in one call, so that the controller types no sha and
// runs no shell program.
var Command = cliapp.Command{
	Name: "sdd-ledger",
	Args: "VERB PLAN_FILE [ARGS]",
	Description: `Keep the progress ledger of a subagent-driven run of PLAN_FILE, <workspace>/progress.md:
each verb does one step of the skill and appends its lines; no line is ever edited.
After a verb that writes, the unit it touched is printed as the state table reads it
("Task 2: last=… row=…").

Exit status: 0 done; 1 a file cannot be written; 2 usage, missing plan, a unit the
plan has not; 3 no such task heading; 4 the ledger is not this plan's (another plan's,
or not a regular file); 5 the step does not fit the ledger (nothing written); 6 a text
that would make no ledger line; git's own status when git fails.`,
}

func init() {
	Command.Verbs = []cliapp.Command{
		{Name: "look", Args: "PLAN_FILE START_BRANCH", MinArgs: 2, MaxArgs: 2, Run: runLook,
			Short: "print the workspace, the ledger's state of each task and the row that fits",
			Description: `Print the plan's workspace, its branch, the ledger's state, and for each task of the
plan (then the final review) its facts and the row of the state table that fits,
then "next: <unit> row=<row>". Without a ledger (or after a restart) it also lists the
commits since START_BRANCH, oldest first, numbered as earlier-done and earlier-review
take them. A recorded commit the branch no longer holds is named, with its unit, on a
"shas:" line. It writes nothing but the workspace (and constraints.md when missing).`},
		{Name: "start", Args: "PLAN_FILE", MinArgs: 1, MaxArgs: 1, Run: runStart,
			Short: "create the ledger and the plan's constraints file",
			Description: `Create <workspace>/progress.md with its first line, "# SDD ledger — plan: <plan>",
and write the plan's constraint sections to <workspace>/constraints.md.
A ledger with more than its first line is not started again (exit 5).`},
		{Name: "earlier-done", Args: "PLAN_FILE START_BRANCH N FIRST LAST [DECISION...]", MinArgs: 5, MaxArgs: math.MaxInt, Run: earlierDoneStep.Run,
			Short: "record commits FIRST..LAST of an earlier run as task N, done",
			Description: `Record the commits FIRST to LAST since START_BRANCH (numbered as look lists them,
oldest first, from 1) as task N of an earlier run, counted as done by the human:
its base=, reviewed_head= and complete lines, with the old flat ledger's deferred
minors and parked lines of task N, and each DECISION later tasks build on as
"settled — DECISION". A range that would leave an earlier commit in no task is
refused (exit 5).`},
		{Name: "earlier-review", Args: "PLAN_FILE START_BRANCH N FIRST [LAST_TASK]", MinArgs: 4, MaxArgs: 5, Run: earlierReviewStep.Run,
			Short: "record commits FIRST.. of an earlier run as task N (or the batch N to LAST_TASK), to be reviewed",
			Description: `Record task N's base as the commit before FIRST (numbered as look lists them) and
write its brief: the commits from FIRST on are task N's work, to be reviewed. With
LAST_TASK, they are the work of the batch of Tasks N to LAST_TASK (as "task N LAST"
starts one: its brief, its lines), begun before the record began again.`},
		{Name: "side", Args: "PLAN_FILE K", MinArgs: 2, MaxArgs: 2, Run: runSide,
			Short: "record the human's answer: at most K tasks side by side",
			Description: `Record "Run: side by side — K at a time", the human's answer before Task 1 (K from 1 to 9;
1 is one task at a time, as without an answer). From then on each task starts in a git
worktree of its own (<workspace>/task-<N>-worktree, on the branch sdd/<workspace>/task-<N>,
made from HEAD) once the tasks it waits for (look's needs=) are complete and fewer than
K are in flight; its close joins its branch into the feature branch.`},
		{Name: "carry", Args: "PLAN_FILE OLD_WORKSPACE", MinArgs: 2, MaxArgs: 2, Run: runCarry,
			Short: "carry a moved plan's ledger and files over from OLD_WORKSPACE",
			Description: `After the human said this plan moved from the plan OLD_WORKSPACE belongs to: make
OLD_WORKSPACE this plan's workspace where it is (its ledger's first line and its marker
name this plan; its other lines and files stay as they are), and remove the fresh
workspace this plan had. OLD_WORKSPACE must be one that look names as belonging to a
plan that no longer exists, and this plan's run must not have begun.`},
		{Name: "task", Args: "PLAN_FILE N [LAST]", MinArgs: 2, MaxArgs: 3, Run: taskStep.Run,
			Short: "start task N (or the batch N to LAST): record base= (HEAD) and write its brief",
			Description: `Write task N's brief, <workspace>/task-<N>-brief.md (as task-brief does), and record
"Task <N>: base=<HEAD>". Then print the decisions earlier tasks settled and the
findings they parked, for the dispatch's "Settled by earlier tasks".
With LAST, start tasks N to LAST (in plan order) as one batch: one brief holding each
task's text in plan order, "Task <N>: batch — Tasks …", each later task's
"batched — in Task <N>", and one base=: one implementer, one review, one fix loop
and one close for all of them. Refused (exit 5) past 10 tasks, for a task already
begun, and for a task its text shows unfit (long, no Files list of one or two files,
a test of its own, something it produces for later tasks).`},
		{Name: "package", Args: "PLAN_FILE N|final AGENT_ID", MinArgs: 3, MaxArgs: 3, Run: packageStep.Run,
			Short: "record the implementer, build the review package of the work, record reviewed_head=",
			Description: `Build the review package of unit N's work not yet reviewed (from its base, or from its
last reviewed head, to HEAD), as review-package does, and record AGENT_ID (none when
unknown) and "reviewed_head=<HEAD>". After a fix round that made no commits there
is nothing to review: the round is recorded with every finding still open.`},
		{Name: "finding", Args: "PLAN_FILE N|final TEXT", MinArgs: 3, MaxArgs: 3, Run: findingStep.Run,
			Short: "record a finding of the controller's (a check that failed)",
			Description: `Record TEXT as a new open finding of unit N with the next free id: a gap the controller
confirmed, such as a check of what the review could not verify that failed.`},
		{Name: "round", Args: "PLAN_FILE N|final", MinArgs: 2, MaxArgs: 2, Run: roundStep.Run,
			Short: "record the fix round the last re-review closes",
			Description: `Record the fix round whose re-review is in: what it addressed and what is still open
(the re-review's NOT ADDRESSED and new findings), with its out-of-scope notes (and,
for round 1, the first review's minors) as deferred minors.`},
		{Name: "park", Args: "PLAN_FILE N|final ID WHY", MinArgs: 4, MaxArgs: 4, Run: parkStep.Run,
			Short: "after the last round, park open finding ID with a ruling",
			Description: `Record "parked — <finding> — ruling: WHY" for the open finding ID. Only after the last
fix round (5 for a task, 1 for the final review) with findings still open.`},
		{Name: "block", Args: "PLAN_FILE N|final REASON", MinArgs: 3, MaxArgs: 3, Run: blockStep.Run,
			Short:       "record that unit N is BLOCKED",
			Description: `Record "BLOCKED — REASON": the run stops there for the human.`},
		{Name: "unblock", Args: "PLAN_FILE N|final WHAT_CHANGED", MinArgs: 3, MaxArgs: 3, Run: unblockStep.Run,
			Short: "record the human's decision to go on with a BLOCKED (or late) unit",
			Description: `Record "unblocked — WHAT_CHANGED", the human's decision to go on with unit N after its
BLOCKED line (a changed plan, more context, another model, a smaller task), or with
commits after its last review that no fix round is left for (row late). The unit goes
on from where it stopped, with a fresh budget of fix rounds.`},
		{Name: "restart", Args: "PLAN_FILE WHAT_HAPPENED", MinArgs: 2, MaxArgs: 2, Run: runRestart,
			Short: "begin the ledger's record again after the branch's history changed under it",
			Description: `Record "Run: restarted — WHAT_HAPPENED", the human's decision to keep the branch as it is
now when the commits the ledger records are no longer its history (a rebase, a reset,
an amend, a gc). The lines before it stay (their deferred minors and parked findings
are still printed at the finish); the run's facts are read from the lines after it,
so look reads the ledger as new and lists the branch's commits again.`},
		{Name: "close", Args: "PLAN_FILE N|final [DECISION...]", MinArgs: 2, MaxArgs: math.MaxInt, Run: closeStep.Run,
			Short: "close unit N: its deferred minors, the decisions later tasks build on, complete",
			Description: `Close unit N once nothing is left open: record the first review's minors (when no
round recorded them), each DECISION later tasks build on as "settled — DECISION", and
"complete (commits <base>..<head>, review clean | <K> parked)".`},
		{Name: "final", Args: "PLAN_FILE START_BRANCH", MinArgs: 2, MaxArgs: 2, Run: finalStep.Run,
			Short: "build the final review's package of the whole branch",
			Description: `Once every task is complete: record "Final: base=" (the merge base of START_BRANCH and
HEAD), build the package of the whole branch, and record "Final: reviewed_head=".`},
		{Name: "finish", Args: "PLAN_FILE", MinArgs: 1, MaxArgs: 1, Run: runFinish,
			Short: "print what the human must still decide, then delete the workspace",
			Description: `After "Final: complete": print every deferred minor and parked line and the final
verdict, for the controller's last message, then delete the plan's workspace.`},
	}
}
