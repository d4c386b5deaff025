package sddledger

import (
	"fmt"
	"os"
	"strings"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
)

// A batch: consecutive small tasks of one shape that one implementer does,
// one review judges and one close completes (docs/protocol.md, "Batches of
// small tasks"). The controller decides; the commands propose one from
// the tasks' texts (look) and refuse one a mechanical rule forbids (task
// N LAST).

// batchText bounds how much of a task's text is read to judge it: a task
// fit for a batch is short.
const batchText = 16 << 10

// batch reads N..LAST as the tasks of a batch, in plan order: each at row
// start (a task not begun, in no batch), at most plantask.MaxBatch, each
// one the mechanical signals let in.
func (r *run) batch(us []*ledger.Facts, first, last string) ([]string, error) {
	from, to, err := r.batchRange(first, last)
	if err != nil {
		return nil, err
	}
	if to-from+1 > plantask.MaxBatch {
		return nil, exit.Ownf(OutOfStep, "Tasks %s to %s are %d tasks: a batch holds at most %d", first, last, to-from+1, plantask.MaxBatch)
	}
	var members []string
	for _, t := range r.tasks[from : to+1] {
		members = append(members, t.Number)
		if u := find(us, ledger.UnitName(t.Number)); u.Row != ledger.RowStart {
			return nil, outOfStep(u, "a task not begun, for a batch")
		}
	}
	why, err := r.unbatchable(members)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if why[m] != "" {
			return nil, exit.Ownf(OutOfStep, "Task %s cannot join a batch: %s; start it on its own (sdd-ledger task PLAN_FILE %s)", m, why[m], m)
		}
	}
	return members, nil
}

// batchRange is where Tasks first to last are in the plan's order; a
// last the plan has not, or not after first, is a usage error.
func (r *run) batchRange(first, last string) (from, to int, err error) {
	from, to = -1, -1
	for i, t := range r.tasks {
		if t.Number == first {
			from = i
		}
		if t.Number == last {
			to = i
		}
	}
	switch {
	case to < 0:
		return 0, 0, exit.Ownf(exit.Usage, "%s has no Task %s (its tasks: %s)", r.plan, last, r.taskList())
	case to <= from:
		return 0, 0, exit.Ownf(exit.Usage, "LAST %s does not come after Task %s in %s: a batch is Tasks N to LAST, in plan order", last, first, r.plan)
	}
	return from, to, nil
}

// unbatchable reads the texts of tasks in one pass of the plan and says,
// of each, why it cannot join a batch ("" when it can).
func (r *run) unbatchable(tasks []string) (map[string]string, error) {
	f, err := os.Open(r.plan)
	if err != nil {
		return nil, exit.File(exit.Usage, r.plan, err)
	}
	defer f.Close()
	texts, cut, err := plantask.Texts(f, tasks, batchText)
	if err != nil {
		return nil, exit.File(exit.Usage, r.plan, err)
	}
	why := map[string]string{}
	for _, t := range tasks {
		why[t] = plantask.Unbatchable(texts[t], cut[t])
	}
	return why, nil
}

// batchBrief writes the batch's brief, <workspace>/task-<N>-brief.md,
// each task's text in plan order, as task-brief writes one task's; it
// prints "wrote <brief>: <L> lines".
func (r *run) batchBrief(members []string) error {
	pf, err := os.Open(r.plan)
	if err != nil {
		return exit.File(exit.Usage, r.plan, err)
	}
	texts, _, err := plantask.Texts(pf, members, batchText)
	pf.Close()
	if err != nil {
		return exit.File(exit.Usage, r.plan, err)
	}
	out := commands.InWorkspace(r.dir, "task-"+members[0]+"-brief.md")
	f, err := commands.OpenOutput(out, r.plan)
	if err != nil {
		return err
	}
	defer f.Abort()
	var b strings.Builder
	for _, m := range members {
		b.WriteString(texts[m])
		if t := texts[m]; t != "" && !strings.HasSuffix(t, "\n") {
			b.WriteByte('\n')
		}
	}
	if _, err := f.Write([]byte(b.String())); err != nil {
		return exit.File(exit.IO, out, err)
	}
	if err := commands.Commit(f, out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(r.env.Stdout, "wrote %s: %d lines\n", out, strings.Count(b.String(), "\n"))
	return err
}

// proposals are the batches look proposes: each run of consecutive tasks
// at row start that the mechanical signals let in, cut at
// plantask.MaxBatch, of two tasks or more, in plan order. The controller
// takes one whole or in part, or none; task N LAST checks it again.
func (r *run) proposals(us []*ledger.Facts) ([][]string, error) {
	var starts []string
	for _, u := range us {
		if u.Task != "" && u.Row == ledger.RowStart {
			starts = append(starts, u.Task)
		}
	}
	if len(starts) < 2 {
		return nil, nil
	}
	why, err := r.unbatchable(starts)
	if err != nil {
		return nil, err
	}
	var out [][]string
	var run []string
	flush := func() {
		if len(run) >= 2 {
			out = append(out, run)
		}
		run = nil
	}
	for _, u := range us {
		if u.Task == "" || u.Row != ledger.RowStart || why[u.Task] != "" {
			flush()
			continue
		}
		if len(run) == plantask.MaxBatch {
			flush()
		}
		run = append(run, u.Task)
	}
	flush()
	return out, nil
}

// proposalLine is look's line for a proposed batch.
func proposalLine(tasks []string) string {
	return "batch?: Tasks " + strings.Join(tasks, ", ") + " (each short, its one or two files named, no test of its own, nothing it produces for later tasks)"
}
