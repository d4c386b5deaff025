package sddledger

import (
	"fmt"
	"strings"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// join joins a task side by side into the feature branch at its close,
// under the ledger's lock: a fast-forward where the feature branch is
// still where the task began (or an ancestor of its branch), else a merge
// commit; never a rebase or a cherry-pick, which would leave the reviewed
// shas the ledger records on no branch. It returns the joined head, or
// the lines that stop the unit instead (s.stop set):
//   - a conflict: the merge is undone, the feature branch is as it was,
//     and the conflict is a finding of the unit, for its implementer to
//     resolve in its worktree (merging the feature branch into its own),
//     reviewed as a fix round;
//   - a worktree with changes not committed, a main checkout that moved
//     or has changes of its own, another merge under way, a merge git
//     refused: BLOCKED, saying what to do.
//
// A join cut after its merge and before its lines (a kill) is found
// done on the next close, and one cut in the middle of the merge is
// undone and made again: nothing is ever joined half.
func (s *stepRun) join() (joined string, merged bool, stop []string, err error) {
	u, wt := s.u, s.worktree(s.u.Task)
	tip, err := s.git("rev-parse", "--verify", "refs/heads/"+u.Branch)
	if err != nil {
		return "", false, nil, err
	}
	if !s.isWorktreeOf(wt, u.Branch) {
		return "", false, s.block(fmt.Sprintf("its worktree %s is gone or not on its branch %s; its reviewed commits are on the branch: git worktree add %s %s makes it again", wt, u.Branch, wt, u.Branch)), nil
	}
	if dirty, err := s.git("-C", wt, "status", "--porcelain"); err != nil {
		return "", false, nil, err
	} else if dirty != "" {
		return "", false, s.block(fmt.Sprintf("its worktree %s has changes no commit holds (%s), which the join would leave behind: commit them for review or take them back, then unblock", wt, changedFiles(dirty))), nil
	}
	if mh, err := s.git("rev-parse", "--verify", "--quiet", "MERGE_HEAD"); err == nil {
		if mh != tip {
			return "", false, s.block("a merge is under way in the main checkout, not this task's: finish it or git merge --abort, then unblock"), nil
		}
		// This task's join, cut in the middle: undone, and made again.
		if out, err := s.gitQuiet("merge", "--abort"); err != nil {
			return "", false, s.block("its join, cut in the middle, cannot be undone: " + firstLine(out)), nil
		}
	}
	want := featureHead(s.lines)
	head, err := s.head()
	if err != nil {
		return "", false, nil, err
	}
	if head != want && s.joinedAlready(head, want, tip) {
		return head, head != tip, nil, nil
	}
	if why, err := s.mainMoved(); err != nil || why != "" {
		if err != nil {
			return "", false, nil, err
		}
		return "", false, s.block(why), nil
	}
	args := []string{"merge", "--ff-only", "--quiet", "refs/heads/" + u.Branch}
	if !s.isAncestor(head, tip) {
		title := s.PlanTitles()[u.Task]
		args = []string{"merge", "--no-ff", "--no-edit", "--quiet", "-m", fmt.Sprintf("Join Task %s (sdd): %s", u.Task, title), "refs/heads/" + u.Branch}
	}
	out, err := s.gitQuiet(args...)
	if err == nil {
		joined, err := s.head()
		return joined, joined != tip, nil, err
	}
	if s.ctx.Err() != nil {
		return "", false, nil, err
	}
	conflicts, _ := s.git("diff", "--name-only", "--diff-filter=U")
	if _, err := s.git("rev-parse", "--verify", "--quiet", "MERGE_HEAD"); err == nil {
		if out, err := s.gitQuiet("merge", "--abort"); err != nil {
			return "", false, s.block("its join failed and cannot be undone: " + firstLine(out) + "; the main checkout needs a person"), nil
		}
	}
	if conflicts == "" {
		return "", false, s.block(fmt.Sprintf("git refused to join %s: %s", u.Branch, firstLine(out))), nil
	}
	feature, _ := s.git("branch", "--show-current")
	f := ledger.Finding{ID: fmt.Sprintf("F%d", maxID(u)+1), Text: fmt.Sprintf(
		"joining conflicts with %s at %s in %s: in the worktree %s, merge %s into %s and resolve it",
		feature, short7(head), strings.ReplaceAll(conflicts, "\n", ", "), wt, feature, u.Branch)}
	if err := ledger.CheckFinding("the conflict", f.Text); err != nil {
		return "", false, s.block(fmt.Sprintf("joining %s conflicts with %s", u.Branch, feature)), nil
	}
	s.stop = exit.Ownf(OutOfStep, "%s: the join was undone (%s is as it was): %s; recorded as finding %s, for a fix round", s.name, feature, f.Text, f.ID)
	return "", false, []string{ledger.FormatFinding(s.name, f)}, nil
}

// joinedAlready says whether head is this task's join made already (a
// close cut after its merge): the tip itself, fast-forwarded from the
// feature head the ledger saw, or a merge of the tip into it.
func (s *stepRun) joinedAlready(head, was, tip string) bool {
	if head == tip {
		return s.isAncestor(was, tip)
	}
	parents, err := s.git("rev-list", "--parents", "-n", "1", head)
	return err == nil && parents == head+" "+was+" "+tip
}

func (r *run) isAncestor(a, b string) bool {
	_, err := r.git("merge-base", "--is-ancestor", a, b)
	return err == nil
}

// unjoin removes a joined task's worktree and branch, once its lines are
// in: what is left (a worktree git will not remove) is said, never
// forced, and costs nothing but disk.
func (s *stepRun) unjoin(branch, wt string) func() error {
	return func() error {
		if out, err := s.gitQuiet("worktree", "remove", wt); err != nil {
			fmt.Fprintf(s.env.Stderr, "sdd-ledger: %s joined; its worktree %s stays: %s\n", s.name, wt, firstLine(out))
			return nil
		}
		if out, err := s.gitQuiet("branch", "-d", branch); err != nil {
			fmt.Fprintf(s.env.Stderr, "sdd-ledger: %s joined; its branch %s stays: %s\n", s.name, branch, firstLine(out))
		}
		return nil
	}
}
