package ledger

import (
	"fmt"
	"strings"
)

// The values of the shas fact: whether the commits a unit's lines record
// are still the branch's history.
const (
	ShasOK        = "ok"        // every recorded sha is a commit HEAD contains
	ShasRewritten = "rewritten" // a recorded sha is a commit HEAD does not contain
	ShasGone      = "gone"      // a recorded sha is not a commit of the repository
	ShasMissing   = "missing"   // a line that needs a recorded sha before it has none
)

// The values of the plan fact: whether the plan's task at a unit's number
// is still the task the unit began (its brief's heading), or the plan was
// renumbered, or a task removed, under the run.
const (
	PlanOK         = "ok"
	PlanRenumbered = "renumbered"
)

// Facts are what a unit's lines say, in the words of the skill's state
// table, and the row that fits them.
type Facts struct {
	Unit   string   // "Task 3" or "Final"
	Task   string   // "3"; "" for the final review
	Last   Kind     // the last step's kind; KindNone without one
	After  int      // commits after the unit's last recorded sha; -1 without one, and once the unit is over
	Review string   // in, out, or - : whether the last reviewed_head's review is in
	Pass   string   // first or re: the last reviewed_head is the unit's first or a later one; - without one
	Spec   string   // the first review's Spec while it is the last (pass=first, review in); else -
	Open   int      // open findings not ruled on; -1 while the last review is out
	Round  int      // the last recorded fix round (since the last unblocked line); 0 without one
	Left   int      // fix rounds left: the unit's cap (Cap) less Round, never below 0
	Shas   string   // ShasOK, ShasRewritten, ShasGone, ShasMissing
	Plan   string   // PlanOK, or PlanRenumbered: the plan's task at the unit's number is not the one it began
	Needs  []string // the earlier tasks a task waits for before it may begin beside others (the plan's graph); none for Final
	Row    Row      // the first row of the table that fits the facts above

	Branch        string    // the task's own branch until it is complete (tasks side by side); ""
	Joined        string    // the feature branch's head its join made, since its base; ""
	Implementer   string    // the last implementer= id; "" without one
	Unblocked     string    // the last decision to go on since the base (what changed); "" without one
	Members       []string  // a batch's tasks, by number, when the unit is its first task
	BatchHead     string    // the first task of the batch a batched unit is in ("Task 3")
	ReviewFile    string    // the newest review file that is in
	OpenFindings  []Finding // the open findings, when Open > 0
	NotVerifiable string    // what the first review could not verify, while it is the last
	Notes         []string  // why a review that exists is not in, and the like
	History       []string  // what makes Shas other than ok, one line each
	Replanned     []string  // what makes Plan other than ok, one line each

	rec     *record
	files   *fileIndex
	before  []Finding // open going into the last review
	first   *Review   // the first review since the base, when in
	reRev   *ReReview // the last review when it is a re-review that is in
	answers map[int]answer
}

// answer is a review's answer, read once: nil when it is not in.
type answer func(open []Finding) []Finding

// derive makes a unit's facts and row from its record, reading its
// reviews from the workspace (each once) and counting the commits after
// it; gone and off are what git said of every recorded sha.
func derive(rec *record, idx *fileIndex, src Source, gone, off map[string]bool) (*Facts, error) {
	f := &Facts{Unit: rec.unit, Task: rec.task, Last: rec.last, After: -1, Review: "-", Pass: "-", Spec: "-",
		Round: rec.round, Shas: ShasOK, Plan: PlanOK, Implementer: rec.implementer, Unblocked: rec.unblocked, Members: rec.members, BatchHead: rec.batchHead, Branch: rec.inFlight(), Joined: rec.joined,
		rec: rec, files: idx, answers: map[int]answer{}}
	f.Left = max(Cap(rec.unit)-rec.round, 0)
	if rec.task != "" {
		var notes []string
		f.Needs, notes = src.Waits(rec.task)
		for _, n := range notes {
			f.note("%s", n)
		}
	}
	f.checkShas(gone, off)
	f.checkPlan(src)
	open := f.replay(src)
	// A unit that is over (complete, blocked) needs no count: no row
	// reads it there, and a long run's Look would ask git once a task.
	// Nor does one whose shas are not the branch's: its row stops.
	if s := rec.lastSha(); s != "" && f.Last != KindComplete && f.Last != KindBlocked && f.Shas == ShasOK {
		head := "HEAD"
		if f.Branch != "" {
			head = f.Branch
		}
		n, err := src.After(s, head)
		if err != nil {
			return nil, err
		}
		f.After = n
	}
	last := len(rec.heads) - 1
	if last >= 0 {
		f.Pass = "first"
		if last > 0 {
			f.Pass = "re"
		}
		f.Review = "out"
		if f.answer(last, src) != nil {
			f.Review = "in"
		}
	}
	f.Open = len(open)
	if f.Last == KindReviewedHead && f.Review == "out" {
		open, f.Open = nil, -1
	}
	f.OpenFindings = open
	if f.Last == KindReviewedHead && f.Pass == "first" && f.first != nil {
		f.Spec = f.first.Spec
		f.NotVerifiable = f.first.NotVerifiable
	}
	for i := range rec.heads {
		if i == last && f.Review != "in" {
			break // a last review that is not an answer is no review to read
		}
		if name := f.reviewName(i); name != "" && idx.has(name) {
			f.ReviewFile = name
		}
	}
	f.Row = Pick(f.Map())
	return f, nil
}

