package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// The ledger's own exit statuses, beside exit's (0, 1, 2, 3 as the other
// commands use them).
const (
	// Foreign: the workspace's ledger names another plan; nothing is
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

// SDDLedger keeps the run's ledger: each verb is one step of the skill,
// done and recorded in one call, so that the controller types no sha and
// runs no shell program.
var SDDLedger = cliapp.Command{
	Name: "sdd-ledger",
	Args: "VERB PLAN_FILE [ARGS]",
	Description: `Keep the progress ledger of a subagent-driven run of PLAN_FILE, <workspace>/progress.md:
each verb does one step of the skill and appends its lines; no line is ever edited.
After a verb that writes, the unit it touched is printed as the state table reads it
("Task 2: last=… row=…").

Exit status: 0 done; 1 a file cannot be written; 2 usage, missing plan, a unit the
plan has not; 3 no such task heading; 4 the ledger names another plan; 5 the step
does not fit the ledger (nothing written); 6 a text that would make no ledger line;
git's own status when git fails.`,
}

func init() {
	SDDLedger.Verbs = []cliapp.Command{
		{Name: "look", Args: "PLAN_FILE START_BRANCH", MinArgs: 2, MaxArgs: 2, Run: runLook,
			Short: "print the workspace, the ledger's state of each task and the row that fits",
			Description: `Print the plan's workspace, its branch, the ledger's state, and for each task of the
plan (then the final review) its facts and the row of the state table that fits,
then "next: <unit> row=<row>". Without a ledger it also lists the commits since
START_BRANCH, oldest first, numbered as earlier-done and earlier-review take them.
It writes nothing but the workspace itself.`},
		{Name: "start", Args: "PLAN_FILE", MinArgs: 1, MaxArgs: 1, Run: runStart,
			Short: "create the ledger and the plan's constraints file",
			Description: `Create <workspace>/progress.md with its first line, "# SDD ledger — plan: <plan>",
and write the plan's constraint sections to <workspace>/constraints.md.
A ledger with more than its first line is not started again (exit 5).`},
		{Name: "earlier-done", Args: "PLAN_FILE START_BRANCH N FIRST LAST", MinArgs: 5, MaxArgs: 5, Run: runEarlierDone,
			Short: "record commits FIRST..LAST of an earlier run as task N, done",
			Description: `Record the commits FIRST to LAST since START_BRANCH (numbered as look lists them,
oldest first, from 1) as task N of an earlier run, counted as done by the human:
its base=, reviewed_head= and complete lines, with the old flat ledger's deferred
minors and parked lines of task N. A range that would leave an earlier commit in
no task is refused (exit 5).`},
		{Name: "earlier-review", Args: "PLAN_FILE START_BRANCH N FIRST", MinArgs: 4, MaxArgs: 4, Run: runEarlierReview,
			Short: "record commits FIRST.. of an earlier run as task N, to be reviewed",
			Description: `Record task N's base as the commit before FIRST (numbered as look lists them) and
write its brief: the commits from FIRST on are task N's work, to be reviewed.`},
		{Name: "carry", Args: "PLAN_FILE OLD_WORKSPACE", MinArgs: 2, MaxArgs: 2, Run: runCarry,
			Short: "carry a moved plan's ledger and files over from OLD_WORKSPACE",
			Description: `After the human said this plan moved from the plan OLD_WORKSPACE belongs to: make
OLD_WORKSPACE this plan's workspace where it is (its ledger's first line and its marker
name this plan; its other lines and files stay as they are), and remove the fresh
workspace this plan had. OLD_WORKSPACE must be one that look names as belonging to a
plan that no longer exists, and this plan's run must not have begun.`},
		{Name: "task", Args: "PLAN_FILE N", MinArgs: 2, MaxArgs: 2, Run: runTask,
			Short: "start task N: record base= (HEAD) and write its brief",
			Description: `Write task N's brief, <workspace>/task-<N>-brief.md (as task-brief does), and record
"Task <N>: base=<HEAD>". Then print the decisions earlier tasks settled and the
findings they parked, for the dispatch's "Settled by earlier tasks".`},
		{Name: "package", Args: "PLAN_FILE N|final AGENT_ID", MinArgs: 3, MaxArgs: 3, Run: runPackage,
			Short: "record the implementer, build the review package of the work, record reviewed_head=",
			Description: `Build the review package of unit N's work not yet reviewed (from its base, or from its
last reviewed head, to HEAD), as review-package does, and record AGENT_ID (none when
unknown) and "reviewed_head=<HEAD>". After a fix round that made no commits there
is nothing to review: the round is recorded with every finding still open.`},
		{Name: "finding", Args: "PLAN_FILE N|final TEXT", MinArgs: 3, MaxArgs: 3, Run: runFinding,
			Short: "record a finding of the controller's (a check that failed)",
			Description: `Record TEXT as a new open finding of unit N with the next free id: a gap the controller
confirmed, such as a check of what the review could not verify that failed.`},
		{Name: "round", Args: "PLAN_FILE N|final", MinArgs: 2, MaxArgs: 2, Run: runRound,
			Short: "record the fix round the last re-review closes",
			Description: `Record the fix round whose re-review is in: what it addressed and what is still open
(the re-review's NOT ADDRESSED and new findings), with its out-of-scope notes (and,
for round 1, the first review's minors) as deferred minors.`},
		{Name: "park", Args: "PLAN_FILE N|final ID WHY", MinArgs: 4, MaxArgs: 4, Run: runPark,
			Short: "after the last round, park open finding ID with a ruling",
			Description: `Record "parked — <finding> — ruling: WHY" for the open finding ID. Only after the last
fix round (5 for a task, 1 for the final review) with findings still open.`},
		{Name: "block", Args: "PLAN_FILE N|final REASON", MinArgs: 3, MaxArgs: 3, Run: runBlock,
			Short:       "record that unit N is BLOCKED",
			Description: `Record "BLOCKED — REASON": the run stops there for the human.`},
		{Name: "close", Args: "PLAN_FILE N|final [DECISION...]", MinArgs: 2, MaxArgs: 64, Run: runClose,
			Short: "close unit N: its deferred minors, the decisions later tasks build on, complete",
			Description: `Close unit N once nothing is left open: record the first review's minors (when no
round recorded them), each DECISION later tasks build on as "settled — DECISION", and
"complete (commits <base>..<head>, review clean | <K> parked)".`},
		{Name: "final", Args: "PLAN_FILE START_BRANCH", MinArgs: 2, MaxArgs: 2, Run: runFinal,
			Short: "build the final review's package of the whole branch",
			Description: `Once every task is complete: record "Final: base=" (the merge base of START_BRANCH and
HEAD), build the package of the whole branch, and record "Final: reviewed_head=".`},
		{Name: "finish", Args: "PLAN_FILE", MinArgs: 1, MaxArgs: 1, Run: runFinish,
			Short: "print what the human must still decide, then delete the workspace",
			Description: `After "Final: complete": print every deferred minor and parked line and the final
verdict, for the controller's last message, then delete the plan's workspace.`},
	}
}

// run is one verb's view of the plan, its workspace and its ledger.
type run struct {
	ctx     context.Context
	env     *cliapp.Env
	plan    string // as given
	tasks   []plantask.Heading
	root    string
	dir     string // the workspace
	orphans []workspace.Orphan
	id      workspace.Plan
	path    string // the ledger
	files   []string
}

func openRun(ctx context.Context, env *cliapp.Env, plan string) (*run, error) {
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	f, err := os.Open(plan)
	if err != nil {
		return nil, exit.File(exit.Usage, plan, err)
	}
	tasks, err := plantask.Tasks(f)
	f.Close()
	if err != nil {
		return nil, exit.File(exit.Usage, plan, err)
	}
	slug, ok := workspace.Slug(plan)
	if !ok {
		return nil, exit.Errorf(exit.Usage, "cannot derive a workspace name from: %s", plan)
	}
	root, err := workspace.Root(ctx, env.Git)
	if err != nil {
		return nil, err
	}
	dir, orphans, err := workspace.Ensure(root, plan, slug)
	if err != nil {
		return nil, err
	}
	id, err := workspace.IdentifyPlan(root, plan)
	if err != nil {
		return nil, exit.File(exit.Usage, plan, err)
	}
	return &run{ctx: ctx, env: env, plan: plan, tasks: tasks, root: root, dir: dir, orphans: orphans, id: id,
		path: inWorkspace(dir, ledger.FileName)}, nil
}

// unit reads a unit argument: a task number of the plan, or final.
func (r *run) unit(arg string) (string, error) {
	if strings.EqualFold(arg, "final") {
		return ledger.FinalUnit, nil
	}
	for _, t := range r.tasks {
		if t.Number == arg {
			return ledger.UnitName(arg), nil
		}
	}
	return "", exit.Ownf(exit.Usage, "%s has no Task %s (its tasks: %s); the final review is \"final\"", r.plan, arg, r.taskList())
}

func (r *run) taskList() string {
	var ns []string
	for _, t := range r.tasks {
		ns = append(ns, t.Number)
	}
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// ledgerState is what the ledger's first line makes of it: "none" (no
// ledger, an empty one, or only its first line naming this plan), "this",
// or "other" (its first line names another plan).
func (r *run) ledgerState(text string) (state string, lines []ledger.Line, bad []string) {
	first, rest := ledger.Split(text)
	if first == "" && len(rest) == 0 {
		return "none", nil, nil
	}
	if p, ok := ledger.IdentityPlan(first); ok {
		if !r.id.NamedBy(p) {
			return "other", nil, nil
		}
	} else {
		// No first line naming a plan (a ledger of the reference's
		// workspace, adopted): every line is the run's.
		rest = append([]string{first}, rest...)
	}
	for _, s := range rest {
		if strings.TrimSpace(s) == "" {
			continue
		}
		l, ok := ledger.Parse(s)
		if !ok {
			bad = append(bad, s)
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 && len(bad) == 0 {
		return "none", nil, nil
	}
	return "this", lines, bad
}

func (r *run) foreign(text string) error {
	first, _ := ledger.Split(text)
	return exit.Ownf(Foreign, "%s: its first line %q names another plan than %s: it is another run's record; nothing was written", r.path, first, r.plan)
}

// open opens the ledger under its lock for a verb that writes to a
// started ledger of this plan.
func (r *run) open() (*ledger.File, []ledger.Line, error) {
	lf, err := ledger.Open(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, exit.Ownf(OutOfStep, "%s: no ledger yet: start the run first (sdd-ledger start)", r.path)
	}
	if err != nil {
		return nil, nil, exit.File(exit.IO, r.path, err)
	}
	text, err := lf.Text()
	if err != nil {
		lf.Close()
		return nil, nil, exit.FileOf(exit.IO, err)
	}
	state, lines, _ := r.ledgerState(text)
	if state == "other" {
		lf.Close()
		return nil, nil, r.foreign(text)
	}
	first, _ := ledger.Split(text)
	if _, ok := ledger.IdentityPlan(first); !ok && state == "none" {
		lf.Close()
		return nil, nil, exit.Ownf(OutOfStep, "%s: no ledger yet: start the run first (sdd-ledger start)", r.path)
	}
	return lf, lines, nil
}

// Files, Read and After make a run the ledger's Source.

func (r *run) Files() []string {
	if r.files == nil {
		entries, _ := os.ReadDir(r.dir)
		r.files = []string{}
		for _, e := range entries {
			r.files = append(r.files, e.Name())
		}
	}
	return r.files
}

func (r *run) Read(name string) (string, error) {
	f, err := os.Open(inWorkspace(r.dir, name))
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, ledger.ReviewMax))
	return string(b), err
}

func (r *run) After(sha string) (int, error) {
	if err := r.isCommit(sha); err != nil {
		return 0, err
	}
	out, err := r.git("rev-list", "--count", sha+"..HEAD")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(out)
}

func (r *run) isCommit(sha string) error {
	if _, err := r.env.Git.Output(r.ctx, "rev-parse", "--verify", "--quiet", sha+"^{commit}"); err != nil {
		var ge *git.Error
		if errors.As(err, &ge) && ge.Unstarted != "" {
			return err
		}
		return exit.Ownf(OutOfStep, "%s: it records %s, which is not a commit of this repository", r.path, sha)
	}
	return nil
}

// git runs git and returns its output without the final newline.
func (r *run) git(args ...string) (string, error) {
	out, err := r.env.Git.Output(r.ctx, args...)
	if err != nil {
		return "", err
	}
	return git.TrimCommandSubstitution(out), nil
}

func (r *run) head() (string, error) { return r.git("rev-parse", "--verify", "HEAD^{commit}") }

func (r *run) short(sha string) (string, error) { return r.git("rev-parse", "--short", sha) }

// units computes every unit's facts and row from lines.
func (r *run) units(lines []ledger.Line) ([]*ledger.Facts, error) {
	var nums []string
	for _, t := range r.tasks {
		nums = append(nums, t.Number)
	}
	r.files = nil
	us, err := ledger.Units(lines, nums, r)
	if err != nil {
		return nil, err
	}
	for _, u := range us {
		u.Row = ledger.Pick(ledger.UnitRows, u.Map())
	}
	return us, nil
}

func find(us []*ledger.Facts, unit string) *ledger.Facts {
	for _, u := range us {
		if u.Unit == unit {
			return u
		}
	}
	return nil
}

// printUnit prints a unit's state line and, unless it is done, what a
// step needs of it.
func (r *run) printUnit(u *ledger.Facts) {
	w := r.env.Stdout
	fmt.Fprintln(w, u.StateLine())
	if u.Row == "done" || u.Row == "finished" {
		return
	}
	if u.Implementer != "" {
		fmt.Fprintf(w, "  implementer: %s\n", u.Implementer)
	}
	if u.ReviewFile != "" {
		fmt.Fprintf(w, "  review: %s\n", inWorkspace(r.dir, u.ReviewFile))
	}
	if h := u.Heads(); len(h) > 0 && u.Review == "out" {
		// The package the review to dispatch reads.
		if name := u.PackageName(r, len(h)-1); name != "" {
			if fi, err := os.Stat(inWorkspace(r.dir, name)); err == nil {
				fmt.Fprintf(w, "  package: %s (%d bytes)\n", inWorkspace(r.dir, name), fi.Size())
			}
		}
	}
	if u.Task != "" && len(u.Heads()) > 0 {
		if _, err := os.Stat(inWorkspace(r.dir, "task-"+u.Task+"-report.md")); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(w, "  report: none")
		}
	}
	open := u.OpenFindings
	if u.Review == "out" && u.Pass == "re" {
		open = u.Before() // what the re-review is to rule on
	}
	for _, f := range open {
		fmt.Fprintf(w, "  open: %s\n", f)
	}
	if u.NotVerifiable != "" {
		fmt.Fprintf(w, "  not verifiable: %s\n", u.NotVerifiable)
	}
	for _, n := range u.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// after prints the unit's state once lf holds the verb's lines.
func (r *run) after(lf *ledger.File, unit string) error {
	text, err := lf.Text()
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	_, lines, _ := r.ledgerState(text)
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	if u := find(us, unit); u != nil {
		r.printUnit(u)
	}
	return nil
}

// append writes lines to the ledger and says so, line by line: what a
// step recorded is in its output, the ledger being the one record.
func (r *run) append(lf *ledger.File, lines ...string) error {
	if err := lf.Append(lines...); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	for _, l := range lines {
		fmt.Fprintf(r.env.Stdout, "recorded %s\n", l)
	}
	return nil
}

func outOfStep(u *ledger.Facts, want string) error {
	return exit.Ownf(OutOfStep, "%s is at row %s (%s), not %s: run look and take the row's step", u.Unit, u.Row, strings.TrimPrefix(u.StateLine(), u.Unit+": "), want)
}

func needRow(u *ledger.Facts, want string, rows ...string) error {
	for _, row := range rows {
		if u.Row == row {
			return nil
		}
	}
	return outOfStep(u, want)
}

func badText(what, s string) error {
	if err := ledger.CheckText(what, s); err != nil {
		return exit.Ownf(BadText, "%v: nothing was written", err)
	}
	return nil
}

// look

func runLook(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	start := args[1]
	if isOption(start) {
		return badRevision("START_BRANCH", start)
	}
	w := env.Stdout
	branch, err := r.git("branch", "--show-current")
	if err != nil {
		return err
	}
	if branch == "" {
		branch = "(detached HEAD)"
	}
	fmt.Fprintf(w, "workspace: %s\nbranch: %s\n", r.dir, branch)
	text := ""
	if b, err := os.ReadFile(r.path); err == nil {
		text = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return exit.File(exit.IO, r.path, err)
	}
	state, lines, bad := r.ledgerState(text)
	if text == "" {
		fmt.Fprintln(w, "ledger: none")
	} else {
		first, rest := ledger.Split(text)
		fmt.Fprintf(w, "ledger: %s (%d lines)\n", r.path, 1+len(rest))
		if state == "other" {
			fmt.Fprintf(w, "  first line: %s\n", first)
		}
	}
	for _, s := range bad {
		fmt.Fprintf(w, "  note: a line in no format of the ledger, passed over: %s\n", s)
	}
	for _, o := range r.orphans {
		fmt.Fprintf(w, "moved?: %s belongs to %s, which no longer exists\n", o.Dir, o.Plan)
	}
	flat := r.root + string(filepath.Separator) + filepath.Join(".superpowers", "sdd", ledger.FileName)
	if b, err := os.ReadFile(flat); err == nil {
		fmt.Fprintf(w, "old flat ledger: %s\n", flat)
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", l)
		}
	}
	if state == "none" {
		commits, err := r.since(start)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "commits since %s, oldest first: %d\n", start, len(commits))
		for i, c := range commits {
			fmt.Fprintf(w, "  %d %s\n", i+1, c.line)
		}
	}
	row := ledger.Pick(ledger.LedgerRows, map[string]string{"ledger": state})
	if state == "this" {
		fmt.Fprintf(w, "Ledger: ledger=%s\n", state)
	} else {
		fmt.Fprintf(w, "Ledger: ledger=%s row=%s\n", state, row)
	}
	if state == "other" {
		fmt.Fprintf(w, "next: Ledger row=%s\n", row)
		return nil
	}
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	next := ""
	for _, u := range us {
		r.printUnit(u)
		if next == "" && u.Row != "done" {
			next = u.Unit + " row=" + u.Row
		}
	}
	if state == "none" {
		next = "Ledger row=" + row
	}
	fmt.Fprintf(w, "next: %s\n", next)
	return nil
}

