package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// The verbs of a task's work: start it (its base and brief), and package
// what its implementer (or a fix) committed for the review.

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
	return r.after(lf, unit)
}

// printSettled prints the decisions and parked findings of every task but
// unit (of every epoch: a restart does not unsettle them), for the
// implementer's dispatch: "Settled by earlier tasks".
func (r *run) printSettled(lines []ledger.Line, unit string) {
	for _, l := range lines {
		if l.Unit != unit && l.Unit != ledger.FinalUnit && (l.Kind == ledger.Settled || l.Kind == ledger.Parked) {
			fmt.Fprintf(r.env.Stdout, "settled: %s\n", l.Text)
		}
	}
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
	if err := refuseText(ledger.CheckAgentID(agent)); err != nil {
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
	var out []string
	if agent != "none" && agent != u.Implementer {
		out = append(out, ledger.FormatImplementer(unit, agent))
	}
	heads := u.Heads()
	var from string
	switch {
	case u.Row == "package" && u.Base() != "":
		from = u.Base()
	case u.Row == "refix" && len(heads) > 0:
		from = heads[len(heads)-1]
	case (u.Row == "fix" || u.Row == "final-fix") && len(heads) > 0:
		// A fix round that made no commits: nothing to review, and the
		// round is over with every finding still open.
		h7, err := r.short(heads[len(heads)-1])
		if err != nil {
			return err
		}
		round := u.Round + 1
		if u.Count(ledger.Round) == 0 && u.FirstReview() != nil {
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
