package sddledger

import (
	"context"
	"fmt"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// restart: the human keeps the branch as it is now, though the commits
// the ledger records are no longer its history. The record begins again
// after its line; what comes before it stays. A finding still open then
// is parked first, with that ruling, so that it reaches the finish and
// later tasks' dispatches: the new record starts every unit from nothing,
// and no finding is ever dropped silently.

func runRestart(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	why := args[1]
	if err := badText("the reason", why); err != nil {
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
	us, err := r.units(lines)
	if err != nil {
		return err
	}
	var out []string
	ruling := "open when the record began again: " + why
	for _, u := range us {
		for _, f := range u.OpenFindings {
			if err := refuseText(ledger.CheckParked(f, ruling)); err != nil {
				return err
			}
			out = append(out, ledger.FormatParked(u.Unit, f, ruling))
		}
	}
	if err := r.append(lf, append(out, ledger.FormatRestarted(why))...); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "the facts are read from here on; run look: it lists the branch's commits for the human to count\nLedger: ledger=%s\n", ledgerNone)
	return nil
}