// commit is one commit since the start branch.
type sinceCommit struct{ sha, line string }

// since lists the commits in START_BRANCH..HEAD, oldest first.
func (r *run) since(start string) ([]sinceCommit, error) {
	out, err := r.git("log", "--reverse", "--format=%H %h %s", "--end-of-options", start+"..HEAD", "--")
	if err != nil {
		return nil, err
	}
	var cs []sinceCommit
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		sha, rest, _ := strings.Cut(l, " ")
		cs = append(cs, sinceCommit{sha: sha, line: rest})
	}
	return cs, nil
}

// start

func runStart(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	identity := ledger.Identity(r.id.ID())
	lf, err := ledger.Create(r.path, identity)
	if errors.Is(err, fs.ErrExist) {
		lf, err = ledger.Open(r.path)
		if err != nil {
			return exit.File(exit.IO, r.path, err)
		}
		text, err := lf.Text()
		if err != nil {
			lf.Close()
			return exit.FileOf(exit.IO, err)
		}
		switch state, _, _ := r.ledgerState(text); {
		case state == "other":
			lf.Close()
			return r.foreign(text)
		case state == "this":
			lf.Close()
			return exit.Ownf(OutOfStep, "%s: the run has begun (the ledger has more than its first line): run look", r.path)
		case text == "":
			err = lf.Append(identity)
		default:
			if first, _ := ledger.Split(text); !isIdentity(first) {
				// Blank lines only: the first line cannot become the
				// identity without an edit, and every later verb would
				// ask for start again.
				lf.Close()
				return exit.Ownf(OutOfStep, "%s holds blank lines only, no first line naming a plan: start does not edit a ledger; remove the file and start again", r.path)
			}
		}
	}
	if err != nil {
		return exit.File(exit.IO, r.path, err)
	}
	defer lf.Close()
	out := inWorkspace(r.dir, "constraints.md")
	f, err := openOutput(out, r.plan)
	if err != nil {
		return err
	}
	defer f.Abort()
	pf, err := os.Open(r.plan)
	if err != nil {
		return exit.File(exit.Usage, r.plan, err)
	}
	defer pf.Close()
	cw := &countingWriter{w: taggedWriter{w: f}}
	if err := plantask.Constraints(pf, cw); err != nil {
		if isWriteError(err) {
			return exit.File(exit.IO, out, err)
		}
		return exit.File(exit.Usage, r.plan, err)
	}
	if err := commit(f, out); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "started %s\nwrote %s: %d lines\nLedger: ledger=this\n", r.path, out, cw.lines)
	return nil
}

