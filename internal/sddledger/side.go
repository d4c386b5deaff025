package sddledger

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// Tasks side by side (docs/spec.md, "Tasks side by side"). Once the human
// has answered how many at a time, every task the run starts works in a
// git worktree of its own, on a branch of its own made from the feature
// branch's head, in the workspace (git-ignored, so invisible to the main
// checkout's git status and to the project's tools). The feature branch
// then moves only when a task joins it, at its close, under the ledger's
// lock: that is what lets the command tell an implementer that escaped
// its worktree (the feature branch or the main checkout moved) from one
// that did not.

// runSide records the human's answer: at most K tasks at a time.
func runSide(ctx context.Context, env *cliapp.Env, args []string) error {
	k, err := strconv.Atoi(args[1])
	if err != nil || k < 1 || k > 9 || strconv.Itoa(k) != args[1] {
		return exit.Ownf(exit.Usage, "K must be a number of tasks from 1 to 9, not %q", args[1])
	}
	r, err := openRun(ctx, env, args[0])
	if err != nil {
		return err
	}
	lf, _, err := r.open()
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := r.append(lf, ledger.FormatSide(k)); err != nil {
		return err
	}
	if k == 1 {
		_, err = fmt.Fprintln(env.Stdout, "side by side: no, one task at a time")
	} else {
		_, err = fmt.Fprintf(env.Stdout, "side by side: at most %d tasks at a time, each in its own worktree\n", k)
	}
	return err
}

// worktree is the path of task n's worktree: in the workspace.
func (r *run) worktree(n string) string {
	return commands.InWorkspace(r.dir, "task-"+n+"-worktree")
}

func (r *run) branch(n string) string { return ledger.BranchName(r.slug(), n) }

