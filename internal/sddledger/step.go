package sddledger

import (
	"context"
	"slices"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// step is a verb that does one step of the skill on one unit and appends
// its lines. The sequence every such verb shares is written once, in
// Run: the plan and its workspace; the unit the arguments name; the
// arguments checked before anything is locked (a text that would make no
// line: exit 6); the ledger opened under its lock (another plan's: exit
// 4); the unit's facts and row; the rows the step is taken at (any other:
// exit 5, nothing written); the step's work and lines; the append; and
// the unit printed as the state table reads it. A verb's file holds only
// what differs.
type step struct {
	// unit reads the unit the step is on from the arguments; nil: the
	// second argument, a task number of the plan or "final".
	unit func(r *run, args []string) (string, error)
	// check checks the arguments before the ledger is opened; nil: none.
	check func(r *run, args []string) error
	// every says that the step reads every unit's facts (s.us), as a
	// step that must see the tasks before its own does.
	every bool
	// at are the rows the step is taken at; fits, where set, decides
	// instead. want says what the step needs, in its refusal.
	at   []ledger.Row
	fits func(s *stepRun) error
	want string
	// do does the step's work and returns the lines to append.
	do func(s *stepRun) ([]string, error)
}

// stepRun is one run of a step: the verb's run, its arguments, the unit
// and its facts.
type stepRun struct {
	*run
	args  []string
	name  string          // "Task 2", "Final"
	u     *ledger.Facts   // the unit's facts
	us    []*ledger.Facts // every unit's, in plan order then Final (step.every)
	lines []ledger.Line   // the ledger's lines, every epoch
	lf    *ledger.File    // the ledger, locked
	after []func() error  // what the step prints once its lines are in
	// stop, set by do, fails the step once its lines are in: a step that
	// records why the unit stopped (a task side by side that left its
	// worktree, a join that conflicts) exits 5 with the reason.
	stop error
}

// Run is the step as a verb's Run.
func (st step) Run(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	unitOf := st.unit
	if unitOf == nil {
		unitOf = func(r *run, args []string) (string, error) { return r.unit(args[1]) }
	}
	name, err := unitOf(r, args)
	if err != nil {
		return err
	}
	if st.check != nil {
		if err := st.check(r, args); err != nil {
			return err
		}
	}
	lf, lines, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	s := &stepRun{run: r, args: args, name: name, lines: lines, lf: lf}
	if st.every {
		if s.us, err = r.units(lines); err != nil {
			return err
		}
		s.u = find(s.us, name)
	} else if s.u, err = r.unitOf(lines, name); err != nil {
		return err
	}
	switch {
	case st.fits != nil:
		err = st.fits(s)
	case !slices.Contains(st.at, s.u.Row):
		err = outOfStep(s.u, st.want)
	}
	if err != nil {
		return err
	}
	out, err := st.do(s)
	if err != nil {
		return err
	}
	if err := r.append(lf, out...); err != nil {
		return err
	}
	if s.stop != nil {
		if err := r.printAfter(lf, name); err != nil {
			return err
		}
		return s.stop
	}
	for _, f := range s.after {
		if err := f(); err != nil {
			return err
		}
	}
	return r.printAfter(lf, name)
}

// taskUnit reads the unit argument at i as a task (the final review is
// refused).
func taskUnit(i int) func(r *run, args []string) (string, error) {
	return func(r *run, args []string) (string, error) {
		unit, err := r.unit(args[i])
		if err == nil && unit == ledger.FinalUnit {
			err = exit.Ownf(exit.Usage, "N is a task number")
		}
		return unit, err
	}
}

// texts checks args[from:] as texts for lines (what is named in a
// refusal: "a decision").
func texts(what string, from int) func(r *run, args []string) error {
	return func(r *run, args []string) error {
		for _, a := range args[from:] {
			if err := badText(what, a); err != nil {
				return err
			}
		}
		return nil
	}
}

func outOfStep(u *ledger.Facts, want string) error {
	return exit.Ownf(OutOfStep, "%s is at row %s (%s), not %s: run look and take the row's step", u.Unit, u.Row, strings.TrimPrefix(u.StateLine(), u.Unit+": "), want)
}

func badText(what, s string) error {
	return refuseText(ledger.CheckText(what, s))
}

// refuseText is exit 6 for a text a check refused.
func refuseText(err error) error {
	if err != nil {
		return exit.Ownf(BadText, "%v: nothing was written", err)
	}
	return nil
}

// firstMinors are the first review's minors as deferred lines, for the
// step that records the unit's first round or its close: the minors of
// later reviews come with their rounds.
func firstMinors(u *ledger.Facts) []string {
	if u.Count(ledger.KindFix) > 0 || u.FirstReview() == nil {
		return nil
	}
	var out []string
	for _, m := range u.FirstReview().Minors {
		out = append(out, ledger.FormatMinor(u.Unit, m))
	}
	return out
}
