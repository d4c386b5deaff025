package sddledger

import (
	"context"
	"fmt"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// finish prints what the human must still decide (every deferred minor
// and parked finding, of every epoch, and the final verdict), then
// deletes the plan's workspace: the run's last step.
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
	if u.Row != ledger.RowFinished {
		lf.Close()
		return outOfStep(u, "finished")
	}
	// Every deferred minor and parked finding, of every epoch: what a
	// restart set aside is still the human's to decide.
	var keep []ledger.Line
	for _, l := range lines {
		if l.Kind == ledger.KindMinor || l.Kind == ledger.KindParked {
			keep = append(keep, l)
		}
	}
	var verdict string
	for _, l := range ledger.Epoch(lines) {
		if l.Kind == ledger.KindComplete && l.Unit == ledger.FinalUnit {
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
