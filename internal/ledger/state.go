package ledger

import (
	"fmt"
)

// Source is what the facts need beyond the ledger's lines: the plan's
// tasks, the workspace's files, and git.
type Source interface {
	// Files lists the workspace's file names.
	Files() []string
	// Read returns the start of a workspace file (at most ReviewMax bytes).
	Read(name string) (string, error)
	// After counts the commits in sha..HEAD.
	After(sha string) (int, error)
	// Commits says, of shas, which are not commits of the repository
	// (gone) and which are commits that HEAD does not contain (off the
	// branch: a rebase, a reset, an amend): in a number of git calls
	// that does not grow with the ledger.
	Commits(shas []string) (gone, off map[string]bool, err error)
}

// The values of the shas fact: whether the commits a unit's lines record
// are still the branch's history.
const (
	ShasOK        = "ok"        // every recorded sha is a commit HEAD contains
	ShasRewritten = "rewritten" // a recorded sha is a commit HEAD does not contain
	ShasGone      = "gone"      // a recorded sha is not a commit of the repository
	ShasMissing   = "missing"   // a line that needs a recorded sha before it has none
)

// Facts are what a unit's lines say, in the words of the skill's state
// table: the row that fits is chosen from these alone.
type Facts struct {
	Unit   string // "Task 3" or "Final"
	Task   string // "3"; "" for the final review
	Last   Kind   // the last line's kind, implementer=, minor, settled lines skipped; None without lines
	After  int    // commits after the unit's last recorded sha; -1 without one, and once the unit is over
	Review string // in, out, or - : whether the last reviewed_head's review is in
	Pass   string // first or re: the last reviewed_head is the unit's first or a later one; - without one
	Spec   string // the first review's Spec while it is the last (pass=first, review in); else -
	Open   int    // open findings not ruled on; -1 while the last review is out
	Round  int    // the last recorded fix round (since the last unblocked line); 0 without one
	Shas   string // ShasOK, ShasRewritten, ShasGone, ShasMissing

	Implementer   string    // the last implementer= id; "" without one
	Members       []string  // a batch's tasks, by number, when the unit is its first task
	BatchHead     string    // the first task of the batch a batched unit is in ("Task 3")
	ReviewFile    string    // the newest review file that is in
	OpenFindings  []Finding // the open findings, when Open > 0
	NotVerifiable string    // what the first review could not verify, while it is the last
	Notes         []string  // why a review that exists is not in, and the like
	History       []string  // what makes Shas other than ok, one line each
	Row           string    // the row of the state table that fits (Pick)

	lines   []Line
	files   *fileIndex
	heads   []string // reviewed_head shas since the last base
	base    string
	before  []Finding // open going into the last review
	first   *Review   // the first review, when in
	last    any       // the last review's answer (*Review or *ReReview), when in
	applied bool
}

// Epoch is the part of a ledger's lines the facts are read from: the
// lines after its last "Run: restarted" line (the human began the record
// again, the branch's history having changed under it), or all of them.
// The lines before stay in the ledger: what they deferred and parked is
// still printed at the finish.
func Epoch(lines []Line) []Line {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Kind == Restarted {
			return lines[i+1:]
		}
	}
	return lines
}

