package sddledger

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// carry: the human's answer that this plan moved from the plan an old
// workspace belongs to.

func runCarry(ctx context.Context, env *cliapp.Env, args []string) error {
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	old := args[1]
	var orphan *movedFrom
	moved := r.moved()
	for i, o := range moved {
		if sameDir(o.Dir, old) {
			orphan = &moved[i]
		}
	}
	if orphan == nil {
		return exit.Ownf(OutOfStep, "%s is not a workspace of a plan that no longer exists beside %s: nothing to carry over", old, r.dir)
	}
	// This plan's own workspace must not have begun: it holds its marker,
	// and at most a ledger that is empty or only its first line.
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return exit.FileOf(exit.IO, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case workspace.MarkerName:
		case ledger.FileName:
			text, err := ledger.Read(r.path)
			if nr := r.notRegular(err); nr != nil {
				return nr
			}
			if err != nil {
				return exit.FileOf(exit.IO, err)
			}
			if state, lines, _ := r.ledgerState(text); state != ledgerNone || len(lines) > 0 {
				if state == ledgerOther {
					return r.foreign(text)
				}
				return exit.Ownf(OutOfStep, "%s: this plan's run has begun; carrying %s over would mix two records", r.path, orphan.Dir)
			}
		default:
			return exit.Ownf(OutOfStep, "%s holds %s: this plan's run has begun; carrying %s over would mix two records", r.dir, e.Name(), orphan.Dir)
		}
	}
	// The old workspace becomes this plan's, where it is: its ledger under
	// a first line naming this plan (the old lines after it, as they
	// were), its marker naming this plan; this run's fresh workspace goes.
	oldLedger := commands.InWorkspace(orphan.Dir, ledger.FileName)
	lines := []string{ledger.Identity(r.id.ID())}
	if text, err := ledger.Read(oldLedger); err == nil {
		first, rest := ledger.Split(text)
		if _, ok := ledger.IdentityPlan(first); !ok {
			rest = append([]string{first}, rest...)
		}
		for _, l := range rest {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, strings.TrimSuffix(l, "\r"))
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return exit.FileOf(exit.IO, err)
	}
	f, err := atomicfile.Create(oldLedger)
	if err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	if err := f.Commit(); err != nil {
		return exit.File(exit.IO, oldLedger, err)
	}
	if err := workspace.Remark(orphan.Dir, r.id); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	if err := removeAll(r.dir); err != nil {
		return exit.FileOf(exit.IO, err)
	}
	if orphan.elsewhere {
		// Under its old basename's name, which this plan's resolution
		// never tries: it takes the name of the workspace just removed.
		if err := os.Rename(orphan.Dir, r.dir); err != nil {
			return exit.FileOf(exit.IO, err)
		}
		fmt.Fprintf(env.Stdout, "carried %s over as %s: it is %s's workspace now (%d ledger lines kept)\nLedger: ledger=this\n", orphan.Dir, r.dir, r.plan, len(lines)-1)
		return nil
	}
	fmt.Fprintf(env.Stdout, "carried %s over: it is %s's workspace now (%d ledger lines kept); removed %s\nLedger: ledger=this\n", orphan.Dir, r.plan, len(lines)-1, r.dir)
	return nil
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
