package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is a row of the skill's state table (skill/SKILL.md, "What next").
// The table is this file's one list, rows; SKILL.md's table carries the
// same names and conditions, string for string (a test of the text holds
// them to it), with each row's Next, which is the text's alone. Look
// names the row that fits so that a reader of the text can check its own
// choice, and each verb is taken at the rows whose Next is that verb.
//
// A unit's life, as the rows see it:
//
//	start ─ implement ─ package ─ review ─ close ─ done
//	                       │ open findings ↓
//	                       └─ fix ─ package ─ re-review ─ record ─ fix … (5 rounds; final: 1)
//	                                                        └ left=0: breaker (park or block)
//	side by side, close joins: a merge commit is checked (joined) before complete
//	stops for the human: foreign, rewritten, blocked, late
type Row int

// The rows, in the table's order: the first whose conditions all hold is
// the one that fits.
const (
	RowForeign Row = iota
	RowNew
	RowFinished
	RowRewritten
	RowRenumbered
	RowDone
	RowBatched
	RowBlocked
	RowJoined
	RowStart
	RowFinal
	RowImplement
	RowPackage
	RowReview
	RowFinalReview
	RowReReview
	RowRecordClose
	RowRecord
	RowClose
	RowCheck
	RowLate
	RowBreaker
	RowRefix
	RowFix
	RowRuled
	// NoRow is no row: a state the table has no move for.
	NoRow
)

// rows are the table: each row's name and conditions, in the table's own
// words. A condition is fact=value (value may list alternatives: a,b),
// fact>n or fact<n; all of a row's conditions must hold. The ledger's
// rows (foreign, new) are about the ledger as a whole, the others about
// one unit: a row whose conditions name a fact the thing has not is
// another thing's row and never fits it.
var rows = [NoRow]struct{ name, when string }{
	RowForeign:     {"foreign", "ledger=other"},
	RowNew:         {"new", "ledger=none"},
	RowFinished:    {"finished", "unit=final last=complete"},
	RowRewritten:   {"rewritten", "shas=rewritten,gone,missing"},
	RowRenumbered:  {"renumbered", "plan=renumbered"},
	RowDone:        {"done", "last=complete"},
	RowBatched:     {"batched", "last=batched"},
	RowBlocked:     {"blocked", "last=blocked"},
	RowJoined:      {"joined", "last=joined"},
	RowStart:       {"start", "unit=task last=none"},
	RowFinal:       {"final", "unit=final last=none"},
	RowImplement:   {"implement", "last=base after=0"},
	RowPackage:     {"package", "last=base after>0"},
	RowReview:      {"review", "unit=task last=reviewed_head review=out pass=first"},
	RowFinalReview: {"final-review", "unit=final last=reviewed_head review=out pass=first"},
	RowReReview:    {"re-review", "last=reviewed_head review=out pass=re"},
	RowRecordClose: {"record-close", "last=reviewed_head review=in pass=re open=0 after=0"},
	RowRecord:      {"record", "last=reviewed_head review=in pass=re"},
	RowClose:       {"close", "last=reviewed_head review=in open=0 spec=✅,n/a after=0"},
	RowCheck:       {"check", "last=reviewed_head review=in open=0 spec=⚠️ after=0"},
	RowLate:        {"late", "after>0 left=0"},
	RowBreaker:     {"breaker", "open>0 left=0"},
	RowRefix:       {"refix", "after>0"},
	RowFix:         {"fix", "open>0"},
	RowRuled:       {"ruled", "last=fix,parked open=0"},
}

// String is the row's name in the table: "record-close"; "none" for NoRow.
func (r Row) String() string {
	if r < 0 || r >= NoRow {
		return "none"
	}
	return rows[r].name
}

// When is the row's conditions, as the table writes them.
func (r Row) When() string {
	if r < 0 || r >= NoRow {
		return ""
	}
	return rows[r].when
}

// Rows are the table's rows, in its order.
func Rows() []Row {
	out := make([]Row, NoRow)
	for i := range out {
		out[i] = Row(i)
	}
	return out
}

// Facts are the names of the facts the conditions read: of a ledger
// (ledger) and of a unit (the rest, in the order Look prints them, after
// unit).
var FactNames = []string{"ledger", "unit", "last", "after", "review", "pass", "spec", "open", "round", "left", "shas", "plan", "needs"}

// Pick returns the first row whose conditions all hold for facts, or
// NoRow. A row naming a fact that facts lack is passed over.
func Pick(facts map[string]string) Row {
	for r := Row(0); r < NoRow; r++ {
		if ok, err := Match(rows[r].when, facts); err == nil && ok {
			return r
		}
	}
	return NoRow
}

// Match reports whether every condition of when holds for facts; an
// error for a condition that is not of the three forms or names a fact
// that facts lack. A fact without a value ("-") is never more or less
// than a number.
func Match(when string, facts map[string]string) (bool, error) {
	for _, c := range strings.Fields(when) {
		i := strings.IndexAny(c, "=<>")
		if i <= 0 || i == len(c)-1 {
			return false, fmt.Errorf("condition %q is not fact=value, fact>n or fact<n", c)
		}
		name, op, want := c[:i], c[i], c[i+1:]
		got, ok := facts[name]
		if !ok {
			return false, fmt.Errorf("condition %q: no fact %q", c, name)
		}
		switch op {
		case '=':
			hit := false
			for _, w := range strings.Split(want, ",") {
				hit = hit || got == w
			}
			if !hit {
				return false, nil
			}
		default:
			n, err := strconv.Atoi(want)
			if err != nil {
				return false, fmt.Errorf("condition %q: %q is not a number", c, want)
			}
			g, err := strconv.Atoi(got)
			if err != nil || op == '>' && g <= n || op == '<' && g >= n {
				return false, nil
			}
		}
	}
	return true, nil
}
