package sddledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// look: where the run stands. Look always answers on this plan's ledger
// (exit 0): a sha the branch no longer holds, lines a step needs that are
// missing, a ledger that is not a regular file, are facts it prints, never
// failures, since the text's remedy for a failure is to run Look.

func runLook(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	start := args[1]
	if err := r.checkStart(start); err != nil {
		return err
	}
	w := env.Stdout
	branch, err := r.git("branch", "--show-current")
	if err != nil {
		return err
	}
	if branch == "" {
		branch = "(detached HEAD)"
	}
	fmt.Fprintf(w, "workspace: %s\nbranch: %s\n", r.dir, branch)
	text, err := ledger.Read(r.path)
	var notRegular *workspace.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		text, err = "", nil
	case errors.As(err, &notRegular):
		fmt.Fprintf(w, "ledger: %s is %s, not a regular file: not followed, not read\n", r.path, notRegular.What)
		fmt.Fprintf(w, "Ledger: ledger=%s row=%s\nnext: Ledger row=%s\n", ledgerOther, ledgerRow(ledgerOther), ledgerRow(ledgerOther))
		return nil
	case err != nil:
		return exit.FileOf(exit.IO, err)
	}
	state, lines, bad := r.ledgerState(text)
	if text == "" {
		fmt.Fprintln(w, "ledger: none")
	} else {
		first, rest := ledger.Split(text)
		fmt.Fprintf(w, "ledger: %s (%d lines)\n", r.path, 1+len(rest))
		if state == ledgerOther {
			fmt.Fprintf(w, "  first line: %s\n", first)
		}
		if ep := ledger.Epoch(lines); len(ep) < len(lines) {
			fmt.Fprintf(w, "  restarted: %s; the %d lines before it are kept, the facts are read after it\n", lines[len(lines)-len(ep)-1].Text, len(lines)-len(ep)-1)
		}
	}
	for _, s := range bad {
		fmt.Fprintf(w, "  note: a line in no format of the ledger, passed over: %s\n", s)
	}
	for _, s := range ledger.Strays(lines, r.taskNumbers()) {
		fmt.Fprintf(w, "  note: lines of %s, which the plan has no heading for, passed over: was a task removed or the plan renumbered?\n", s)
	}
	if state == ledgerNone {
		for _, o := range r.moved() {
			fmt.Fprintf(w, "moved?: %s belongs to %s, which no longer exists\n", o.Dir, o.Plan)
		}
	}
	if flat, b, err := r.flatLedger(); err == nil {
		fmt.Fprintf(w, "old flat ledger: %s\n", flat)
		for _, l := range strings.Split(strings.TrimRight(b, "\n"), "\n") {
			fmt.Fprintf(w, "  | %s\n", l)
		}
	}
	var us []*ledger.Facts
	if state != ledgerOther {
		if us, err = r.units(lines); err != nil {
			return err
		}
	}
	if state == ledgerNone || rewritten(us) {
		// The numbers the human's answers name commits by: before the
		// run, and when the record must begin again.
		commits, err := r.since(start)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "commits since %s, oldest first: %d\n", start, len(commits))
		for i, c := range commits {
			fmt.Fprintf(w, "  %d %s\n", i+1, c.line)
		}
	}
	if state == ledgerThis {
		fmt.Fprintf(w, "Ledger: ledger=%s\n", state)
	} else {
		fmt.Fprintf(w, "Ledger: ledger=%s row=%s\n", state, ledgerRow(state))
	}
	if state == ledgerOther {
		fmt.Fprintf(w, "next: Ledger row=%s\n", ledgerRow(state))
		return nil
	}
	if state == ledgerThis {
		// A ledger adopted from the reference's workspace was never
		// started here: every dispatch names the constraints file.
		if err := r.ensureConstraints(); err != nil {
			return err
		}
	}
	k := ledger.Side(lines)
	if k > 1 {
		fmt.Fprintf(w, "side: at most %d tasks at a time, each in its own worktree\n", k)
	}
	next := ""
	var first *ledger.Facts
	for _, u := range us {
		r.printUnit(u)
		if first == nil && u.Row != ledger.RowDone {
			first = u
			next = u.Unit + " row=" + u.Row.String()
		}
	}
	if k > 1 {
		n, err := r.sideNext(us, k)
		if err != nil {
			return err
		}
		if n != "" {
			next = n
		}
	}
	batches, err := r.proposals(us)
	if err != nil {
		return err
	}
	for _, ts := range batches {
		fmt.Fprintln(w, proposalLine(ts))
	}
	if first != nil && first.Row == ledger.RowImplement && first.Task != "" {
		// An implementer to dispatch after a compaction: what earlier
		// tasks settled, as Start task N printed it.
		r.printSettled(lines, first.Unit)
	}
	if state == ledgerNone {
		next = "Ledger row=" + ledgerRow(state).String()
		if q := sideQuestion(us, batches); q != "" {
			fmt.Fprintln(w, q)
		}
	}
	fmt.Fprintf(w, "next: %s\n", next)
	return nil
}

