package sddledger

import (
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// unblock: the human's decision to go on with a BLOCKED unit, or with one
// whose commits after its last review have no fix round left (row late).
// The text stops there and the ledger is never edited, so without it such
// a stop would be for good. The unit goes on from where it stopped, with a
// fresh budget of fix rounds.
var unblock = step{
	check: texts("the decision", 2),
	at:    []ledger.Row{ledger.RowBlocked, ledger.RowLate},
	want:  "blocked or late",
	do: func(s *stepRun) ([]string, error) {
		return []string{ledger.FormatUnblocked(s.name, s.args[2])}, nil
	},
}
