package commands

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// SDDWorkspace prints (creating it if needed) the plan's workspace.
var SDDWorkspace = cliapp.Command{
	Name:    "sdd-workspace",
	Args:    "PLAN_FILE",
	MinArgs: 1,
	MaxArgs: 1,
	Description: `Print the absolute path of PLAN_FILE's workspace, <repo>/.superpowers/sdd/<plan-basename>/,
creating it and the self-ignoring .superpowers/sdd/.gitignore. A plan that shares its
basename with another plan's workspace (its plan-path marker, or the first line of
its progress.md, names another plan) gets <plan-basename>-<parent-dir>[-N]; when
that plan no longer exists, a note on stderr names the workspace passed over, in case
PLAN_FILE moved from there.

Exit status: 0 success; 2 usage, missing plan or unusable name; 1 the workspace
cannot be created; git's own status when git fails (128 outside a repository);
127 when git is not on PATH, 126 when it cannot be executed.`,
	Run: func(ctx context.Context, env *cliapp.Env, args []string) error {
		plan := args[0]
		if err := CheckPlan(plan); err != nil {
			return err
		}
		dir, orphans, err := workspace.Resolve(ctx, env.Git, plan)
		if err != nil {
			return err
		}
		// Which workspace a moved plan left behind only a human can say;
		// the skill asks, from this line. (task-brief and review-package
		// stay quiet: an agent calls them once per task.)
		for _, o := range orphans {
			fmt.Fprintf(env.Stderr, "%s: note: %s belongs to %s, which no longer exists; if %s moved from there, its ledger is %s%c%s\n",
				env.Prog, o.Dir, o.Plan, plan, o.Dir, filepath.Separator, workspace.LedgerName)
		}
		_, err = fmt.Fprintln(env.Stdout, dir)
		return err
	},
}
