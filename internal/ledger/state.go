package ledger

import "fmt"

// Source is what the facts need beyond the ledger's lines: the plan's
// tasks, the workspace's files, and git.
type Source interface {
	// Files lists the workspace's file names.
	Files() []string
	// Read returns the start of a workspace file (at most ReviewMax bytes).
	Read(name string) (string, error)
	// After counts the commits in sha..head (head: HEAD, or the branch
	// of a task side by side).
	After(sha, head string) (int, error)
	// Commits says, of shas, which are not commits of the repository
	// (gone) and which are commits that neither HEAD nor any of branches
	// contains (off the branch: a rebase, a reset, an amend); of
	// branches, which name no commit (gone): in a number of git calls
	// that does not grow with the ledger.
	Commits(shas, branches []string) (gone, off map[string]bool, err error)
	// PlanTitles are the plan's task headings now, title by number.
	PlanTitles() map[string]string
	// Waits are the earlier tasks task n waits for before it may begin
	// beside others, by the plan's text (plantask.Needs), and what the
	// plan's text says of them that a reader should know (a Depends on
	// naming no earlier task).
	Waits(n string) (waits, notes []string)
	// BriefTitles are the task headings of task n's brief, title by
	// number: the text the unit was begun from (a batch's brief holds
	// each of its tasks); nil without a brief.
	BriefTitles(n string) map[string]string
}

// Epoch is the part of a ledger's lines the facts are read from: the
// lines after its last "Run: restarted" line (the human began the record
// again, the branch's history having changed under it), or all of them.
// The lines before stay in the ledger: what they deferred and parked is
// still printed at the finish.
func Epoch(lines []Line) []Line {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Kind == KindRestarted {
			return lines[i+1:]
		}
	}
	return lines
}

// Side is the human's answer to running tasks side by side, read from the
// epoch's last side line: at most so many at a time; 1 without one (the
// run of one task at a time).
func Side(lines []Line) int {
	ep := Epoch(lines)
	for i := len(ep) - 1; i >= 0; i-- {
		if ep[i].Kind == KindSide {
			return int(ep[i].Value[0] - '0')
		}
	}
	return 1
}

// BranchName is the branch of a task run side by side (FormatBranch):
// sdd/<the workspace's name>/task-<n>, the name's bytes that a branch
// name may not hold made '-'.
func BranchName(slug, task string) string {
	b := []byte(slug)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return "sdd/" + string(b) + "/task-" + task
}

