package sddledger

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/ledger"
)

// earlier-done and earlier-review record the human's answers about the
// commits of an earlier run (Look numbers them since the start branch,
// oldest first): commits FIRST to LAST are task N, done (its base=,
// reviewed_head= and complete, with the old flat ledger's deferred minors
// and parked lines of it and the decisions later tasks build on); or the
// commits from FIRST on are task N's work, to be reviewed (its base= and
// brief). Each is taken on a task not yet begun.

var earlierDoneStep = step{
	unit: taskUnit(2),
	check: func(r *run, args []string) error {
		if err := texts("a decision", 5)(r, args); err != nil {
			return err
		}
		return r.checkStart(args[1])
	},
	fits: fresh,
	do: func(s *stepRun) ([]string, error) {
		commits, from, to, err := s.earlierRange(s.lines, s.args[1], s.args[3], s.args[4])
		if err != nil {
			return nil, err
		}
		base, err := s.git("rev-parse", "--verify", commits[from-1].sha+"^")
		if err != nil {
			return nil, err
		}
		head := commits[to-1].sha
		b7, h7, err := s.shorts(base, head)
		if err != nil {
			return nil, err
		}
		out := []string{ledger.FormatBase(s.name, base), ledger.FormatReviewedHead(s.name, head)}
		out = append(out, s.flatLines(s.name)...)
		for _, d := range s.args[5:] {
			out = append(out, ledger.FormatSettled(s.name, d))
		}
		return append(out, ledger.FormatComplete(s.name, b7, h7, "earlier run, human confirmed")), nil
	},
}

// earlierReviewStep takes an optional LAST task: the work of a batch, Tasks
// N to LAST, begun before the record began again (a restart mid-batch),
// recorded as the batch it was, to be reviewed as one.
var earlierReviewStep = step{
	unit: taskUnit(2),
	check: func(r *run, args []string) error {
		if len(args) == 5 {
			if _, _, err := r.batchRange(args[2], args[4]); err != nil {
				return err
			}
		}
		return r.checkStart(args[1])
	},
	every: true,
	fits:  fresh,
	do: func(s *stepRun) ([]string, error) {
		var members []string
		if len(s.args) == 5 {
			var err error
			if members, err = s.batch(s.us, s.args[2], s.args[4]); err != nil {
				return nil, err
			}
		}
		commits, from, _, err := s.earlierRange(s.lines, s.args[1], s.args[3], "")
		if err != nil {
			return nil, err
		}
		base, err := s.git("rev-parse", "--verify", commits[from-1].sha+"^")
		if err != nil {
			return nil, err
		}
		return s.begin(members, base)
	},
}

func fresh(s *stepRun) error {
	if s.u.Last != ledger.KindNone {
		return outOfStep(s.u, "a task not yet begun")
	}
	return nil
}

// earlierRange reads FIRST (and LAST) as positions in START..HEAD and
// checks that every commit before FIRST already belongs to a recorded
// task, so that no commit ends up in no task's range.
func (r *run) earlierRange(lines []ledger.Line, start, first, last string) (commits []sinceCommit, from, to int, err error) {
	commits, err = r.since(start)
	if err != nil {
		return nil, 0, 0, err
	}
	pos := func(what, s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(commits) {
			return 0, exit.Ownf(exit.Usage, "%s %q is not a commit number: look numbers the %d commits since %s from 1, oldest first", what, s, len(commits), start)
		}
		return n, nil
	}
	if from, err = pos("FIRST", first); err != nil {
		return nil, 0, 0, err
	}
	to = len(commits)
	if last != "" {
		if to, err = pos("LAST", last); err != nil {
			return nil, 0, 0, err
		}
		if to < from {
			return nil, 0, 0, exit.Ownf(exit.Usage, "LAST %d is before FIRST %d", to, from)
		}
	}
	if from > 1 {
		prev := commits[from-2].sha
		ends := false
		for _, l := range ledger.Epoch(lines) {
			if l.Kind == ledger.KindReviewedHead && l.Value == prev {
				ends = true
			}
		}
		if !ends {
			return nil, 0, 0, exit.Ownf(OutOfStep, "commit %d (%s) would belong to no task: no recorded task ends there; record the task it belongs to first, or start this one at it", from-1, commits[from-2].line)
		}
	}
	return commits, from, to, nil
}

// flatLines are the old flat ledger's deferred minors and parked lines of
// unit, which the earlier run left for the final review.
func (r *run) flatLines(unit string) []string {
	_, text, err := r.flatLedger()
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range strings.Split(text, "\n") {
		if l, ok := ledger.Parse(s); ok && l.Unit == unit && (l.Kind == ledger.KindMinor || l.Kind == ledger.KindParked) {
			out = append(out, l.Text)
		}
	}
	return out
}

// flatLedger reads the old flat ledger, .superpowers/sdd/progress.md, of
// runs from before per-plan workspaces (never written: a regular file
// only, never followed or waited on).
func (r *run) flatLedger() (path, text string, err error) {
	path = r.root + string(filepath.Separator) + filepath.Join(".superpowers", "sdd", ledger.FileName)
	text, err = ledger.Read(path)
	return path, text, err
}
