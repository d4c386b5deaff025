package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
	"github.com/sdd-go/sdd-go/internal/reviewpkg"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// ReviewPackage writes the review package of a commit range.
var ReviewPackage = cliapp.Command{
	Name:    "review-package",
	Args:    "PLAN_FILE BASE HEAD [OUTFILE]",
	MinArgs: 3,
	MaxArgs: 4,
	Description: `Write the commits, the stat summary and the -U10 diff of BASE..HEAD to OUTFILE, by
default <workspace>/review-<short BASE>..<short HEAD>.diff, and print
"wrote <OUTFILE>: <C> commit(s), <B> bytes". Use the task's recorded BASE,
never HEAD~1. The file is replaced atomically: on failure nothing is left.

Exit status: 0 success; 2 usage, missing plan, bad BASE or HEAD, or OUTFILE is
the plan; 1 OUTFILE cannot be written; git's own status when git fails
(129 for a blob as BASE or HEAD); without OUTFILE, the statuses of sdd-workspace.`,
	Run: runReviewPackage,
}

func runReviewPackage(ctx context.Context, env *cliapp.Env, args []string) error {
	plan, base, head := args[0], args[1], args[2]
	if err := checkPlan(plan); err != nil {
		return err
	}
	if err := verify(ctx, env, "BASE", base); err != nil {
		return err
	}
	if err := verify(ctx, env, "HEAD", head); err != nil {
		return err
	}
	var out string
	if len(args) == 4 {
		out = args[3]
	} else {
		dir, err := workspace.Resolve(ctx, env.Git, plan)
		if err != nil {
			return err
		}
		b, err := short(ctx, env.Git, base)
		if err != nil {
			return err
		}
		h, err := short(ctx, env.Git, head)
		if err != nil {
			return err
		}
		out = inWorkspace(dir, "review-"+b+".."+h+".diff")
	}
	if err := refuseSelf(out, plan); err != nil {
		return err
	}
	f, err := createOutput(out)
	if err != nil {
		return err
	}
	defer f.Abort()

	size, err := reviewpkg.Write(ctx, env.Git, f.File, base, head)
	if err != nil {
		return packageError(ctx, out, err)
	}
	// Counted before the package is published: a failure here leaves no
	// package behind.
	count, err := env.Git.Output(ctx, "rev-list", "--count", base+".."+head)
	if err != nil {
		return packageError(ctx, out, err)
	}
	if err := commit(f); err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "wrote %s: %s commit(s), %d bytes\n", out, git.TrimCommandSubstitution(count), size)
	return err
}

// verify applies `git rev-parse --verify --quiet <rev>`. A revision that
// looks like an option is never handed to git: it is just a bad revision.
func verify(ctx context.Context, env *cliapp.Env, what, rev string) error {
	bad := exit.Errorf(exit.Usage, "bad %s: %s", what, rev)
	if strings.HasPrefix(rev, "-") {
		return bad
	}
	err := env.Git.Run(ctx, io.Discard, "rev-parse", "--verify", "--quiet", rev)
	var ge *git.Error
	if errors.As(err, &ge) && ge.NotFound {
		fmt.Fprintf(env.Stderr, "review-package: git: command not found (git must be on PATH)\n")
	}
	if err != nil {
		return bad
	}
	return nil
}

// short is what `git rev-parse --short <rev>` prints: its length follows
// the repository (core.abbrev, object count).
func short(ctx context.Context, g *git.Runner, rev string) (string, error) {
	out, err := g.Output(ctx, "rev-parse", "--short", rev)
	if err != nil {
		return "", err
	}
	return git.TrimCommandSubstitution(out), nil
}

// packageError maps a failure while writing the package: the output's own
// write failure is exit 1 naming it; git's failure keeps git's status.
func packageError(ctx context.Context, out string, err error) error {
	if ctx.Err() != nil {
		return exit.Silent(exit.IO, ctx.Err())
	}
	var we *git.WriteError
	if errors.As(err, &we) {
		return exit.Path(exit.IO, out, err)
	}
	return err
}
