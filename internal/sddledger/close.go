package sddledger

import (
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
		case u.Row != ledger.RowClose && u.Row != ledger.RowCheck && u.Row != ledger.RowRuled:
			return outOfStep(u, "close, check or ruled (nothing left open)")
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
		joined := ""
		if u.Branch != "" {
			var stop []string
			var err error
			if joined, stop, err = s.join(); err != nil || stop != nil {
				return stop, err
			}
			s.after = append(s.after, s.unjoin(u.Branch, s.worktree(u.Task)))
		}
		out := firstMinors(u)
		for _, d := range s.args[2:] {
			out = append(out, ledger.FormatSettled(s.name, d))
		}
		heads := u.Heads()
		b7, err := s.short(u.Base())
		if err != nil {
			return nil, err
		}
		h7, err := s.short(heads[len(heads)-1])
		if err != nil {
			return nil, err
		}
		if joined != "" {
			out = append(out, ledger.FormatJoined(s.name, joined))
		}
		outcome := ledger.Outcome(u.Count(ledger.KindParked))
		out = append(out, ledger.FormatComplete(s.name, b7, h7, outcome))
		if len(u.Members) > 1 {
			for _, m := range u.Members[1:] {
				out = append(out, ledger.FormatComplete(ledger.UnitName(m), b7, h7, outcome+", with "+s.name))
			}
		}
		return out, nil
	},
}
