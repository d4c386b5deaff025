package sddledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
)

// The verbs that begin a run: start, and the human's answers about an
// earlier run's commits (earlier-done, earlier-review).

// start

func runStart(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	identity := ledger.Identity(r.id.ID())
	env.CatchSignals()
	lf, err := ledger.Create(ctx, r.path, identity)
	if errors.Is(err, fs.ErrExist) {
		lf, err = ledger.Open(r.path)
		if nr := r.notRegular(err); nr != nil {
			return nr
		}
		if err != nil {
			return exit.File(exit.IO, r.path, err)
		}
		// text, err = (not :=): the first line's Append below sets the
		// err that is checked after this block.
		var text string
		text, err = lf.Text()
		if err != nil {
			lf.Close()
			return exit.FileOf(exit.IO, err)
		}
		switch state, _, _ := r.ledgerState(text); {
		case state == ledgerOther:
			lf.Close()
			return r.foreign(text)
		case state == ledgerThis:
			lf.Close()
			return exit.Ownf(OutOfStep, "%s: the run has begun (the ledger has more than its first line): run look", r.path)
		case text == "":
			err = lf.Append(ctx, identity)
		default:
			if first, _ := ledger.Split(text); !isIdentity(first) {
				// Blank lines only: the first line cannot become the
				// identity without an edit, and every later verb would
				// ask for start again.
				lf.Close()
				return exit.Ownf(OutOfStep, "%s holds blank lines only, no first line naming a plan: start does not edit a ledger; remove the file and start again", r.path)
			}
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	defer lf.Close()
	out, n, err := r.writeConstraints()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "started %s\nwrote %s: %d lines\nLedger: ledger=this\n", r.path, out, n)
	return nil
}

// constraintsName is the file every dispatch names for the plan's
// constraint sections.
const constraintsName = "constraints.md"

// writeConstraints writes <workspace>/constraints.md, the plan's
// constraint sections, as the drop-ins write outputs.
func (r *run) writeConstraints() (out string, lines int, err error) {
	out = commands.InWorkspace(r.dir, constraintsName)
	f, err := commands.OpenOutput(out, r.plan)
	if err != nil {
		return "", 0, err
	}
	defer f.Abort()
	pf, err := os.Open(r.plan)
	if err != nil {
		return "", 0, exit.File(exit.Usage, r.plan, err)
	}
	defer pf.Close()
	cw := &countingWriter{w: commands.TaggedWriter{W: f}}
	if err := plantask.Constraints(pf, cw); err != nil {
		if commands.IsWriteError(err) {
			return "", 0, exit.File(exit.IO, out, err)
		}
		return "", 0, exit.File(exit.Usage, r.plan, err)
	}
	if err := commands.Commit(f, out); err != nil {
		return "", 0, err
	}
	return out, cw.lines, nil
}

// ensureConstraints writes constraints.md when a started ledger's
// workspace lacks it (a ledger adopted from the reference's workspace,
// which start never ran on).
func (r *run) ensureConstraints() error {
	if _, err := os.Lstat(commands.InWorkspace(r.dir, constraintsName)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	out, n, err := r.writeConstraints()
	if err != nil {
		return err
	}
	fmt.Fprintf(r.env.Stdout, "wrote %s: %d lines\n", out, n)
	return nil
}

func isIdentity(line string) bool {
	_, ok := ledger.IdentityPlan(line)
	return ok
}

type countingWriter struct {
	w     io.Writer
	lines int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += strings.Count(string(p), "\n")
	return c.w.Write(p)
}