// replay takes the unit's events since its base in order over its
// reviews and returns what is open: a review's answer is taken in once it
// is in, before the next line (a first review's open findings replace
// what is open; a re-review keeps what it rules NOT ADDRESSED and adds
// its new findings); a controller's finding adds one, a fix round line
// says what is open, a parked line removes one, complete and BLOCKED
// leave none.
func (f *Facts) replay(src Source) []Finding {
	var open, kept []Finding
	k, taken := -1, true // the head whose review comes next, and whether it is taken in
	take := func() {
		if !taken && k >= 0 {
			if a := f.answer(k, src); a != nil {
				open, taken = a(open), true
			}
		}
	}
	for _, e := range f.rec.events {
		take()
		switch e.Kind {
		case KindReviewedHead:
			f.before = open
			k, taken = k+1, false
		case KindFinding:
			open = append(open, e.Findings...)
		case KindFix:
			open = e.Findings
		case KindParked:
			open = without(open, e.Value)
		case KindBlocked:
			if e.keeps {
				kept = open
			}
			open = nil
		case KindUnblocked:
			if e.putsBack {
				open = kept
			}
		case KindComplete:
			open = nil
		}
	}
	take()
	return open
}

// answer reads the answer of the review of the unit's k-th head, once:
// nil when it is not in (missing, or not an answer the run can act on: a
// note says why).
func (f *Facts) answer(k int, src Source) answer {
	if a, ok := f.answers[k]; ok {
		return a
	}
	a := f.read(k, src)
	f.answers[k] = a
	return a
}

func (f *Facts) read(k int, src Source) answer {
	name := f.reviewName(k)
	if name == "" || !f.files.has(name) {
		return nil
	}
	text, err := src.Read(name)
	if err != nil {
		f.note("%s: %v", name, err)
		return nil
	}
	if k == 0 {
		r, err := ParseReview(text)
		if err != nil {
			f.note("%s is not in: %v", name, err)
			return nil
		}
		f.first = &r
		return func([]Finding) []Finding { return append([]Finding(nil), r.Open...) }
	}
	before := f.before
	ids := make([]string, len(before))
	for i, x := range before {
		ids[i] = x.ID
	}
	r, err := ParseReReview(text, ids)
	if err != nil {
		f.note("%s is not in: %v", name, err)
		return nil
	}
	if k == len(f.rec.heads)-1 {
		f.reRev = &r
	}
	return func([]Finding) []Finding {
		var still []Finding
		for _, x := range before {
			if !r.Addressed[x.ID] {
				still = append(still, x)
			}
		}
		return append(still, r.New...)
	}
}

// checkShas sets Shas from the lines that lack one they need, and from
// what git says of the unit's recorded shas: a sha that is gone outranks
// one off the branch, which outranks lines missing (their notes stay).
func (f *Facts) checkShas(gone, off map[string]bool) {
	if len(f.rec.damaged) > 0 {
		f.Shas, f.History = ShasMissing, append([]string(nil), f.rec.damaged...)
	}
	var bad []string
	state := ""
	for _, c := range f.rec.commits() {
		switch {
		case gone[c.sha]:
			bad = append(bad, fmt.Sprintf("%s (%s=) is not a commit of this repository", c.sha, c.kind))
			state = ShasGone
		case off[c.sha]:
			bad = append(bad, fmt.Sprintf("%s (%s=) is a commit the branch does not contain", c.sha, c.kind))
			if state == "" {
				state = ShasRewritten
			}
		}
	}
	if b := f.Branch; b != "" && gone[b] {
		bad = append(bad, fmt.Sprintf("its branch %s, where its work is until it joins, names no commit (deleted?)", b))
		state = ShasGone
	}
	if state != "" {
		f.Shas = state
		f.History = append(bad, f.History...)
	}
}

// checkPlan sets Plan: a unit begun (its base=, or batched in another's
// batch) holds the headings it was begun from in its brief; each task of
// it must still be the plan's task of that number, by its title, and a
// batched unit's first task must still be a task of the plan. A plan
// renumbered, or a task removed, under the run would otherwise have a
// unit's lines, and its close, count for another task.
func (f *Facts) checkPlan(src Source) {
	owner, tasks := f.Task, []string{f.Task}
	switch {
	case f.Task == "":
		return
	case f.rec.batchHead != "":
		owner = strings.TrimPrefix(f.rec.batchHead, "Task ")
	case f.rec.base == "":
		return
	case len(f.rec.members) > 1:
		tasks = f.rec.members
	}
	plan := src.PlanTitles()
	if _, ok := plan[owner]; !ok {
		f.replanned("its batch's first task, Task %s, is no task of the plan now", owner)
		return
	}
	brief := src.BriefTitles(owner)
	if brief == nil {
		return // no brief to tell by (an earlier run's task, a workspace cleaned)
	}
	for _, n := range tasks {
		was, now := brief[n], plan[n]
		_, inPlan := plan[n]
		switch {
		case !inPlan:
			f.replanned("Task %s was begun from the heading %q, and the plan has no Task %s now", n, was, n)
		case was != now:
			f.replanned("Task %s was begun from the heading %q, and the plan's Task %s is %q now", n, was, n, now)
		}
	}
}

func (f *Facts) replanned(format string, args ...any) {
	f.Plan = PlanRenumbered
	f.Replanned = append(f.Replanned, fmt.Sprintf(format, args...))
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
