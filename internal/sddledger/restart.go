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
