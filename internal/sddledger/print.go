package sddledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// What a verb prints: each unit's state line as the state table reads it,
// with what a step needs of it, and the lines a step recorded.

// printUnit prints a unit's state line and, unless it is done, what a
// step needs of it.
func (r *run) printUnit(u *ledger.Facts) {
	w := r.env.Stdout
	fmt.Fprintln(w, u.StateLine())
	for _, h := range u.History {
		fmt.Fprintf(w, "  shas: %s\n", h)
	}
	for _, p := range u.Replanned {
		fmt.Fprintf(w, "  plan: %s\n", p)
	}
	if u.Row == ledger.RowRewritten || u.Row == ledger.RowRenumbered {
		// What the human is asked about: a restart parks these.
		for _, f := range u.OpenFindings {
			fmt.Fprintf(w, "  open: %s\n", f)
		}
		return
	}
	if u.Row == ledger.RowDone || u.Row == ledger.RowFinished {
		return
	}
	if u.Branch != "" {
		fmt.Fprintf(w, "  worktree: %s (branch %s)\n", r.worktree(u.Task), u.Branch)
	}
	if u.Implementer != "" {
		fmt.Fprintf(w, "  implementer: %s\n", u.Implementer)
	}
	if u.Unblocked != "" && (u.Row == ledger.RowImplement || u.Row == ledger.RowFix) {
		// What the next dispatch carries: the change decided when the
		// unit went on from a BLOCKED.
		fmt.Fprintf(w, "  unblocked: %s\n", u.Unblocked)
	}
	if u.ReviewFile != "" {
		fmt.Fprintf(w, "  review: %s\n", commands.InWorkspace(r.dir, u.ReviewFile))
	}
	if h := u.Heads(); len(h) > 0 && u.Review == "out" {
		// The package the review to dispatch reads.
		if name := u.PackageName(len(h) - 1); name != "" {
			if fi, err := os.Stat(commands.InWorkspace(r.dir, name)); err == nil {
				fmt.Fprintf(w, "  package: %s (%d bytes)\n", commands.InWorkspace(r.dir, name), fi.Size())
			}
		}
	}
	if u.Task != "" && len(u.Heads()) > 0 {
		if _, err := os.Stat(commands.InWorkspace(r.dir, "task-"+u.Task+"-report.md")); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(w, "  report: none")
		}
	}
	open := u.OpenFindings
	if u.Review == "out" && u.Pass == "re" {
		open = u.Before() // what the re-review is to rule on
	}
	for _, f := range open {
		fmt.Fprintf(w, "  open: %s\n", f)
	}
	if u.NotVerifiable != "" {
		fmt.Fprintf(w, "  not verifiable: %s\n", u.NotVerifiable)
	}
	for _, n := range u.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// printAfter prints the unit's state once lf holds the verb's lines.
func (r *run) printAfter(lf *ledger.File, unit string) error {
	text, err := lf.Text()
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	_, lines, _ := r.ledgerState(text)
	u, err := r.unitOf(lines, unit)
	if err != nil {
		return err
	}
	if u.Row == ledger.RowImplement && u.Task != "" {
		// An implementer to dispatch next (a task started, or going on
		// after a block): what earlier tasks settled.
		r.printSettled(lines, unit)
	}
	r.printUnit(u)
	// A batch's first task speaks for the batch: its later tasks' lines
	// too, so that no reader takes one of them for a task to start.
	if len(u.Members) > 1 {
		ms, err := ledger.Units(lines, u.Members[1:], r)
		if err != nil {
			return err
		}
		for _, m := range ms[:len(ms)-1] { // the last is Final
			r.printUnit(m)
		}
	}
	return nil
}

// append writes lines to the ledger and says so, line by line: what a
// step recorded is in its output, the ledger being the one record. From
// here on a signal is caught, so that it cannot cut the write: the lines
// are written whole, or taken back (ledger.File.Append).
func (r *run) append(lf *ledger.File, lines ...string) error {
	r.env.CatchSignals()
	if err := lf.Append(r.ctx, lines...); err != nil {
		if r.ctx.Err() != nil {
			return context.Cause(r.ctx)
		}
		return exit.FileOf(exit.IO, err)
	}
	for _, l := range lines {
		fmt.Fprintf(r.env.Stdout, "recorded %s\n", l)
	}
	return nil
}
