package commands

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// The verbs of a review's outcome: a finding of the controller's, the fix
// round a re-review closes, the breaker's rulings (park, block), the
// human's decision to go on (unblock), and the close.

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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
	// A finding joins a unit whose review is in and whose last re-review
	// is recorded: added before its round is, it would leave that round
	// unrecorded and its count to start again.
	if err := needRow(u, "a unit whose review is in and whose round is recorded", findingRows...); err != nil {
		return err
	}
	f := ledger.Finding{ID: fmt.Sprintf("F%d", maxID(u)+1), Text: text}
	line := ledger.FormatFinding(unit, f)
	if err := r.append(lf, line); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// findingRows are the rows at which the controller may add a finding.
var findingRows = []string{"close", "check", "ruled", "refix", "fix", "final-fix", "breaker", "final-breaker", "late", "final-late"}

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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
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
	if u.Count(ledger.Round) == 0 && u.FirstReview() != nil {
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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
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
	if err := refuseText(ledger.CheckParked(*f, why)); err != nil {
		return err
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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
	if u.Last == ledger.Complete || u.Last == ledger.Blocked {
		return outOfStep(u, "a unit under way")
	}
	line := ledger.FormatBlocked(unit, args[2])
	if err := r.append(lf, line); err != nil {
		return err
	}
	return r.after(lf, unit)
}

// unblock: the human's decision to go on with a BLOCKED unit, or with one
// whose commits after its last review have no fix round left. The text
// stops there and the ledger is never edited, so without it such a stop
// would be for good.

func runUnblock(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unit, err := r.unit(args[1])
	if err != nil {
		return err
	}
	if err := badText("the decision", args[2]); err != nil {
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
	if err := needRow(u, "blocked, late or final-late", "blocked", "late", "final-late"); err != nil {
		return err
	}
	if err := r.append(lf, ledger.FormatUnblocked(unit, args[2])); err != nil {
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
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
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
	if u.Base() == "" || len(heads) == 0 || u.After != 0 {
		// The rows hold this (commits after the last review are reviewed
		// first, lines a close needs missing stop the run); a commit in no
		// reviewed range would go into no unit's.
		return outOfStep(u, "close, check or ruled with no commit after the last review")
	}
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
