package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

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
	return writePackage(ctx, env, args, "")
}

// TaskPackage writes the package of base..head to out as review-package
// does, leaving out exclude (a path from the repository's top; "" for
// none): sdd-ledger's package of a unit's work, which leaves out the plan
// (its edits are the human's, not the task's). base and head are commits
// the ledger has checked, out the file in its workspace it names: none of
// review-package's own checks and lookups is asked of git again.
func TaskPackage(ctx context.Context, env *cliapp.Env, plan, base, head, out, exclude string) error {
	return packageTo(ctx, env, plan, base, head, out, exclude)
}

func writePackage(ctx context.Context, env *cliapp.Env, args []string, exclude string) error {
	plan, base, head := args[0], args[1], args[2]
	if err := CheckPlan(plan); err != nil {
		return err
	}
	// Git runs one call at a time, in the script's order, so that its
	// messages come in that order, up to the package, whose calls
	// reviewpkg runs side by side where that changes nothing one can see.
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
		dir, _, err := workspace.Resolve(ctx, env.Git, plan)
		if err != nil {
			return err
		}
		b, err := env.Git.Output(ctx, "rev-parse", "--short", base)
		if err != nil {
			return err
		}
		h, err := env.Git.Output(ctx, "rev-parse", "--short", head)
		if err != nil {
			return err
		}
		out = InWorkspace(dir, PackageName(git.TrimCommandSubstitution(b), git.TrimCommandSubstitution(h)))
	}
	return packageTo(ctx, env, plan, base, head, out, exclude)
}

// PackageName is the name of the package of base..head in a workspace,
// from the two revisions as git abbreviates them.
func PackageName(base7, head7 string) string { return "review-" + base7 + ".." + head7 + ".diff" }

// packageTo writes the package of base..head to out and says so.
func packageTo(ctx context.Context, env *cliapp.Env, plan, base, head, out, exclude string) error {
	f, err := OpenOutput(out, plan)
	if err != nil {
		return err
	}
	defer f.Abort()
	file, err := f.OSFile()
	if err != nil {
		return exit.File(exit.IO, out, err)
	}
	// The commits are counted before the package is published: a failure
	// there leaves no package behind.
	size, n, err := reviewpkg.Write(ctx, env.Git, reviewpkg.Output{File: file, Scratch: f.Scratch, Exclude: exclude}, base, head)
	if err != nil {
		return packageError(ctx, out, err)
	}
	if err := Commit(f, out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "wrote %s: %s commit(s), %d bytes\n", out, n, size)
	return err
}

// IsOption reports whether a revision would read as an option to git. Such
// a revision is never handed to git. (rev-parse, which checks and shortens
// revisions, learned --end-of-options only in git 2.30, and before that
// takes it as a flag and refuses every revision; so this check, not that
// option, is what keeps the revision out of its options.)
func IsOption(rev string) bool { return strings.HasPrefix(rev, "-") }

func BadRevision(what, rev string) error { return exit.Errorf(exit.Usage, "bad %s: %s", what, rev) }

// verify checks a revision as `git rev-parse --verify --quiet` does, and
// reports one that does not verify as `bad BASE: <rev>`, after whatever git
// said (or why git could not be started). A revision that would read as an
// option is bad without asking git: it never reaches any git call.
func verify(ctx context.Context, env *cliapp.Env, what, rev string) error {
	if IsOption(rev) {
		return BadRevision(what, rev)
	}
	_, err := env.Git.Output(ctx, "rev-parse", "--verify", "--quiet", rev)
	var ge *git.Error
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return err // stopped by our signal: the revision was not judged, and nothing is said
	case errors.As(err, &ge) && ge.Unstarted != "":
		env.Report(ge)
	}
	return BadRevision(what, rev)
}

// packageError maps a failure while writing the package: the output's own
// write failure is exit 1 naming it; git's failure keeps git's status.
func packageError(ctx context.Context, out string, err error) error {
	if ctx.Err() != nil {
		return exit.Silent(exit.IO, ctx.Err())
	}
	var we *git.WriteError
	if errors.As(err, &we) {
		return exit.File(exit.IO, out, err)
	}
	var ge *git.Error
	if errors.As(err, &ge) && ge.FileTooLarge() {
		// Git wrote the file itself and met the size limit there.
		return exit.File(exit.IO, out, syscall.EFBIG)
	}
	return err
}