func isIdentity(line string) bool {
	_, ok := ledger.IdentityPlan(line)
	return ok
}

type countingWriter struct {
	w     io.Writer
	lines int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += strings.Count(string(p), "\n")
	return c.w.Write(p)
}

// earlier-done, earlier-review

// earlierRange reads FIRST (and LAST) as positions in START..HEAD and
// checks that every commit before FIRST already belongs to a recorded
// task, so that no commit ends up in no task's range.
func (r *run) earlierRange(lines []ledger.Line, start, first, last string) (commits []sinceCommit, from, to int, err error) {
	if isOption(start) {
		return nil, 0, 0, badRevision("START_BRANCH", start)
	}
	commits, err = r.since(start)
	if err != nil {
		return nil, 0, 0, err
	}
	pos := func(what, s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(commits) {
			return 0, exit.Ownf(exit.Usage, "%s %q is not a commit number: look numbers the %d commits since %s from 1, oldest first", what, s, len(commits), start)
		}
		return n, nil
	}
	if from, err = pos("FIRST", first); err != nil {
		return nil, 0, 0, err
	}
	to = len(commits)
	if last != "" {
		if to, err = pos("LAST", last); err != nil {
			return nil, 0, 0, err
		}
		if to < from {
			return nil, 0, 0, exit.Ownf(exit.Usage, "LAST %d is before FIRST %d", to, from)
		}
	}
	if from > 1 {
		prev := commits[from-2].sha
		ends := false
		for _, l := range lines {
			if l.Kind == ledger.ReviewedHead && l.Value == prev {
				ends = true
			}
		}
		if !ends {
			return nil, 0, 0, exit.Ownf(OutOfStep, "commit %d (%s) would belong to no task: no recorded task ends there; record the task it belongs to first, or start this one at it", from-1, commits[from-2].line)
		}
	}
	return commits, from, to, nil
}

