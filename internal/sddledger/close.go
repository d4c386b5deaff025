package sddledger

import (
	"fmt"

	"github.com/sdd-go/sdd-go/internal/ledger"
)

// closeStep ends a unit once nothing is left open: the first review's minors
// (when no round recorded them), each decision later tasks build on as a
// settled line, and complete. A batch's close completes every task of it,
// each with its own complete line: a task is done if and only if it has
// one. A task side by side joins the feature branch first (join.go):
// complete is written only once it has joined.
var closeStep = step{
	check: texts("a decision", 2),
	fits: func(s *stepRun) error {
		u := s.u
		switch {
		case u.Row != ledger.RowClose && u.Row != ledger.RowCheck && u.Row != ledger.RowRuled && u.Row != ledger.RowJoined:
			return outOfStep(u, "close, check, ruled or joined (nothing left open)")
		case u.Base() == "" || len(u.Heads()) == 0 || u.After != 0:
			// The rows hold this (commits after the last review are
			// reviewed first, lines a close needs missing stop the run); a
			// commit in no reviewed range would go into no unit's.
			return outOfStep(u, "close, check or ruled with no commit after the last review")
		}
		return nil
	},
	do: func(s *stepRun) ([]string, error) {
		u := s.u
		if u.Row == ledger.RowJoined {
			// Joined by a merge commit, which the controller has checked:
			// complete, with any decision not recorded at the join.
			s.after = append(s.after, s.unjoin(u.Branch, s.worktree(u.Task)))
			return s.complete(settled(u, s.args[2:]))
		}
		var out []string
		if u.Branch != "" {
			us, err := s.units(s.lines)
			if err != nil {
				return nil, err
			}
			if why, err := s.joinsAlone(us, find(us, s.name)); err != nil {
				return nil, err
			} else if why != "" {
				// Not yet, and no failure: the controller's call goes on,
				// and Look leaves the task out of next: until then.
				s.after = append(s.after, func() error {
					_, err := fmt.Fprintf(s.env.Stdout, "waits: %s %s; nothing was written: it closes once they have\n", s.name, why)
					return err
				})
				return nil, nil
			}
			joined, merged, stop, err := s.join()
			if err != nil || stop != nil {
				return stop, err
			}
			out = append(append(firstMinors(u), settled(u, s.args[2:])...), ledger.FormatJoined(s.name, joined))
			if merged {
				// A tree no one has tested: checked before complete (row
				// joined).
				s.after = append(s.after, func() error {
					_, err := fmt.Fprintf(s.env.Stdout, "joined by a merge commit, %s: run the check on it, then close %s\n", short7(joined), s.name)
					return err
				})
				return out, nil
			}
			s.after = append(s.after, s.unjoin(u.Branch, s.worktree(u.Task)))
			return s.complete(out)
		}
		return s.complete(append(firstMinors(u), settled(u, s.args[2:])...))
	},
}

// settled are the lines of the decisions not yet the unit's settled lines
// (a close at row joined may be given those of the close that joined).
func settled(u *ledger.Facts, decisions []string) []string {
	var out []string
	for _, d := range decisions {
		line := ledger.FormatSettled(u.Unit, d)
		seen := false
		for _, l := range u.Lines() {
			seen = seen || l.Text == line
		}
		if !seen {
			out = append(out, line)
		}
	}
	return out
}

// complete is out and the unit's complete line (and its batch's).
func (s *stepRun) complete(out []string) ([]string, error) {
	u := s.u
	heads := u.Heads()
	b7, h7, err := s.shorts(u.Base(), heads[len(heads)-1])
	if err != nil {
		return nil, err
	}
	outcome := ledger.Outcome(u.Count(ledger.KindParked))
	out = append(out, ledger.FormatComplete(s.name, b7, h7, outcome))
	if len(u.Members) > 1 {
		for _, m := range u.Members[1:] {
			out = append(out, ledger.FormatComplete(ledger.UnitName(m), b7, h7, outcome+", with "+s.name))
		}
	}
	return out, nil
}
