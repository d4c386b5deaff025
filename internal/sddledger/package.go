package sddledger

import (
	"fmt"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// packageStep records the implementer and packages the unit's work not yet
// reviewed, as review-package does: the whole task from its base, or
// after a fix the commits since the last review, then reviewed_head=. At
// row implement (an implementer's DONE with no commit: the work was
// already in the tree) the range is empty, and the reviewer judges the
// brief against the tree; refused, the run would dispatch the same
// implementer for ever.
// After a fix round that made no commits there is nothing to review: the
// roundStep is recorded with every finding still open.
var packageStep = step{
	check: func(r *run, args []string) error { return refuseText(ledger.CheckAgentID(args[2])) },
	fits: func(s *stepRun) error {
		u := s.u
		switch {
		case (u.Row == ledger.RowPackage || u.Row == ledger.RowImplement) && u.Base() != "",
			(u.Row == ledger.RowRefix || u.Row == ledger.RowFix) && len(u.Heads()) > 0:
			return nil
		}
		return outOfStep(u, "package, implement or refix")
	},
	do: func(s *stepRun) ([]string, error) {
		u := s.u
		var out []string
		if agent := s.args[2]; agent != "none" && agent != u.Implementer {
			out = append(out, ledger.FormatImplementer(s.name, agent))
		}
		heads := u.Heads()
		from := u.Base()
		switch u.Row {
		case ledger.RowRefix:
			from = heads[len(heads)-1]
		case ledger.RowFix:
			h7, err := s.short(heads[len(heads)-1])
			if err != nil {
				return nil, err
			}
			round := u.Round + 1
			out = append(out, firstMinors(u)...)
			s.after = append(s.after, func() error {
				_, err := fmt.Fprintf(s.env.Stdout, "no commits since the last review: round %d recorded with every finding still open\n", round)
				return err
			})
			return append(out, ledger.FormatRound(s.name, round, 0, u.OpenFindings, h7, h7)), nil
		}
		head, err := s.head()
		if err != nil {
			return nil, err
		}
		if u.Branch != "" {
			// A task side by side: its work is on its branch, and an
			// implementer or fix that left its worktree stops it here.
			why, err := s.escaped()
			if err != nil {
				return nil, err
			}
			if why != "" {
				return append(out, s.block("it left its worktree: "+why)...), nil
			}
			if head, err = s.git("rev-parse", "--verify", "refs/heads/"+u.Branch); err != nil {
				return nil, err
			}
		}
		if err := s.writePackage(from, head); err != nil {
			return nil, err
		}
		return append(out, ledger.FormatReviewedHead(s.name, head)), nil
	},
}

// writePackage writes the package of base..head, two commits the ledger
// has checked, into the workspace as review-package names it, leaving the
// plan out.
func (s *stepRun) writePackage(base, head string) error {
	b7, h7, err := s.shorts(base, head)
	if err != nil {
		return err
	}
	out := commands.InWorkspace(s.dir, commands.PackageName(b7, h7))
	return commands.TaskPackage(s.ctx, s.env, s.plan, base, head, out, s.planInRepo())
}
