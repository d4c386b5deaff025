package commands

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/plantask"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// TaskBrief extracts one task of a plan into a brief file.
var TaskBrief = cliapp.Command{
	Name:    "task-brief",
	Args:    "PLAN_FILE TASK_NUMBER [OUTFILE]",
	MinArgs: 2,
	MaxArgs: 3,
	Description: `Write the text of task TASK_NUMBER of PLAN_FILE (from its "## Task N" heading to the
next task heading, fenced code blocks respected) to OUTFILE, by default
<workspace>/task-<N>-brief.md, and print "wrote <OUTFILE>: <L> lines".
The file is replaced atomically: on failure an existing OUTFILE is left as it was.

Exit status: 0 success; 2 usage, missing or unreadable plan, or OUTFILE is the plan;
3 the task is not in the plan; 1 OUTFILE cannot be written; without OUTFILE,
the statuses of sdd-workspace.`,
	Run: runTaskBrief,
}

func runTaskBrief(ctx context.Context, env *cliapp.Env, args []string) error {
	plan, n := args[0], args[1]
	if err := CheckPlan(plan); err != nil {
		return err
	}
	var out string
	if len(args) == 3 {
		out = args[2]
	} else {
		dir, _, err := workspace.Resolve(ctx, env.Git, plan)
		if err != nil {
			return err
		}
		out = InWorkspace(dir, "task-"+n+"-brief.md")
	}
	// The output is opened before the plan, as the script's redirection is
	// opened before awk reads: an unwritable OUTFILE wins over an
	// unreadable plan.
	f, err := OpenOutput(out, plan)
	if err != nil {
		return err
	}
	defer f.Abort()
	pf, err := os.Open(plan)
	if err != nil {
		return exit.File(exit.Usage, plan, err)
	}
	defer pf.Close()

	size := int64(-1)
	if fi, err := pf.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	dst := TaggedWriter{W: f}
	lines, err := plantask.ExtractSized(taggedReader{contextReader{ctx, pf}}, dst, n, size)
	var tooLong *plantask.HeadingTooLongError
	switch {
	case ctx.Err() != nil:
		return exit.Silent(exit.IO, ctx.Err())
	case errors.As(err, &tooLong):
		return exit.File(exit.Usage, plan, tooLong)
	case IsWriteError(err):
		return exit.File(exit.IO, out, err)
	case err != nil:
		return exit.File(exit.Usage, plan, err)
	}
	if lines == 0 {
		return exit.Errorf(exit.NotFound, "task %s not found in %s (no heading matching 'Task %s')", n, plan, n)
	}
	if err := Commit(f, out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "wrote %s: %d lines\n", out, lines)
	return err
}