// slug is the workspace's name.
func (r *run) slug() string {
	i := strings.LastIndexAny(r.dir, `/\`)
	return r.dir[i+1:]
}

// inFlight are the tasks begun and not complete (a blocked one holds its
// worktree too), but unit.
func inFlight(us []*ledger.Facts, unit string) []*ledger.Facts {
	var out []*ledger.Facts
	for _, u := range us {
		if u.Task != "" && u.Unit != unit && u.Last != ledger.KindNone && u.Last != ledger.KindComplete && u.Last != ledger.KindBatched {
			out = append(out, u)
		}
	}
	return out
}

// working are the tasks of fl an agent works on: all but those joined,
// whose merge waits only for its check (row joined).
func working(fl []*ledger.Facts) int {
	n := 0
	for _, u := range fl {
		if u.Row != ledger.RowJoined {
			n++
		}
	}
	return n
}

func names(us []*ledger.Facts) string {
	ns := make([]string, len(us))
	for i, u := range us {
		ns[i] = strings.TrimPrefix(u.Unit, "Task ")
	}
	return strings.Join(ns, ", ")
}

// closing are the rows whose step closes the unit.
var closing = []ledger.Row{ledger.RowClose, ledger.RowCheck, ledger.RowRuled, ledger.RowRecordClose}

// leftFiles are the files task u, side by side, changed (its base to its
// branch) that its Files list does not declare; none for a task without
// a Files list (it waits for every earlier task, and every later one for
// it, already).
func (r *run) leftFiles(u *ledger.Facts) ([]string, error) {
	need := r.need(u.Task)
	if need.Files == nil || u.Branch == "" {
		return nil, nil
	}
	out, err := r.git(append([]string{"diff", "--name-only", "--no-renames", u.Base(), "refs/heads/" + u.Branch}, r.notPlan()...)...)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, f := range strings.Split(out, "\n") {
		if f != "" && !need.Declares(f) {
			left = append(left, f)
		}
	}
	return left, nil
}

// joinsAlone says why u, a task side by side whose next step closes it,
// waits: it changed files its Files list does not name, so its work may
// meet another's where no graph saw it coming; it joins alone, after the
// tasks in flight at work (of two such, the earlier in the plan first).
// "" when it does not wait.
func (r *run) joinsAlone(us []*ledger.Facts, u *ledger.Facts) (string, error) {
	if u.Branch == "" || !slices.Contains(closing, u.Row) {
		return "", nil
	}
	left, err := r.leftFiles(u)
	if err != nil || len(left) == 0 {
		return "", err
	}
	var after []*ledger.Facts
	for _, o := range inFlight(us, u.Unit) {
		if o.Row == ledger.RowJoined {
			continue
		}
		if slices.Index(us, o) > slices.Index(us, u) && slices.Contains(closing, o.Row) {
			if l, err := r.leftFiles(o); err != nil {
				return "", err
			} else if len(l) > 0 {
				continue // a later task that waits too: this one goes first
			}
		}
		after = append(after, o)
	}
	if len(after) == 0 {
		return "", nil
	}
	if len(left) > 3 {
		left = append(left[:3], fmt.Sprintf("%d more", len(left)-3))
	}
	return fmt.Sprintf("it changed files its Files list does not name (%s): it joins alone, after Tasks %s", strings.Join(left, ", "), names(after)), nil
}

// anyJoinsAlone is the first task of us that waits to join alone, and
// why; nil when none does.
func (r *run) anyJoinsAlone(us []*ledger.Facts) (*ledger.Facts, string, error) {
	for _, u := range us {
		why, err := r.joinsAlone(us, u)
		if err != nil || why != "" {
			return u, why, err
		}
	}
	return nil, "", nil
}

// fitsBeside says whether task s.u may start with the answer k > 1: every
// task it waits for (needs=) has joined, fewer than k are in flight, and
// each of those works in a worktree of its own.
func (s *stepRun) fitsBeside(k int) error {
	for _, n := range s.u.Needs {
		if w := find(s.us, ledger.UnitName(n)); w != nil && w.Row != ledger.RowDone {
			return exit.Ownf(OutOfStep, "%s waits for %s (needs=%s), which is not complete (row %s): it starts once that task has joined", s.u.Unit, w.Unit, strings.Join(s.u.Needs, ","), w.Row)
		}
	}
	fl := inFlight(s.us, s.u.Unit)
	for _, u := range fl {
		if u.Branch == "" {
			return exit.Ownf(OutOfStep, "%s is under way on the feature branch itself (begun before the run went side by side, or a batch): a task starts beside it once it is complete", u.Unit)
		}
	}
	if w, why, err := s.anyJoinsAlone(s.us); err != nil {
		return err
	} else if w != nil {
		return exit.Ownf(OutOfStep, "%s %s: no task starts until it has joined", w.Unit, why)
	}
	if working(fl) >= k {
		return exit.Ownf(OutOfStep, "Tasks %s are in flight, as many as the human allowed at a time (%d): %s starts once one of them has joined", names(fl), k, s.u.Unit)
	}
	return nil
}

// beginBeside makes the task's worktree, on its branch, from the feature
// branch's head, and returns its lines: the brief's, base= and branch=.
// A worktree and branch left by a start that was cut before its lines
// were written (the branch still at that head, with no commit of its
// own) are taken as they are.
func (s *stepRun) beginBeside() ([]string, error) {
	head, err := s.head()
	if err != nil {
		return nil, err
	}
	if cur, _ := s.git("symbolic-ref", "--quiet", "HEAD"); cur == "" {
		return nil, exit.Ownf(OutOfStep, "the main checkout is on no branch (a detached HEAD): tasks side by side join a feature branch; check it out, then start again")
	}
	n, b, wt := s.u.Task, s.branch(s.u.Task), s.worktree(s.u.Task)
	if at, err := s.git("rev-parse", "--verify", "--quiet", "refs/heads/"+b); err == nil {
		if at != head || !s.isWorktreeOf(wt, b) {
			return nil, exit.Ownf(OutOfStep, "the branch %s exists already, and is not a worktree %s just made from %s: if its commits are no one's, remove it (git worktree remove, git branch -D), then start again", b, wt, short7(head))
		}
	} else if out, err := s.gitQuiet("worktree", "add", "-b", b, wt, head); err != nil {
		return nil, exit.Ownf(OutOfStep, "cannot make Task %s's worktree %s: %s", n, wt, firstLine(out))
	}
	out, err := s.begin(nil, head)
	if err != nil {
		return nil, err
	}
	if err := s.briefWorkIn(n); err != nil {
		return nil, err
	}
	s.after = append(s.after, func() error {
		_, err := fmt.Fprintf(s.env.Stdout, "worktree: %s (branch %s): its implementer works there only\n", wt, b)
		return err
	})
	return append(out, ledger.FormatBranch(s.name, b)), nil
}

// briefWorkIn ends task n's brief, side by side, with where its
// implementer works, as the dispatch says it too.
func (r *run) briefWorkIn(n string) error {
	path := commands.InWorkspace(r.dir, "task-"+n+"-brief.md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return exit.File(exit.IO, path, err)
	}
	if _, err := fmt.Fprintf(f, "\nWork in: %s (your own checkout: run git as git -C there, any other command after a cd to it)\n", r.worktree(n)); err != nil {
		f.Close()
		return exit.File(exit.IO, path, err)
	}
	return f.Close()
}

// isWorktreeOf says whether dir is a worktree whose HEAD is branch b.
func (r *run) isWorktreeOf(dir, b string) bool {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false
	}
	at, err := r.git("-C", dir, "symbolic-ref", "--quiet", "HEAD")
	return err == nil && at == "refs/heads/"+b
}

// featureHead is the feature branch's head as the ledger last saw it
// while tasks ran side by side: the base= of the task that last began
// side by side, or the last joined=, whichever came last.
func featureHead(lines []ledger.Line) string {
	head := ""
	base := map[string]string{}
	for _, l := range ledger.Epoch(lines) {
		switch l.Kind {
		case ledger.KindBase:
			base[l.Unit] = l.Value
		case ledger.KindBranch:
			head = base[l.Unit]
		case ledger.KindJoined:
			head = l.Value
		}
	}
	return head
}

// escaped says what moved that a task side by side must not have moved,
// "" when nothing did: its worktree gone or on another branch, its branch
// not descending from its base, the feature branch's head not where the
// ledger last saw it, or changes in the main checkout. Each is what an
// implementer that worked outside its worktree leaves, and each says what
// to do.
func (s *stepRun) escaped() (string, error) {
	u, wt := s.u, s.worktree(s.u.Task)
	if !s.isWorktreeOf(wt, u.Branch) {
		return fmt.Sprintf("its worktree %s is gone or not on its branch %s (its commits are on the branch: git worktree add %s %s makes it again)", wt, u.Branch, wt, u.Branch), nil
	}
	if _, err := s.git("merge-base", "--is-ancestor", u.Base(), "refs/heads/"+u.Branch); err != nil {
		if s.ctx.Err() != nil {
			return "", err
		}
		return fmt.Sprintf("its branch %s does not descend from its base %s (reset or rebased by hand?)", u.Branch, short7(u.Base())), nil
	}
	return s.mainMoved()
}

// mainMoved says how the main checkout moved since the ledger last saw
// it: its head, or changes of its own; "" when it did not.
func (s *stepRun) mainMoved() (string, error) {
	want := featureHead(s.lines)
	head, err := s.head()
	if err != nil {
		return "", err
	}
	if want != "" && head != want {
		subject, _ := s.git("log", "-1", "--format=%s", head)
		return fmt.Sprintf("the feature branch moved: the ledger last saw it at %s, it is at %s %q now; a commit on the main checkout is no task's work: move it to the task's branch or take it back, then unblock", short7(want), short7(head), subject), nil
	}
	changed, err := s.git(append([]string{"status", "--porcelain", "--untracked-files=no"}, s.notPlan()...)...)
	if err != nil {
		return "", err
	}
	if changed != "" {
		return fmt.Sprintf("the main checkout has changes no task committed (%s): commit them to the task's branch or take them back, then unblock", changedFiles(changed)), nil
	}
	return "", nil
}

// changedFiles are the paths of git status --porcelain's lines, at most
// three named.
func changedFiles(porcelain string) string {
	var fs []string
	for _, l := range strings.Split(porcelain, "\n") {
		if len(l) > 3 {
			fs = append(fs, l[3:])
		}
	}
	if len(fs) > 3 {
		return strings.Join(fs[:3], ", ") + fmt.Sprintf(" and %d more", len(fs)-3)
	}
	return strings.Join(fs, ", ")
}

// block returns the unit's BLOCKED line for why, and sets the step to
// fail with it once the line is in.
func (s *stepRun) block(why string) []string {
	s.stop = exit.Ownf(OutOfStep, "%s stopped: %s; recorded as BLOCKED, for the human", s.name, why)
	if ledger.CheckText("the reason", why) != nil {
		// A path or a commit subject that no line can hold (a line
		// break in a directory's name): the line says where to read why.
		why = "its step stopped for a reason no ledger line can hold; sdd-ledger printed it on stderr"
	}
	return []string{ledger.FormatBlocked(s.name, why)}
}

// gitQuiet runs git with its stdout and stderr in the output (a merge's
// story is the command's to tell, not git's to print). Each has a buffer
// of its own: the two are copied from their pipes side by side.
func (r *run) gitQuiet(args ...string) (string, error) {
	r.asked.forget() // it may change what the facts read
	var out, errs bytes.Buffer
	_, err := r.env.Git.Start(r.ctx, &out, &errs, args...).Wait()
	return strings.TrimSpace(out.String() + "\n" + errs.String()), err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func short7(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