// Units groups a ledger's lines (after the identity line) by unit and
// returns the facts of each task of the plan, in plan order, then the
// final review's. Lines of a unit the plan does not have are left out
// (Strays names them). Its cost grows with the lines and the workspace's
// files, never with their product: the files are indexed once, each
// review is read once, and git is asked about every recorded sha at once.
func Units(lines []Line, tasks []string, src Source) ([]*Facts, error) {
	lines = Epoch(lines)
	by := map[string][]Line{}
	for _, l := range lines {
		by[l.Unit] = append(by[l.Unit], l)
	}
	names := make([]string, 0, len(tasks)+1)
	for _, t := range tasks {
		names = append(names, UnitName(t))
	}
	names = append(names, FinalUnit)
	var shas []string
	seen := map[string]bool{}
	for _, n := range names {
		for _, l := range by[n] {
			if (l.Kind == Base || l.Kind == ReviewedHead) && !seen[l.Value] {
				seen[l.Value] = true
				shas = append(shas, l.Value)
			}
		}
	}
	var gone, off map[string]bool
	if len(shas) > 0 {
		var err error
		if gone, off, err = src.Commits(shas); err != nil {
			return nil, err
		}
	}
	idx := indexFiles(src.Files())
	out := make([]*Facts, 0, len(names))
	for i, n := range names {
		task := ""
		if i < len(tasks) {
			task = tasks[i]
		}
		f, err := unitFacts(n, task, by[n], idx, src, gone, off)
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

func unitFacts(unit, task string, lines []Line, idx *fileIndex, src Source, gone, off map[string]bool) (*Facts, error) {
	f := &Facts{Unit: unit, Task: task, Last: None, After: -1, Review: "-", Pass: "-", Spec: "-", Shas: ShasOK,
		lines: lines, files: idx}
	lastSha := ""
	var open []Finding
	// What a BLOCKED line interrupted, for the unblocked line that goes on.
	var blockedLast Kind
	var blockedOpen []Finding
	for _, l := range lines {
		switch l.Kind {
		case Implementer:
			f.Implementer = l.Value
			continue
		case Batch:
			f.Members = l.Members
			continue
		case Minor, Settled, Restarted:
			continue
		case Unblocked:
			// The human's decision to go on: the unit is where the block
			// found it (or where commits came with no round left to
			// review them), with a fresh budget of fix rounds.
			if f.Last == Blocked {
				f.Last, open = blockedLast, blockedOpen
			}
			f.Round = 0
			continue
		}
		f.checkNeeds(l)
		if l.Kind != ReviewedHead {
			open = f.apply(open, src)
		}
		if l.Kind == Blocked && f.Last != Blocked {
			blockedLast, blockedOpen = f.Last, open
		}
		f.Last = l.Kind
		switch l.Kind {
		case Base:
			f.base, lastSha, f.heads, open, f.first, f.last, f.applied = l.Value, l.Value, nil, nil, nil, nil, false
			f.Round = 0
		case ReviewedHead:
			open = f.apply(open, src)
			f.before = open
			f.heads = append(f.heads, l.Value)
			f.applied, f.last = false, nil
			lastSha = l.Value
		case Added:
			open = append(open, l.Findings...)
		case Round:
			open, f.Round = l.Findings, l.Round
		case Parked:
			open = without(open, l.Value)
		case Complete, Blocked:
			open = nil
		case Batched:
			f.BatchHead = l.Value
		}
	}
	f.checkShas(lines, gone, off)
	// A unit that is over (complete, blocked) needs no count: no row
	// reads it there, and a long run's Look would ask git once a task.
	// Nor does one whose shas are not the branch's: its row stops.
	if lastSha != "" && f.Last != Complete && f.Last != Blocked && f.Shas == ShasOK {
		n, err := src.After(lastSha)
		if err != nil {
			return nil, err
		}
		f.After = n
	}
	if len(f.heads) > 0 {
		f.Pass = "first"
		if len(f.heads) > 1 {
			f.Pass = "re"
		}
		f.Review = "out"
		if f.last != nil || f.readLast(src) {
			f.Review = "in"
		}
	}
	if f.Last == ReviewedHead {
		if f.Review == "in" {
			open = f.apply(open, src)
		} else {
			open = nil
			f.Open = -1
		}
	}
	if f.Open != -1 {
		f.Open = len(open)
		f.OpenFindings = open
	}
	if f.Last == ReviewedHead && f.Pass == "first" && f.first != nil {
		f.Spec = f.first.Spec
		f.NotVerifiable = f.first.NotVerifiable
	}
	for i := range f.heads {
		if i == len(f.heads)-1 && f.Review != "in" {
			break // a last review that is not an answer is no review to read
		}
		if name := f.reviewName(i); name != "" && idx.has(name) {
			f.ReviewFile = name
		}
	}
	return f, nil
}

// checkNeeds notes a line that a step can only have written after another
// the unit lacks: a reviewed_head= with no base= before it, a fix round, a
// parked finding or a controller's finding with no reviewed_head= since
// the base. Such a ledger was edited by hand or cut; no step can go on
// from it without computing over shas it does not have.
func (f *Facts) checkNeeds(l Line) {
	switch {
	case l.Kind == ReviewedHead && f.base == "":
		f.damaged("%q has no base= line before it", l.Text)
	case (l.Kind == Round || l.Kind == Parked || l.Kind == Added) && len(f.heads) == 0:
		f.damaged("%q has no reviewed_head= line since the unit's base=", l.Text)
	}
}

func (f *Facts) damaged(format string, args ...any) {
	if f.Shas == ShasOK {
		f.Shas = ShasMissing
	}
	f.History = append(f.History, fmt.Sprintf(format, args...))
}

// checkShas sets Shas from what git says of the unit's recorded shas: a
// sha that is gone outranks one off the branch, which outranks lines
// missing (their notes stay).
func (f *Facts) checkShas(lines []Line, gone, off map[string]bool) {
	seen := map[string]bool{}
	var bad []string
	state := ""
	for _, l := range lines {
		if l.Kind != Base && l.Kind != ReviewedHead || seen[l.Value] {
			continue
		}
		seen[l.Value] = true
		switch {
		case gone[l.Value]:
			bad = append(bad, fmt.Sprintf("%s (%s=) is not a commit of this repository", l.Value, l.Kind))
			state = ShasGone
		case off[l.Value]:
			bad = append(bad, fmt.Sprintf("%s (%s=) is a commit the branch does not contain", l.Value, l.Kind))
			if state == "" {
				state = ShasRewritten
			}
		}
	}
	if state != "" {
		f.Shas = state
		f.History = append(bad, f.History...)
	}
}

// apply takes the last review into open, once, when it is in: a first
// review's open findings replace open; a re-review keeps what it rules NOT
// ADDRESSED and adds its new findings.
func (f *Facts) apply(open []Finding, src Source) []Finding {
	if f.applied || len(f.heads) == 0 {
		return open
	}
	if f.last == nil && !f.readLast(src) {
		return open
	}
	f.applied = true
	switch r := f.last.(type) {
	case *Review:
		return append([]Finding(nil), r.Open...)
	case *ReReview:
		var still []Finding
		for _, x := range f.before {
			if !r.Addressed[x.ID] {
				still = append(still, x)
			}
		}
		return append(still, r.New...)
	}
	return open
}

// readLast reads the last reviewed_head's review; false when it is not in
// (missing, or not an answer the run can act on: a note says why).
func (f *Facts) readLast(src Source) bool {
	i := len(f.heads) - 1
	name := f.reviewName(i)
	if name == "" || !f.files.has(name) {
		return false
	}
	text, err := src.Read(name)
	if err != nil {
		f.note("%s: %v", name, err)
		return false
	}
	if i == 0 {
		r, err := ParseReview(text)
		if err != nil {
			f.note("%s is not in: %v", name, err)
			return false
		}
		f.first, f.last = &r, &r
		return true
	}
	ids := make([]string, len(f.before))
	for k, x := range f.before {
		ids[k] = x.ID
	}
	r, err := ParseReReview(text, ids)
	if err != nil {
		f.note("%s is not in: %v", name, err)
		return false
	}
	f.last = &r
	return true
}

func (f *Facts) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	for _, x := range f.Notes {
		if x == n {
			return
		}
	}
	f.Notes = append(f.Notes, n)
}