// sideNext is next: with tasks side by side: every task in flight (but
// one that waits to join alone, said on a waits: line), then each task
// that may start beside them (its waits done) while there is room, by
// its row; "" when none (the run goes on as one at a time would: Final).
func (r *run) sideNext(us []*ledger.Facts, k int) (string, error) {
	var out []string
	fl := inFlight(us, "")
	waiting := false
	for _, u := range fl {
		why, err := r.joinsAlone(us, u)
		if err != nil {
			return "", err
		}
		if why != "" {
			// Not to act on until the others have joined: said under
			// the unit, left out of next.
			fmt.Fprintf(r.env.Stdout, "waits: %s %s\n", u.Unit, why)
			waiting = true
			continue
		}
		out = append(out, u.Unit+" row="+u.Row.String())
	}
	room := k - working(fl)
	if waiting {
		room = 0 // no task starts while one waits to join alone
	}
	for _, u := range us {
		if room <= 0 || u.Row != ledger.RowStart || u.Task == "" {
			continue
		}
		ready := true
		for _, n := range u.Needs {
			if w := find(us, ledger.UnitName(n)); w != nil && w.Row != ledger.RowDone {
				ready = false
			}
		}
		if ready {
			out = append(out, u.Unit+" row="+u.Row.String())
			room--
		}
	}
	return strings.Join(out, ", "), nil
}

// sideQuestion is the question for the human before Task 1 when the
// plan's graph lets two tasks run side by side: the first task that does
// not wait for every earlier one, and one it does not wait for. Two tasks
// look proposes to batch are no such pair: one implementer does both.
func sideQuestion(us []*ledger.Facts, batches [][]string) string {
	batch := map[string]int{}
	for i, b := range batches {
		for _, n := range b {
			batch[n] = i + 1
		}
	}
	var earlier []string
	for _, u := range us {
		if u.Task == "" {
			break
		}
		for _, e := range earlier {
			if !slices.Contains(u.Needs, e) && (batch[e] == 0 || batch[e] != batch[u.Task]) {
				return fmt.Sprintf("side?: Tasks %s and %s could run side by side (needs=): ask the human how many tasks at a time (3 suggested; 1: one at a time)", e, u.Task)
			}
		}
		earlier = append(earlier, u.Task)
	}
	return ""
}

// rewritten reports a unit at row rewritten.
func rewritten(us []*ledger.Facts) bool {
	for _, u := range us {
		if u.Row == ledger.RowRewritten {
			return true
		}
	}
	return false
}

func ledgerRow(state string) ledger.Row {
	return ledger.Pick(map[string]string{"ledger": state})
}

func (r *run) taskNumbers() []string {
	var ns []string
	for _, t := range r.tasks {
		ns = append(ns, t.Number)
	}
	return ns
}

// sinceCommit is one commit since the start branch.
type sinceCommit struct{ sha, line string }

// since lists the commits in START_BRANCH..HEAD, oldest first.
func (r *run) since(start string) ([]sinceCommit, error) {
	out, err := r.git("log", "--reverse", "--format=%H %h %s", "--end-of-options", start+"..HEAD", "--")
	if err != nil {
		return nil, err
	}
	var cs []sinceCommit
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		sha, rest, _ := strings.Cut(l, " ")
		cs = append(cs, sinceCommit{sha: sha, line: rest})
	}
	return cs, nil
}
