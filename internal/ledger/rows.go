package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is one row of the skill's state table (skill/SKILL.md, "What
// next"): its name, and the facts it fits, in the table's own words. The
// text is the authority over what each row does; Look names the row that
// fits so that the reader of the text can check its own choice, and the
// skill's tests check that the row named here is the row a literal reading
// of the text's table picks, for every state they resume from.
type Row struct {
	Name string
	When string // conditions, all of which must hold: "last=base after>0"
}

// LedgerRows are tried on the ledger as a whole, before any unit.
var LedgerRows = []Row{
	{"foreign", "ledger=other"},
	{"new", "ledger=none"},
}

// UnitRows are tried on each unit, in plan order, then the final review:
// the first that fits is the unit's row.
var UnitRows = []Row{
	{"finished", "unit=final last=complete"},
	{"rewritten", "shas=rewritten,gone,missing"},
	{"done", "last=complete"},
	{"batched", "last=batched"},
	{"blocked", "last=blocked"},
	{"start", "unit=task last=none"},
	{"final", "unit=final last=none"},
	{"implement", "last=base after=0"},
	{"package", "last=base after>0"},
	{"review", "unit=task last=reviewed_head review=out pass=first"},
	{"final-review", "unit=final last=reviewed_head review=out pass=first"},
	{"re-review", "last=reviewed_head review=out pass=re"},
	{"record-close", "last=reviewed_head review=in pass=re open=0 after=0"},
	{"record", "last=reviewed_head review=in pass=re"},
	{"close", "last=reviewed_head review=in open=0 spec=✅,n/a after=0"},
	{"check", "last=reviewed_head review=in open=0 spec=⚠️ after=0"},
	{"late", "unit=task after>0 round=5"},
	{"final-late", "unit=final after>0 round=1"},
	{"breaker", "unit=task open>0 round=5"},
	{"final-breaker", "unit=final open>0 round=1"},
	{"refix", "after>0"},
	{"fix", "unit=task open>0 round<5"},
	{"final-fix", "unit=final open>0 round=0"},
	{"ruled", "last=fix,parked open=0"},
}

// NoRow is the row name when none fits: a ledger the table has no move for.
const NoRow = "none"

// Pick returns the name of the first row of rows whose conditions all hold
// for facts, or NoRow.
func Pick(rows []Row, facts map[string]string) string {
	for _, r := range rows {
		ok, err := Match(r.When, facts)
		if err != nil {
			panic(fmt.Sprintf("row %s: %v", r.Name, err)) // the table above is wrong
		}
		if ok {
			return r.Name
		}
	}
	return NoRow
}

// Match reports whether every condition of when holds for facts. A
// condition is name=value (value may list alternatives: a,b), name>n or
// name<n; a fact without a value ("-") is never more or less than a
// number.
func Match(when string, facts map[string]string) (bool, error) {
	for _, c := range strings.Fields(when) {
		i := strings.IndexAny(c, "=<>")
		if i <= 0 || i == len(c)-1 {
			return false, fmt.Errorf("condition %q is not name=value, name>n or name<n", c)
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
				if got == w {
					hit = true
				}
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
			if err != nil {
				return false, nil
			}
			if op == '>' && !(g > n) || op == '<' && !(g < n) {
				return false, nil
			}
		}
	}
	return true, nil
}
