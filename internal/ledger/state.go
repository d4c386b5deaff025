package ledger

import (
	"fmt"
	"strconv"
	"strings"
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
}

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
	Round  int    // the last recorded fix round; 0 without one

	Implementer   string    // the last implementer= id; "" without one
	ReviewFile    string    // the newest review file that is in
	OpenFindings  []Finding // the open findings, when Open > 0
	NotVerifiable string    // what the first review could not verify, while it is the last
	Notes         []string  // why a review that exists is not in, and the like
	Row           string    // the row of the state table that fits (Pick)

	lines   []Line
	heads   []string // reviewed_head shas since the last base
	base    string
	before  []Finding // open going into the last review
	first   *Review   // the first review, when in
	last    any       // the last review's answer (*Review or *ReReview), when in
	applied bool
}

// Units groups a ledger's lines (after the identity line) by unit and
// returns the facts of each task of the plan, in plan order, then the
// final review's. Lines of a unit the plan does not have are left out.
func Units(lines []Line, tasks []string, src Source) ([]*Facts, error) {
	by := map[string][]Line{}
	for _, l := range lines {
		by[l.Unit] = append(by[l.Unit], l)
	}
	var out []*Facts
	for _, t := range tasks {
		f, err := unitFacts(UnitName(t), t, by[UnitName(t)], src)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	f, err := unitFacts(FinalUnit, "", by[FinalUnit], src)
	if err != nil {
		return nil, err
	}
	return append(out, f), nil
}

func unitFacts(unit, task string, lines []Line, src Source) (*Facts, error) {
	f := &Facts{Unit: unit, Task: task, Last: None, After: -1, Review: "-", Pass: "-", Spec: "-", lines: lines}
	lastSha := ""
	var open []Finding
	for _, l := range lines {
		switch l.Kind {
		case Implementer:
			f.Implementer = l.Value
			continue
		case Minor, Settled:
			continue
		}
		if l.Kind != ReviewedHead {
			open = f.apply(open, src)
		}
		f.Last = l.Kind
		switch l.Kind {
		case Base:
			f.base, lastSha, f.heads, open, f.first = l.Value, l.Value, nil, nil, nil
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
		}
	}
	// A unit that is over (complete, blocked) needs no count: no row
	// reads it there, and a long run's Look would ask git once a task.
	if lastSha != "" && f.Last != Complete && f.Last != Blocked {
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
		if name := f.reviewName(src, i); name != "" && has(src.Files(), name) {
			f.ReviewFile = name
		}
	}
	return f, nil
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
	name := f.reviewName(src, i)
	if name == "" || !has(src.Files(), name) {
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

// PackageName finds the package of the unit's i-th review among the
// workspace's files: review-<a>..<b>.diff, a and b being git's short
// forms of the range's ends (any length git may have used, 4 or more).
func (f *Facts) PackageName(src Source, i int) string {
	from := f.base
	if i > 0 {
		from = f.heads[i-1]
	}
	to := f.heads[i]
	for _, name := range src.Files() {
		m := packageRe().FindStringSubmatch(name)
		if m != nil && strings.HasPrefix(from, m[1]) && strings.HasPrefix(to, m[2]) {
			return name
		}
	}
	return ""
}

var (
	packageRe = lazyRegexp(`^review-([0-9a-f]{4,40})\.\.([0-9a-f]{4,40})\.diff$`)
	reviewRe  = lazyRegexp(`^review-([0-9a-f]{4,40})\.\.([0-9a-f]{4,40})\.md$`)
)

// IsReviewOf says whether name is a review file of the range from..to
// (review-<a>..<b>.md, <a> and <b> any short forms of its ends).
func IsReviewOf(name, from, to string) bool {
	m := reviewRe().FindStringSubmatch(name)
	return m != nil && strings.HasPrefix(from, m[1]) && strings.HasPrefix(to, m[2])
}

// reviewName is the review file of the unit's i-th package ("" when the
// package is not in the workspace).
func (f *Facts) reviewName(src Source, i int) string {
	p := f.PackageName(src, i)
	if p == "" {
		return ""
	}
	return strings.TrimSuffix(p, ".diff") + ".md"
}

// Heads are the unit's reviewed_head shas since its last base=.
func (f *Facts) Heads() []string { return f.heads }

// Base is the unit's last base= sha.
func (f *Facts) Base() string { return f.base }

// Before are the findings open going into the last review.
func (f *Facts) Before() []Finding { return f.before }

// FirstReview is the unit's first review's answer, when it is in.
func (f *Facts) FirstReview() *Review { return f.first }

// LastReReview is the last review's answer when it is a re-review that is
// in.
func (f *Facts) LastReReview() *ReReview {
	r, _ := f.last.(*ReReview)
	return r
}

// Lines are the unit's ledger lines.
func (f *Facts) Lines() []Line { return f.lines }

// Count is how many lines of kind the unit has.
func (f *Facts) Count(k Kind) int {
	n := 0
	for _, l := range f.lines {
		if l.Kind == k {
			n++
		}
	}
	return n
}

func without(fs []Finding, parked string) []Finding {
	id, _, _ := strings.Cut(parked, " ")
	var out []Finding
	for _, x := range fs {
		if x.ID != id {
			out = append(out, x)
		}
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Map is the facts by name, as the state table's conditions read them;
// a fact without a value is "-".
func (f *Facts) Map() map[string]string {
	num := func(n int) string {
		if n < 0 {
			return "-"
		}
		return strconv.Itoa(n)
	}
	unit := "task"
	if f.Unit == FinalUnit {
		unit = "final"
	}
	return map[string]string{
		"unit": unit, "last": string(f.Last), "after": num(f.After), "review": f.Review,
		"pass": f.Pass, "spec": f.Spec, "open": num(f.Open), "round": strconv.Itoa(f.Round),
	}
}

// FactOrder is the order Look prints the facts in.
var FactOrder = []string{"last", "after", "review", "pass", "spec", "open", "round"}

// StateLine is the unit's line as Look prints it: "Task 2: last=fix
// after=0 … row=fix".
func (f *Facts) StateLine() string {
	m := f.Map()
	var b strings.Builder
	b.WriteString(f.Unit + ":")
	for _, k := range FactOrder {
		b.WriteString(" " + k + "=" + m[k])
	}
	b.WriteString(" row=" + f.Row)
	return b.String()
}
