package sddledger

import (
	"fmt"
	"strings"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// taskStep starts task N, or the batch of tasks N to LAST: its brief (as
// task-brief writes it; a batch's holds each task's text in plan order),
// the batch's lines, and base= (HEAD). Tasks run one at a time, in plan
// order: every earlier task must be done; or, once the human said how
// many at a time, side by side, each in its own worktree (side.go), once
// the tasks it waits for are done. The decisions and parked
// findings of earlier tasks are printed for the dispatch (printAfter).
var taskStep = step{
	unit: func(r *run, args []string) (string, error) {
		n := args[1]
		unit, err := r.unit(n)
		switch {
		case err != nil && !strings.EqualFold(n, "final"):
			return "", exit.Errorf(exit.NotFound, "task %s not found in %s (no heading matching 'Task %s')", n, r.plan, n)
		case err != nil:
			return "", err
		case unit == ledger.FinalUnit:
			return "", exit.Ownf(exit.Usage, "the final review is built by \"sdd-ledger final\"")
		}
		return unit, nil
	},
	check: func(r *run, args []string) error {
		if len(args) == 3 {
			_, _, err := r.batchRange(args[1], args[2])
			return err
		}
		return nil
	},
	every: true,
	fits: func(s *stepRun) error {
		if s.u.Row != ledger.RowStart {
			return outOfStep(s.u, "start")
		}
		k := ledger.Side(s.lines)
		if k > 1 && len(s.args) == 2 {
			return s.fitsBeside(k)
		}
		for _, u := range inFlight(s.us, s.u.Unit) {
			if u.Branch != "" {
				return exit.Ownf(OutOfStep, "%s is in flight in its own worktree: %s starts %s once no task is in flight", u.Unit, s.u.Unit, map[bool]string{true: "as a batch", false: "one at a time"}[len(s.args) == 3])
			}
		}
		for _, u := range s.us {
			if u == s.u {
				return nil
			}
			if u.Row != ledger.RowDone {
				return exit.Ownf(OutOfStep, "%s is not complete (row %s): tasks run one at a time, in plan order", u.Unit, u.Row)
			}
		}
		return nil
	},
	do: func(s *stepRun) ([]string, error) {
		if ledger.Side(s.lines) > 1 && len(s.args) == 2 {
			return s.beginBeside()
		}
		n := s.args[1]
		var members []string
		if len(s.args) == 3 {
			var err error
			if members, err = s.batch(s.us, n, s.args[2]); err != nil {
				return nil, err
			}
		}
		head, err := s.head()
		if err != nil {
			return nil, err
		}
		return s.begin(members, head)
	},
}

// begin writes the brief of the unit, a task or the batch members (nil:
// the task alone), and returns its lines: the batch's, and base=.
func (s *stepRun) begin(members []string, base string) ([]string, error) {
	var out []string
	if members == nil {
		if err := commands.TaskBrief.Run(s.ctx, s.env, []string{s.plan, s.u.Task}); err != nil {
			return nil, err
		}
	} else {
		if err := s.batchBrief(members); err != nil {
			return nil, err
		}
		out = append(out, ledger.FormatBatch(members))
		for _, m := range members[1:] {
			out = append(out, ledger.FormatBatched(ledger.UnitName(m), s.name))
		}
	}
	return append(out, ledger.FormatBase(s.name, base)), nil
}

// printSettled prints the decisions and parked findings of every task but
// unit (of every epoch: a restart does not unsettle them), for the
// implementer's dispatch: "Settled by earlier tasks".
func (r *run) printSettled(lines []ledger.Line, unit string) {
	for _, l := range lines {
		if l.Unit != unit && l.Unit != ledger.FinalUnit && (l.Kind == ledger.KindSettled || l.Kind == ledger.KindParked) {
			fmt.Fprintf(r.env.Stdout, "settled: %s\n", l.Text)
		}
	}
}