func (r *run) fresh(us []*ledger.Facts, unit string) error {
	u := find(us, unit)
	if u.Last != ledger.None {
		return outOfStep(u, "a task not yet begun")
	}
	return nil
}

func runEarlierDone(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[2])
	if err != nil || unit == ledger.FinalUnit {
		if err == nil {
			err = exit.Ownf(exit.Usage, "N is a task number")
		}
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	if err := r.fresh(us, unit); err != nil {
		return err
	}
	commits, from, to, err := r.earlierRange(lines, args[1], args[3], args[4])
	if err != nil {
		return err
	}
	base, err := r.git("rev-parse", "--verify", commits[from-1].sha+"^")
	if err != nil {
		return err
	}
	head := commits[to-1].sha
	b7, err := r.short(base)
	if err != nil {
		return err
	}
	h7, err := r.short(head)
	if err != nil {
		return err
	}
	out := []string{ledger.FormatBase(unit, base), ledger.FormatReviewedHead(unit, head)}
	out = append(out, r.flatLines(unit)...)
	out = append(out, ledger.FormatComplete(unit, b7, h7, "earlier run, human confirmed"))
	if err := r.append(lf, out...); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// flatLines are the old flat ledger's deferred minors and parked lines of
// unit, which the earlier run left for the final review.
func (r *run) flatLines(unit string) []string {
	b, err := os.ReadFile(r.root + string(filepath.Separator) + filepath.Join(".superpowers", "sdd", ledger.FileName))
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range strings.Split(string(b), "\n") {
		if l, ok := ledger.Parse(s); ok && l.Unit == unit && (l.Kind == ledger.Minor || l.Kind == ledger.Parked) {
			out = append(out, l.Text)
		}
	}
	return out
}

func runEarlierReview(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[2])
	if err != nil || unit == ledger.FinalUnit {
		if err == nil {
			err = exit.Ownf(exit.Usage, "N is a task number")
		}
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	if err := r.fresh(us, unit); err != nil {
		return err
	}
	commits, from, _, err := r.earlierRange(lines, args[1], args[3], "")
	if err != nil {
		return err
	}
	base, err := r.git("rev-parse", "--verify", commits[from-1].sha+"^")
	if err != nil {
		return err
	}
	if err := runTaskBrief(ctx, env, []string{r.plan, args[2]}); err != nil {
		return err
	}
	if err := r.append(lf, ledger.FormatBase(unit, base)); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// carry

func runCarry(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	old := args[1]
	var orphan *workspace.Orphan
	for i, o := range r.orphans {
		if sameDir(o.Dir, old) {
			orphan = &r.orphans[i]
		}
	}
	if orphan == nil {
		return exit.Ownf(OutOfStep, "%s is not a workspace of a plan that no longer exists beside %s: nothing to carry over", old, r.dir)
	}
	// This plan's own workspace must not have begun: it holds its marker,
	// and at most a ledger that is empty or only its first line.
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case workspace.MarkerName:
		case ledger.FileName:
			b, err := os.ReadFile(r.path)
			if err != nil {
				return exit.File(exit.IO, r.path, err)
			}
			if state, _, _ := r.ledgerState(string(b)); state != "none" {
				if state == "other" {
					return r.foreign(string(b))
				}
				return exit.Ownf(OutOfStep, "%s: this plan's run has begun; carrying %s over would mix two records", r.path, orphan.Dir)
			}
		default:
			return exit.Ownf(OutOfStep, "%s holds %s: this plan's run has begun; carrying %s over would mix two records", r.dir, e.Name(), orphan.Dir)
		}
	}
	// The old workspace becomes this plan's, where it is: its ledger under
	// a first line naming this plan (the old lines after it, as they
	// were), its marker naming this plan; this run's fresh workspace goes.
	oldLedger := inWorkspace(orphan.Dir, ledger.FileName)
	lines := []string{ledger.Identity(r.id.ID())}
	if b, err := os.ReadFile(oldLedger); err == nil {
		first, rest := ledger.Split(string(b))
		if _, ok := ledger.IdentityPlan(first); !ok {
			rest = append([]string{first}, rest...)
		}
		for _, l := range rest {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, strings.TrimSuffix(l, "\r"))
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return exit.File(exit.IO, oldLedger, err)
	}
	f, err := atomicfile.Create(oldLedger)
	if err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	if err := f.Commit(); err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	if err := workspace.Remark(orphan.Dir, r.id); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	if err := removeAll(r.dir); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	fmt.Fprintf(env.Stdout, "carried %s over: it is %s's workspace now (%d ledger lines kept); removed %s\nLedger: ledger=this\n", orphan.Dir, r.plan, len(lines)-1, r.dir)
	return nil
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// task

func runTask(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	n := args[1]
	unit, err := r.unit(n)
	if err != nil {
		if unit == "" && !strings.EqualFold(n, "final") {
			return exit.Errorf(exit.NotFound, "task %s not found in %s (no heading matching 'Task %s')", n, r.plan, n)
		}
		return err
	}
	if unit == ledger.FinalUnit {
		return exit.Ownf(exit.Usage, "the final review is built by \"sdd-ledger final\"")
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	if err := needRow(find(us, unit), "start", "start"); err != nil {
		return err
	}
	for _, u := range us {
		if u.Unit == unit {
			break
		}
		if u.Row != "done" {
			return exit.Ownf(OutOfStep, "%s is not complete (row %s): tasks run one at a time, in plan order", u.Unit, u.Row)
		}
	}
	head, err := r.head()
	if err != nil {
		return err
	}
	if err := runTaskBrief(ctx, env, []string{r.plan, n}); err != nil {
		return err
	}
	if err := r.append(lf, ledger.FormatBase(unit, head)); err != nil {
		return err
	}
	for _, l := range lines {
		if l.Unit != unit && (l.Kind == ledger.Settled || l.Kind == ledger.Parked) {
			fmt.Fprintf(env.Stdout, "settled: %s\n", l.Text)
		}
	}
	return r.after(lf, unit)
}

// package

func runPackage(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	agent := args[2]
	if err := badText("AGENT_ID", agent); err != nil {
		return err
	}
	if strings.ContainsAny(agent, " \t") {
		return exit.Ownf(BadText, "AGENT_ID %q holds a blank: an agent id is one word (none when unknown): nothing was written", agent)
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	u := find(us, unit)
	var out []string
	if agent != "none" && agent != u.Implementer {
		out = append(out, ledger.FormatImplementer(unit, agent))
	}
	var from string
	switch u.Row {
	case "package":
		from = u.Base()
	case "refix":
		from = u.Heads()[len(u.Heads())-1]
	case "fix", "final-fix":
		// A fix round that made no commits: nothing to review, and the
		// round is over with every finding still open.
		h := u.Heads()[len(u.Heads())-1]
		h7, err := r.short(h)
		if err != nil {
			return err
		}
		round := u.Round + 1
		if round == 1 && u.FirstReview() != nil {
			for _, m := range u.FirstReview().Minors {
				out = append(out, ledger.FormatMinor(unit, m))
			}
		}
		out = append(out, ledger.FormatRound(unit, round, 0, u.OpenFindings, h7, h7))
		if err := r.append(lf, out...); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "no commits since the last review: round %d recorded with every finding still open\n", round)
		return r.after(lf, unit)
	default:
		return outOfStep(u, "package or refix")
	}
	head, err := r.head()
	if err != nil {
		return err
	}
	if err := runReviewPackage(ctx, env, []string{r.plan, from, head}); err != nil {
		return err
	}
	if err := r.append(lf, append(out, ledger.FormatReviewedHead(unit, head))...); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// finding

func runFinding(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	text := args[2]
	if err := ledger.CheckFinding("the finding", text); err != nil {
		return exit.Ownf(BadText, "%v: nothing was written", err)
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	u := find(us, unit)
	if u.Open < 0 || u.Last == ledger.None || u.Last == ledger.Base || u.Last == ledger.Complete || u.Last == ledger.Blocked {
		return outOfStep(u, "a unit whose review is in")
	}
	f := ledger.Finding{ID: fmt.Sprintf("F%d", maxID(u)+1), Text: text}
	line := ledger.FormatFinding(unit, f)
	if err := r.append(lf, line); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// maxID is the highest finding number the unit's reviews and lines used.
func maxID(u *ledger.Facts) int {
	max := 0
	see := func(fs []ledger.Finding) {
		for _, f := range fs {
			if n, err := strconv.Atoi(strings.TrimPrefix(f.ID, "F")); err == nil && n > max {
				max = n
			}
		}
	}
	for _, l := range u.Lines() {
		see(l.Findings)
	}
	if fr := u.FirstReview(); fr != nil {
		see(fr.Open)
	}
	if rr := u.LastReReview(); rr != nil {
		see(rr.New)
	}
	see(u.Before())
	see(u.OpenFindings)
	return max
}

// round

func runRound(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	u := find(us, unit)
	if err := needRow(u, "record or record-close", "record", "record-close"); err != nil {
		return err
	}
	round := u.Round + 1
	if round > ledger.Cap(unit) {
		return exit.Ownf(OutOfStep, "%s has had its %d fix round(s): rule on what is open (park or block)", unit, ledger.Cap(unit))
	}
	rr := u.LastReReview()
	addressed := 0
	for _, f := range u.Before() {
		if rr.Addressed[f.ID] {
			addressed++
		}
	}
	heads := u.Heads()
	a7, err := r.short(heads[len(heads)-2])
	if err != nil {
		return err
	}
	b7, err := r.short(heads[len(heads)-1])
	if err != nil {
		return err
	}
	var out []string
	if round == 1 && u.FirstReview() != nil {
		for _, m := range u.FirstReview().Minors {
			out = append(out, ledger.FormatMinor(unit, m))
		}
	}
	for _, m := range rr.OutOfScope {
		out = append(out, ledger.FormatMinor(unit, m))
	}
	line := ledger.FormatRound(unit, round, addressed, u.OpenFindings, a7, b7)
	if err := r.append(lf, append(out, line)...); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// park, block

func runPark(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	id, why := args[2], args[3]
	if err := badText("the ruling", why); err != nil {
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	u := find(us, unit)
	if err := needRow(u, fmt.Sprintf("the breaker (only after round %d)", ledger.Cap(unit)), "breaker", "final-breaker"); err != nil {
		return err
	}
	var f *ledger.Finding
	for i := range u.OpenFindings {
		if u.OpenFindings[i].ID == id {
			f = &u.OpenFindings[i]
		}
	}
	if f == nil {
		return exit.Ownf(exit.Usage, "%s has no open finding %s (open: %s)", unit, id, ledger.JoinFindings(u.OpenFindings))
	}
	line := ledger.FormatParked(unit, *f, why)
	if err := r.append(lf, line); err != nil {
		return err
	}
	return r.after(lf, unit)
}

func runBlock(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	if err := badText("the reason", args[2]); err != nil {
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	if u := find(us, unit); u.Last == ledger.Complete || u.Last == ledger.Blocked {
		return outOfStep(u, "a unit under way")
	}
	line := ledger.FormatBlocked(unit, args[2])
	if err := r.append(lf, line); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// close

func runClose(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	for _, d := range args[2:] {
		if err := badText("a decision", d); err != nil {
			return err
		}
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	u := find(us, unit)
	if err := needRow(u, "close, check or ruled (nothing left open)", "close", "check", "ruled"); err != nil {
		return err
	}
	var out []string
	if u.Count(ledger.Round) == 0 && u.FirstReview() != nil {
		for _, m := range u.FirstReview().Minors {
			out = append(out, ledger.FormatMinor(unit, m))
		}
	}
	for _, d := range args[2:] {
		out = append(out, ledger.FormatSettled(unit, d))
	}
	heads := u.Heads()
	b7, err := r.short(u.Base())
	if err != nil {
		return err
	}
	h7, err := r.short(heads[len(heads)-1])
	if err != nil {
		return err
	}
	line := ledger.FormatComplete(unit, b7, h7, ledger.Outcome(u.Count(ledger.Parked)))
	if err := r.append(lf, append(out, line)...); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// final

func runFinal(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	start := args[1]
	if isOption(start) {
		return badRevision("START_BRANCH", start)
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	for _, u := range us {
		if u.Unit != ledger.FinalUnit && u.Row != "done" {
			return exit.Ownf(OutOfStep, "%s is not complete (row %s): the final review comes after every task", u.Unit, u.Row)
		}
	}
	if err := needRow(find(us, ledger.FinalUnit), "final", "final"); err != nil {
		return err
	}
	base, err := r.git("merge-base", "--end-of-options", start, "HEAD")
	if err != nil {
		return err
	}
	head, err := r.head()
	if err != nil {
		return err
	}
	if base == head {
		return exit.Ownf(OutOfStep, "the branch has no commits since %s: nothing to review", start)
	}
	if err := runReviewPackage(ctx, env, []string{r.plan, base, head}); err != nil {
		return err
	}
	// In a plan of one task the whole branch is that task's range: its
	// review file stands where the final review's goes, and read as Final's
	// it would close Final unreviewed. It goes; the task is complete.
	for _, name := range r.Files() {
		if ledger.IsReviewOf(name, base, head) {
			p := inWorkspace(r.dir, name)
			if err := os.Remove(p); err != nil {
				return exit.File(exit.IO, p, err)
			}
			fmt.Fprintf(env.Stdout, "removed %s: a task's review of these same commits, not the final review\n", p)
		}
	}
	if err := r.append(lf, ledger.FormatBase(ledger.FinalUnit, base), ledger.FormatReviewedHead(ledger.FinalUnit, head)); err != nil {
		return err
	}
	return r.after(lf, ledger.FinalUnit)
}

// finish

func runFinish(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	us, err := r.units(lines)
	if err != nil {
		lf.Close()
		return err
	}
	if err := needRow(find(us, ledger.FinalUnit), "finished", "finished"); err != nil {
		lf.Close()
		return err
	}
	var keep []ledger.Line
	var verdict string
	for _, l := range lines {
		switch {
		case l.Kind == ledger.Minor || l.Kind == ledger.Parked:
			keep = append(keep, l)
		case l.Kind == ledger.Complete && l.Unit == ledger.FinalUnit:
			verdict = l.Text
		}
	}
	w := env.Stdout
	fmt.Fprintf(w, "For the human (the workspace is deleted now):\n")
	for _, l := range keep {
		fmt.Fprintf(w, "  %s\n", l.Text)
	}
	if len(keep) == 0 {
		fmt.Fprintln(w, "  nothing deferred, nothing parked")
	}
	fmt.Fprintf(w, "verdict: %s\n", verdict)
	lf.Close()
	if err := removeAll(r.dir); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	fmt.Fprintf(w, "removed %s\n", r.dir)
	return nil
}
