package sddledger

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// findingStep: a gap the controller confirmed (a check of what the review
// could not verify that failed) becomes an open finding, with the next
// free id. It joins a unit whose review is in and whose last re-review is
// recorded: added before its round is, it would leave that round
// unrecorded and its count to start again.
var findingStep = step{
	check: func(r *run, args []string) error {
		if err := ledger.CheckFinding("the finding", args[2]); err != nil {
			return exit.Ownf(BadText, "%v: nothing was written", err)
		}
		return nil
	},
	at: []ledger.Row{ledger.RowClose, ledger.RowCheck, ledger.RowRuled, ledger.RowRefix, ledger.RowFix,
		ledger.RowBreaker, ledger.RowLate, ledger.RowJoined},
	want: "a unit whose review is in and whose round is recorded",
	do: func(s *stepRun) ([]string, error) {
		f := ledger.Finding{ID: fmt.Sprintf("F%d", maxID(s.u)+1), Text: s.args[2]}
		return []string{ledger.FormatFinding(s.name, f)}, nil
	},
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
