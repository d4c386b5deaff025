package sddledger

import (
	"fmt"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// parkStep: the breaker's ruling on an open finding, after the unit's last
// fix round: "parked — <finding> — ruling: WHY".
var parkStep = step{
	check: texts("the ruling", 3),
	fits: func(s *stepRun) error {
		if s.u.Row != ledger.RowBreaker {
			return outOfStep(s.u, fmt.Sprintf("the breaker (only after round %d)", ledger.Cap(s.name)))
		}
		return nil
	},
	do: func(s *stepRun) ([]string, error) {
		id, why := s.args[2], s.args[3]
		for _, f := range s.u.OpenFindings {
			if f.ID == id {
				if err := refuseText(ledger.CheckParked(f, why)); err != nil {
					return nil, err
				}
				return []string{ledger.FormatParked(s.name, f, why)}, nil
			}
		}
		return nil, exit.Ownf(exit.Usage, "%s has no open finding %s (open: %s)", s.name, id, ledger.JoinFindings(s.u.OpenFindings))
	},
}
