package sddledger

import (
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// roundStep records the fix round the last re-review closes: what it
// addressed and what is still open (its NOT ADDRESSED and new findings),
// with its out-of-scope notes (and, for the first round, the first
// review's minors) as deferred minors.
var roundStep = step{
	at:   []ledger.Row{ledger.RowRecord, ledger.RowRecordClose},
	want: "record or record-close",
	do: func(s *stepRun) ([]string, error) {
		u := s.u
		if u.Round >= ledger.Cap(s.name) {
			return nil, exit.Ownf(OutOfStep, "%s has had its %d fix round(s): rule on what is open (park or block)", s.name, ledger.Cap(s.name))
		}
		rr := u.LastReReview()
		addressed := 0
		for _, f := range u.Before() {
			if rr.Addressed[f.ID] {
				addressed++
			}
		}
		heads := u.Heads()
		a7, b7, err := s.shorts(heads[len(heads)-2], heads[len(heads)-1])
		if err != nil {
			return nil, err
		}
		out := firstMinors(u)
		for _, m := range rr.OutOfScope {
			out = append(out, ledger.FormatMinor(s.name, m))
		}
		return append(out, ledger.FormatRound(s.name, u.Round+1, addressed, u.OpenFindings, a7, b7)), nil
	},
}