// Units groups a ledger's lines (after the identity line) by unit and
// returns the facts of each task of tasks, in their order, then the
// final review's, each with its row. Lines of a unit not among them are
// left out (Strays names them). Its cost grows with the lines and the
// workspace's files, never with their product: the files are indexed
// once, each review is read once, and git is asked about every recorded
// sha at once.
func Units(lines []Line, tasks []string, src Source) ([]*Facts, error) {
	by := map[string][]Line{}
	for _, l := range Epoch(lines) {
		by[l.Unit] = append(by[l.Unit], l)
	}
	recs := make([]*record, 0, len(tasks)+1)
	for _, t := range tasks {
		recs = append(recs, fold(UnitName(t), t, by[UnitName(t)]))
	}
	recs = append(recs, fold(FinalUnit, "", by[FinalUnit]))
	var shas []string
	seen := map[string]bool{}
	for _, r := range recs {
		for _, c := range r.commits() {
			if !seen[c.sha] {
				seen[c.sha] = true
				shas = append(shas, c.sha)
			}
		}
	}
	var branches []string
	for _, r := range recs {
		if b := r.inFlight(); b != "" {
			branches = append(branches, b)
		}
	}
	var gone, off map[string]bool
	if len(shas) > 0 {
		var err error
		if gone, off, err = src.Commits(shas, branches); err != nil {
			return nil, err
		}
	}
	idx := indexFiles(src.Files())
	out := make([]*Facts, 0, len(recs))
	for _, r := range recs {
		f, err := derive(r, idx, src, gone, off)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Strays are the units of lines (their epoch) that are neither a task of
// tasks nor the final review, with how many lines each has, in the order
// they first appear: a plan that lost or renumbered tasks.
func Strays(lines []Line, tasks []string) []string {
	known := map[string]bool{FinalUnit: true, RunUnit: true}
	for _, t := range tasks {
		known[UnitName(t)] = true
	}
	count := map[string]int{}
	var order []string
	for _, l := range Epoch(lines) {
		if known[l.Unit] {
			continue
		}
		if count[l.Unit] == 0 {
			order = append(order, l.Unit)
		}
		count[l.Unit]++
	}
	out := make([]string, len(order))
	for i, u := range order {
		out[i] = fmt.Sprintf("%s (%d lines)", u, count[u])
	}
	return out
}

// record is what one unit's lines say, read in order with nothing asked
// of git or the workspace and no decision taken: the fold. derive makes
// the unit's facts from it.
type record struct {
	unit, task  string
	lines       []Line // the unit's lines, of the ledger's epoch
	last        Kind   // the last step's kind (an unblocked line puts back the kind its BLOCKED interrupted)
	implementer string
	members     []string // a batch's tasks, on its first task's record
	batchHead   string   // the first task of the batch a batched unit is in
	round       int      // the last fix round since the base (or since an unblocked line that gave a new budget)
	unblocked   string   // the last decision to go on since the base: what changed
	base        string   // the last base=
	branch      string   // since it: the task's own branch (tasks side by side)
	joined      string   // since it: the feature branch's head once that branch joined it
	heads       []string // the reviewed_head= shas since it
	events      []event  // since it: the lines that change what is open
	damaged     []string // lines that need a line before them the unit lacks
}

// event is a line that changes a unit's open findings. A BLOCKED line
// that interrupts a step keeps what is open; an unblocked line after it
// puts that back.
type event struct {
	Line
	keeps, putsBack bool
}

func fold(unit, task string, lines []Line) *record {
	r := &record{unit: unit, task: task, lines: lines, last: KindNone}
	interrupted := KindNone // the kind a BLOCKED line interrupted
	for _, l := range lines {
		e := event{Line: l}
		switch l.Kind {
		case KindImplementer:
			r.implementer = l.Value
			continue
		case KindBatch:
			r.members = l.Members
			continue
		case KindMinor, KindSettled, KindRestarted, KindSide:
			continue
		case KindBranch:
			r.branch = l.Value
			continue
		case KindUnblocked:
			// The decision to go on: where the block found the unit (or
			// where commits came with no round left to review them), with
			// a fresh budget of fix rounds where the budget was spent (a
			// BLOCKED answer of an implementer, recorded and gone on from
			// at once, keeps the rounds it had: the cap holds).
			if r.last == KindBlocked {
				r.last, e.putsBack = interrupted, true
			}
			if r.round >= Cap(unit) {
				r.round = 0
			}
			r.unblocked = l.Value
			r.events = append(r.events, e)
			continue
		}
		r.checkNeeds(l)
		if l.Kind == KindBlocked && r.last != KindBlocked {
			interrupted, e.keeps = r.last, true
		}
		r.last = l.Kind
		switch l.Kind {
		case KindBase:
			r.base, r.heads, r.events, r.round, r.unblocked, r.branch, r.joined = l.Value, nil, nil, 0, "", "", ""
			continue
		case KindReviewedHead:
			r.heads = append(r.heads, l.Value)
		case KindFix:
			r.round = l.Round
		case KindBatched:
			r.batchHead = l.Value
		case KindJoined:
			r.joined = l.Value
		}
		r.events = append(r.events, e)
	}
	return r
}

// checkNeeds notes a line that a step can only have written after another
// the unit lacks: a reviewed_head= with no base= before it, a fix round, a
// parked finding or a controller's finding with no reviewed_head= since
// the base. Such a ledger was edited by hand or cut; no step can go on
// from it without computing over shas it does not have.
func (r *record) checkNeeds(l Line) {
	switch {
	case l.Kind == KindReviewedHead && r.base == "":
		r.damaged = append(r.damaged, fmt.Sprintf("%q has no base= line before it", l.Text))
	case (l.Kind == KindFix || l.Kind == KindParked || l.Kind == KindFinding) && len(r.heads) == 0:
		r.damaged = append(r.damaged, fmt.Sprintf("%q has no reviewed_head= line since the unit's base=", l.Text))
	}
}

// recorded is a commit a unit's line records, and the line's kind.
type recorded struct {
	sha  string
	kind Kind // KindBase, KindReviewedHead or KindJoined
}

// commits are the commits the unit's lines record, each once, with the
// kind of the first line that records it.
func (r *record) commits() []recorded {
	var out []recorded
	seen := map[string]bool{}
	for _, l := range r.lines {
		if (l.Kind == KindBase || l.Kind == KindReviewedHead || l.Kind == KindJoined) && !seen[l.Value] {
			seen[l.Value] = true
			out = append(out, recorded{l.Value, l.Kind})
		}
	}
	return out
}

// inFlight is the branch the unit's work is on until it is complete
// (a join by a merge commit is checked first, and a fix after it is the
// branch's): "" for a unit on the feature branch itself.
func (r *record) inFlight() string {
	if r.last == KindComplete {
		return ""
	}
	return r.branch
}

// lastSha is the last commit the unit recorded since its base; "" with
// none.
func (r *record) lastSha() string {
	if len(r.heads) > 0 {
		return r.heads[len(r.heads)-1]
	}
	return r.base
}
