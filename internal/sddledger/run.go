package sddledger

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

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
	titles  map[string]string        // the plan's task titles by number, once read
	needs   map[string]plantask.Need // the plan's graph, each task's waits, once read
	asked   asked                    // git's answers for the ledger's facts, this run
}

func openRun(ctx context.Context, env *cliapp.Env, plan string) (*run, error) {
	if err := commands.CheckPlan(plan); err != nil {
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
		path: commands.InWorkspace(dir, ledger.FileName)}, nil
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

// The states of a ledger as a whole, as Look prints them (ledger=…).
const (
	ledgerNone  = "none"  // no ledger, an empty one, only its first line, or nothing since a restart
	ledgerThis  = "this"  // this plan's, with lines
	ledgerOther = "other" // not this plan's
)

// ledgerState is what the ledger's first line makes of it: "none" (no
// ledger, an empty one, or only its first line naming this plan, or no
// line since its last restart), "this", or "other" (its first line names
// another plan, or is no line a ledger of ours or the reference's begins
// with). lines are all its lines in a format of the protocol (every
// epoch); bad the others.
func (r *run) ledgerState(text string) (state string, lines []ledger.Line, bad []string) {
	first, rest := ledger.Split(text)
	for first == "" && len(rest) > 0 && strings.TrimSpace(rest[0]) == "" {
		rest = rest[1:]
	}
	if first == "" && len(rest) > 0 {
		first, rest = rest[0], rest[1:]
	}
	if strings.TrimSpace(first) == "" && len(rest) == 0 {
		return ledgerNone, nil, nil
	}
	if p, ok := ledger.IdentityPlan(first); ok {
		if !r.id.NamedBy(p) {
			return ledgerOther, nil, nil
		}
	} else if _, ok := ledger.Parse(first); ok {
		// No first line naming a plan, but a line of the protocol (a
		// ledger of the reference's workspace, adopted): every line is
		// the run's.
		rest = append([]string{first}, rest...)
	} else {
		// A first line that names no plan and is no ledger line (another
		// encoding, a heading typed by hand): whose it is cannot be told,
		// so it is not taken for this plan's.
		return ledgerOther, nil, nil
	}
	lines = make([]ledger.Line, 0, len(rest))
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
	if len(ledger.Epoch(lines)) == 0 && len(bad) == 0 {
		return ledgerNone, lines, nil
	}
	return ledgerThis, lines, bad
}

func (r *run) foreign(text string) error {
	first, _ := ledger.Split(text)
	if _, ok := ledger.IdentityPlan(first); !ok {
		return exit.Ownf(Foreign, "%s: its first line %q names no plan and is no ledger line: whose record it is cannot be told; nothing was written", r.path, first)
	}
	return exit.Ownf(Foreign, "%s: its first line %q names another plan than %s: it is another run's record; nothing was written", r.path, first, r.plan)
}

// notRegular is the refusal of a ledger that is not a regular file.
func (r *run) notRegular(err error) error {
	var nr *workspace.NotRegularError
	if !errors.As(err, &nr) {
		return nil
	}
	return exit.Ownf(Foreign, "%s is %s, not a regular file: a ledger is never followed or waited on; nothing was written (if you did not put it there, remove it and run look)", r.path, nr.What)
}

// open opens the ledger under its lock for a verb that writes to a
// started ledger of this plan.
func (r *run) open() (*ledger.File, []ledger.Line, error) {
	lf, err := ledger.Open(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, exit.Ownf(OutOfStep, "%s: no ledger yet: start the run first (sdd-ledger start)", r.path)
	}
	if nr := r.notRegular(err); nr != nil {
		return nil, nil, nr
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
	if state == ledgerOther {
		lf.Close()
		return nil, nil, r.foreign(text)
	}
	first, _ := ledger.Split(text)
	if _, ok := ledger.IdentityPlan(first); !ok && state == ledgerNone {
		lf.Close()
		return nil, nil, exit.Ownf(OutOfStep, "%s: no ledger yet: start the run first (sdd-ledger start)", r.path)
	}
	return lf, lines, nil
}

// git runs git and returns its output without the final newline.
func (r *run) git(args ...string) (string, error) {
	out, err := r.env.Git.Output(r.ctx, args...)
	if err != nil {
		return "", err
	}
	return git.TrimCommandSubstitution(out), nil
}

// checkStart refuses a START_BRANCH that reads as an option or names no
// commit (a typo: mian), before anything is written or asked of it, at
// whichever row the run is: bad START_BRANCH, exit 2.
func (r *run) checkStart(start string) error {
	if commands.IsOption(start) {
		return commands.BadRevision("START_BRANCH", start)
	}
	if _, err := r.env.Git.Output(r.ctx, "rev-parse", "--verify", "--quiet", start+"^{commit}"); err != nil {
		if r.ctx.Err() != nil {
			return err
		}
		return commands.BadRevision("START_BRANCH", start)
	}
	return nil
}

// notPlan is the pathspec of everything but the plan, for git's calls
// about a unit's work: the plan's edits are the human's; the plan itself
// when it is outside the repository has none to leave out.
func (r *run) notPlan() []string { return git.AllBut(r.planInRepo()) }

// planInRepo is the plan's path from the repository's top, "" when it is
// outside the repository (recorded absolute).
func (r *run) planInRepo() string {
	if id := r.id.ID(); !strings.HasPrefix(id, "/") && !filepath.IsAbs(id) {
		return id
	}
	return ""
}

func (r *run) head() (string, error) { return r.git("rev-parse", "--verify", "HEAD^{commit}") }

func (r *run) short(sha string) (string, error) { return r.git("rev-parse", "--short", sha) }

// shorts is short of two shas (rev-parse shortens one revision a call).
func (r *run) shorts(a, b string) (string, string, error) {
	a7, err := r.short(a)
	if err != nil {
		return "", "", err
	}
	b7, err := r.short(b)
	return a7, b7, err
}

// units computes every unit's facts and row from lines.
func (r *run) units(lines []ledger.Line) ([]*ledger.Facts, error) {
	var nums []string
	for _, t := range r.tasks {
		nums = append(nums, t.Number)
	}
	r.files = nil
	return ledger.Units(lines, nums, r)
}

// unitOf computes the facts and row of one unit from lines: a step on a
// unit reads no other, and on a long run's ledger every unit's facts cost
// hundreds of milliseconds.
func (r *run) unitOf(lines []ledger.Line, unit string) (*ledger.Facts, error) {
	var nums []string
	if unit != ledger.FinalUnit {
		nums = []string{strings.TrimPrefix(unit, "Task ")}
	}
	r.files = nil
	us, err := ledger.Units(lines, nums, r)
	if err != nil {
		return nil, err
	}
	return find(us, unit), nil
}

func find(us []*ledger.Facts, unit string) *ledger.Facts {
	for _, u := range us {
		if u.Unit == unit {
			return u
		}
	}
	return nil
}
