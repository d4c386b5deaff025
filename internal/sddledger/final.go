package sddledger

import (
	"fmt"
	"os"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// final builds the final review's package once every task is complete:
// "Final: base=" (the merge base of START_BRANCH and HEAD), the package of
// the whole branch, and "Final: reviewed_head=".
var final = step{
	unit: func(*run, []string) (string, error) { return ledger.FinalUnit, nil },
	check: func(r *run, args []string) error {
		if commands.IsOption(args[1]) {
			return commands.BadRevision("START_BRANCH", args[1])
		}
		return nil
	},
	every: true,
	fits: func(s *stepRun) error {
		for _, u := range s.us {
			if u.Unit != ledger.FinalUnit && u.Row != ledger.RowDone {
				return exit.Ownf(OutOfStep, "%s is not complete (row %s): the final review comes after every task", u.Unit, u.Row)
			}
		}
		if s.u.Row != ledger.RowFinal {
			return outOfStep(s.u, "final")
		}
		return nil
	},
	do: func(s *stepRun) ([]string, error) {
		start := s.args[1]
		base, err := s.git("merge-base", "--end-of-options", start, "HEAD")
		if err != nil {
			return nil, err
		}
		head, err := s.head()
		if err != nil {
			return nil, err
		}
		if base == head {
			return nil, exit.Ownf(OutOfStep, "the branch has no commits since %s: nothing to review", start)
		}
		if err := commands.ReviewPackage.Run(s.ctx, s.env, []string{s.plan, base, head}); err != nil {
			return nil, err
		}
		// In a plan of one task the whole branch is that task's range:
		// its review file stands where the final review's goes, and read
		// as Final's it would close Final unreviewed. It goes; the task
		// is complete.
		for _, name := range s.Files() {
			if ledger.IsReviewOf(name, base, head) {
				p := commands.InWorkspace(s.dir, name)
				if err := os.Remove(p); err != nil {
					return nil, exit.File(exit.IO, p, err)
				}
				fmt.Fprintf(s.env.Stdout, "removed %s: a task's review of these same commits, not the final review\n", p)
			}
		}
		return []string{ledger.FormatBase(ledger.FinalUnit, base), ledger.FormatReviewedHead(ledger.FinalUnit, head)}, nil
	},
}
