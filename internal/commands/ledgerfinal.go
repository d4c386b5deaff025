package commands

import (
	"context"
	"fmt"
	"os"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// The verbs of a run's end: the final review's package, the finish, and
// the human's restart of the record.

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
	u, err := r.unitOf(lines, ledger.FinalUnit)
	if err != nil {
		lf.Close()
		return err
	}
	if err := needRow(u, "finished", "finished"); err != nil {
		lf.Close()
		return err
	}
	// Every deferred minor and parked finding, of every epoch: what a
	// restart set aside is still the human's to decide.
	var keep []ledger.Line
	for _, l := range lines {
		if l.Kind == ledger.Minor || l.Kind == ledger.Parked {
			keep = append(keep, l)
		}
	}
	var verdict string
	for _, l := range ledger.Epoch(lines) {
		if l.Kind == ledger.Complete && l.Unit == ledger.FinalUnit {
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

// restart: the human keeps the branch as it is now, though the commits
// the ledger records are no longer its history. The record begins again
// after this line; what comes before it stays.

func runRestart(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	if err := badText("the reason", args[1]); err != nil {
		return err
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	if len(ledger.Epoch(lines)) == 0 {
		return exit.Ownf(OutOfStep, "%s: nothing recorded since the run began or last restarted: nothing to restart; run look", r.path)
	}
	if err := r.append(lf, ledger.FormatRestarted(args[1])); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "the facts are read from here on; run look: it lists the branch's commits for the human to count\nLedger: ledger=%s\n", ledgerNone)
	return nil
}
