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

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
)

// The verbs that begin a run: start, and the human's answers about an
// earlier run's commits (earlier-done, earlier-review).

// start

func runStart(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	identity := ledger.Identity(r.id.ID())
	env.CatchSignals()
	lf, err := ledger.Create(ctx, r.path, identity)
	if errors.Is(err, fs.ErrExist) {
		lf, err = ledger.Open(r.path)
		if nr := r.notRegular(err); nr != nil {
			return nr
		}
		if err != nil {
			return exit.File(exit.IO, r.path, err)
		}
		text, err := lf.Text()
		if err != nil {
			lf.Close()
			return exit.FileOf(exit.IO, err)
		}
		switch state, _, _ := r.ledgerState(text); {
		case state == ledgerOther:
			lf.Close()
			return r.foreign(text)
		case state == ledgerThis:
			lf.Close()
			return exit.Ownf(OutOfStep, "%s: the run has begun (the ledger has more than its first line): run look", r.path)
		case text == "":
			err = lf.Append(ctx, identity)
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
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	defer lf.Close()
	out, n, err := r.writeConstraints()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "started %s\nwrote %s: %d lines\nLedger: ledger=this\n", r.path, out, n)
	return nil
}

// constraintsName is the file every dispatch names for the plan's
// constraint sections.
const constraintsName = "constraints.md"

// writeConstraints writes <workspace>/constraints.md, the plan's
// constraint sections, as the drop-ins write outputs.
func (r *run) writeConstraints() (out string, lines int, err error) {
	out = inWorkspace(r.dir, constraintsName)
	f, err := openOutput(out, r.plan)
	if err != nil {
		return "", 0, err
	}
	defer f.Abort()
	pf, err := os.Open(r.plan)
	if err != nil {
		return "", 0, exit.File(exit.Usage, r.plan, err)
	}
	defer pf.Close()
	cw := &countingWriter{w: taggedWriter{w: f}}
	if err := plantask.Constraints(pf, cw); err != nil {
		if isWriteError(err) {
			return "", 0, exit.File(exit.IO, out, err)
		}
		return "", 0, exit.File(exit.Usage, r.plan, err)
	}
	if err := commit(f, out); err != nil {
		return "", 0, err
	}
	return out, cw.lines, nil
}

// ensureConstraints writes constraints.md when a started ledger's
// workspace lacks it (a ledger adopted from the reference's workspace,
// which start never ran on).
func (r *run) ensureConstraints() error {
	if _, err := os.Lstat(inWorkspace(r.dir, constraintsName)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	out, n, err := r.writeConstraints()
	if err != nil {
		return err
	}
	fmt.Fprintf(r.env.Stdout, "wrote %s: %d lines\n", out, n)
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
		for _, l := range ledger.Epoch(lines) {
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

func fresh(u *ledger.Facts) error {
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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
	if err := fresh(u); err != nil {
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
	_, text, err := r.flatLedger()
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range strings.Split(text, "\n") {
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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
	if err := fresh(u); err != nil {
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

// flatLedger reads the old flat ledger, .superpowers/sdd/progress.md, of
// runs from before per-plan workspaces (never written: a regular file
// only, never followed or waited on).
func (r *run) flatLedger() (path, text string, err error) {
	path = r.root + string(filepath.Separator) + filepath.Join(".superpowers", "sdd", ledger.FileName)
	text, err = ledger.Read(path)
	return path, text, err
}
