package sddledger

import (
	"fmt"
	"os"
	"strings"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// finalStep builds the final review's package once every task is complete:
// "Final: base=" (the merge base of START_BRANCH and HEAD), the package of
// the whole branch, and "Final: reviewed_head="; or, when START_BRANCH
// holds every commit of the branch, Final's base= and its complete line,
// nothing to review.
var finalStep = step{
	unit: func(*run, []string) (string, error) { return ledger.FinalUnit, nil },
	check: func(r *run, args []string) error {
		return r.checkStart(args[1])
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
			// Merged early (or a start branch that holds the branch): no
			// commit is the branch's alone, and the final review has
			// nothing to read. Final is complete, and says so in the
			// verdict Finish gives the human; refused, the run would ask
			// for this step for ever.
			h7, err := s.short(head)
			if err != nil {
				return nil, err
			}
			return []string{ledger.FormatBase(ledger.FinalUnit, base),
				ledger.FormatComplete(ledger.FinalUnit, h7, h7, "nothing to review: "+start+" holds every commit of the branch")}, nil
		}
		if err := s.writePackage(base, head); err != nil {
			return nil, err
		}
		// In a plan of one task (or one batch) the whole branch is that
		// unit's range: its review file stands where the final review's
		// goes, and read as Final's it would close Final unreviewed. It
		// moves aside, kept: the task is complete.
		for _, name := range s.Files() {
			if ledger.IsReviewOf(name, base, head) {
				p := commands.InWorkspace(s.dir, name)
				aside := strings.TrimSuffix(p, ".md") + ".task.md"
				if err := os.Rename(p, aside); err != nil {
					return nil, exit.File(exit.IO, p, err)
				}
				fmt.Fprintf(s.env.Stdout, "moved %s to %s: a task's review of these same commits, not the final review\n", p, aside)
			}
		}
		return []string{ledger.FormatBase(ledger.FinalUnit, base), ledger.FormatReviewedHead(ledger.FinalUnit, head)}, nil
	},
}
