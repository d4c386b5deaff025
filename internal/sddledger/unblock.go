package sddledger

import (
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// unblockStep: the human's decision to go on with a BLOCKED unit, or with one
// whose commits after its last review have no fix round left (row late).
// The text stops there and the ledger is never edited, so without it such
// a stop would be for good. The unit goes on from where it stopped, with a
// fresh budget of fix rounds; a task under way gets its brief written
// again from the plan as it is now (the human's change is often to the
// task's text, which the implementer, the fix rounds and the reviewer
// read from the brief).
var unblockStep = step{
	check: texts("the decision", 2),
	at:    []ledger.Row{ledger.RowBlocked, ledger.RowLate},
	want:  "blocked or late",
	do: func(s *stepRun) ([]string, error) {
		if u := s.u; u.Task != "" && u.Base() != "" {
			var err error
			if len(u.Members) > 1 {
				err = s.batchBrief(u.Members)
			} else {
				err = commands.TaskBrief.Run(s.ctx, s.env, []string{s.plan, u.Task})
			}
			if err != nil {
				return nil, err
			}
			if u.Branch != "" {
				if err := s.briefWorkIn(u.Task); err != nil {
					return nil, err
				}
			}
		}
		return []string{ledger.FormatUnblocked(s.name, s.args[2])}, nil
	},
}
