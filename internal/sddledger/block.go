package sddledger

import (
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// blockStep: "BLOCKED — REASON", where the run stops for the human, on a unit
// under way. A task of a batch is blocked by blocking the batch's first
// task, which speaks for it.
var blockStep = step{
	check: texts("the reason", 2),
	fits: func(s *stepRun) error {
		switch s.u.Last {
		case ledger.KindBatched:
			return outOfStep(s.u, "a unit under way (a task in a batch is blocked by blocking the batch's first task)")
		case ledger.KindComplete, ledger.KindBlocked:
			return outOfStep(s.u, "a unit under way")
		}
		return nil
	},
	do: func(s *stepRun) ([]string, error) {
		return []string{ledger.FormatBlocked(s.name, s.args[2])}, nil
	},
}
