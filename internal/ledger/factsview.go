package ledger

import (
	"strconv"
	"strings"
)

// What a unit's facts give their readers: its packages, shas, findings
// and lines, and the facts as Look prints them.

// PackageName finds the package of the unit's i-th review among the
// workspace's files: review-<a>..<b>.diff, a and b being git's short
// forms of the range's ends (any length git may have used, 4 or more).
func (f *Facts) PackageName(i int) string {
	heads := f.rec.heads
	if i < 0 || i >= len(heads) {
		return ""
	}
	from := f.rec.base
	if i > 0 {
		from = heads[i-1]
	}
	return f.files.find(from, heads[i], ".diff")
}

// reviewName is the review file of the unit's i-th package ("" when the
// package is not in the workspace).
func (f *Facts) reviewName(i int) string {
	p := f.PackageName(i)
	if p == "" {
		return ""
	}
	return strings.TrimSuffix(p, ".diff") + ".md"
}

// Heads are the unit's reviewed_head shas since its last base=.
func (f *Facts) Heads() []string { return f.rec.heads }

// Base is the unit's last base= sha.
func (f *Facts) Base() string { return f.rec.base }

// Before are the findings open going into the last review.
func (f *Facts) Before() []Finding { return f.before }

// FirstReview is the unit's first review's answer, when it is in.
func (f *Facts) FirstReview() *Review { return f.first }

// LastReReview is the last review's answer when it is a re-review that is
// in.
func (f *Facts) LastReReview() *ReReview { return f.reRev }

// Lines are the unit's ledger lines (of the ledger's epoch).
func (f *Facts) Lines() []Line { return f.rec.lines }

// Count is how many lines of kind the unit has.
func (f *Facts) Count(k Kind) int {
	n := 0
	for _, l := range f.rec.lines {
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
		"pass": f.Pass, "spec": f.Spec, "open": num(f.Open), "round": strconv.Itoa(f.Round), "left": strconv.Itoa(f.Left),
		"shas": f.Shas, "plan": f.Plan, "needs": list(f.Needs),
	}
}

// list is a list fact as Look prints it: "1,3", or "-" for none.
func list(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, ",")
}

// FactOrder is the order Look prints the facts in.
var FactOrder = FactNames[2:]

// StateLine is the unit's line as Look prints it: "Task 2: last=fix
// after=0 … row=fix".
func (f *Facts) StateLine() string {
	m := f.Map()
	var b strings.Builder
	b.WriteString(f.Unit + ":")
	for _, k := range FactOrder {
		b.WriteString(" " + k + "=" + m[k])
	}
	b.WriteString(" row=" + f.Row.String())
	return b.String()
}
