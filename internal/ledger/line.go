// Package ledger is the SDD progress ledger: its line formats, what a
// ledger says about each unit of a run (a task, or the final review), and
// the row of the skill's state table that fits each unit. It reads and
// formats; the command that writes (sdd-ledger, internal/commands) asks
// git and the workspace for what the facts need.
//
// A ledger is append-only, one line per event, each line complete on its
// own, never rewritten: of two lines of one kind for one unit, the last
// counts (git's reflog keeps the same discipline).
package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// IdentityPrefix opens a ledger's first line; the plan's path follows. The
// dash is an em dash (U+2014).
const IdentityPrefix = "# SDD ledger — plan: "

// FileName is the ledger's name inside a workspace.
const FileName = "progress.md"

// Identity is the first line of the ledger of plan (its path relative to
// the repository root, as the workspace marker records it).
func Identity(plan string) string { return IdentityPrefix + plan }

// IdentityPlan returns the plan path a first line names; ok is false when
// the line is not an identity line. Trailing blanks and a CR are ignored.
func IdentityPlan(line string) (plan string, ok bool) {
	rest, found := strings.CutPrefix(line, IdentityPrefix)
	rest = strings.TrimRight(rest, " \t\r")
	if !found || rest == "" {
		return "", false
	}
	return rest, true
}

// Kind is what a ledger line records.
type Kind string

// The kinds of line, by their place in a unit's life.
const (
	None         Kind = "none" // a unit without lines (Facts only)
	Base         Kind = "base"
	Implementer  Kind = "implementer"
	ReviewedHead Kind = "reviewed_head"
	Minor        Kind = "minor"
	Settled      Kind = "settled"
	Added        Kind = "finding" // a finding the controller added (a failed check)
	Round        Kind = "fix"
	Parked       Kind = "parked"
	Blocked      Kind = "blocked"
	Complete     Kind = "complete"
)

// MaxRounds is a task's fix loop's hard cap (rounds are written R/5);
// the final review has one fix round (written 1/1).
const (
	MaxRounds      = 5
	MaxFinalRounds = 1
)

// Cap is the number of fix rounds unit may have.
func Cap(unit string) int {
	if unit == FinalUnit {
		return MaxFinalRounds
	}
	return MaxRounds
}

// FinalUnit names the final review's lines ("Final: …").
const FinalUnit = "Final"

// UnitName is the prefix of a task's lines: "Task 3".
func UnitName(task string) string { return "Task " + task }

// Line is one parsed ledger line.
type Line struct {
	Text  string
	Unit  string // "Task 3" or "Final"
	Kind  Kind
	Value string // the sha, the id, the one-liner; for parked the finding, for a round the open list

	// A parked line's ruling.
	Ruling string
	// A fix round line's numbers and the findings still open.
	Round, Addressed, Open int
	Findings               []Finding
	// A complete line's outcome ("review clean", "2 parked", …).
	Outcome string
}

var (
	unitRe     = lazyRegexp(`^(Task \d+|Final): (.*)$`)
	roundRe    = lazyRegexp(`^fix round (\d+)/(\d+) \((\d+) addressed, (\d+) open — (.*); commits ([0-9a-f]+)\.\.([0-9a-f]+)\)$`)
	completeRe = lazyRegexp(`^complete \(commits ([0-9a-f]+)\.\.([0-9a-f]+), (.+)\)$`)
	parkedRe   = lazyRegexp(`^parked — (.+) — ruling: (.+)$`)
)

// Parse reads one line (without its newline; a trailing CR is ignored);
// ok is false for a line in no format of the protocol.
func Parse(text string) (Line, bool) {
	text = strings.TrimSuffix(text, "\r")
	m := unitRe().FindStringSubmatch(text)
	if m == nil {
		return Line{}, false
	}
	l := Line{Text: text, Unit: m[1]}
	rest := m[2]
	for _, k := range []struct {
		prefix string
		kind   Kind
	}{
		{"base=", Base}, {"implementer=", Implementer}, {"reviewed_head=", ReviewedHead},
		{"minor (deferred): ", Minor}, {"settled — ", Settled}, {"finding — ", Added},
		{"BLOCKED — ", Blocked},
	} {
		if v, ok := strings.CutPrefix(rest, k.prefix); ok && v != "" {
			l.Kind, l.Value = k.kind, v
			switch k.kind {
			case Base, ReviewedHead:
				if !shaRe().MatchString(v) {
					return Line{}, false
				}
			case Added:
				f, ok := parseFinding(v)
				if !ok {
					return Line{}, false
				}
				l.Findings = []Finding{f}
			}
			return l, true
		}
	}
	if p := parkedRe().FindStringSubmatch(rest); p != nil {
		l.Kind, l.Value, l.Ruling = Parked, p[1], p[2]
		return l, true
	}
	if c := completeRe().FindStringSubmatch(rest); c != nil {
		l.Kind, l.Value, l.Outcome = Complete, c[1]+".."+c[2], c[3]
		return l, true
	}
	if r := roundRe().FindStringSubmatch(rest); r != nil {
		fs, err := ParseFindings(r[5])
		if err != nil {
			return Line{}, false
		}
		if r[2] != strconv.Itoa(Cap(l.Unit)) {
			return Line{}, false
		}
		l.Kind, l.Value, l.Findings = Round, r[5], fs
		l.Round, _ = strconv.Atoi(r[1])
		l.Addressed, _ = strconv.Atoi(r[3])
		l.Open, _ = strconv.Atoi(r[4])
		return l, true
	}
	return Line{}, false
}

var shaRe = lazyRegexp(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Finding is one numbered finding: "F2 [Important] parse.go:3 off by one".
type Finding struct {
	ID    string // F2
	Grade string // Spec, Critical, Important; "" where the text gives none
	Text  string // the rest
}

// String is the finding as the ledger and the dispatches carry it: its id
// and its text, without the grade.
func (f Finding) String() string { return f.ID + " " + f.Text }

var findingRe = lazyRegexp(`^(F\d+)(?: \[([A-Za-z]+)\])? (.+)$`)

func parseFinding(s string) (Finding, bool) {
	m := findingRe().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Finding{}, false
	}
	return Finding{ID: m[1], Grade: m[2], Text: m[3]}, true
}

var nextFindingRe = lazyRegexp(`; (F\d+ )`)

// ParseFindings reads a list of findings as reviews and round lines write
// it: "F1 [Important] a.go:1 x; F2 …", or "none". A finding's own "; "
// stays in it: the list is split only before "; F<digits> ".
func ParseFindings(s string) ([]Finding, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil, nil
	}
	var parts []string
	from := 0
	for _, ix := range nextFindingRe().FindAllStringIndex(s, -1) {
		parts = append(parts, s[from:ix[0]])
		from = ix[0] + 2
	}
	parts = append(parts, s[from:])
	out := make([]Finding, 0, len(parts))
	for _, p := range parts {
		f, ok := parseFinding(p)
		if !ok {
			return nil, fmt.Errorf("a finding without an id (F1, F2, …): %q", p)
		}
		out = append(out, f)
	}
	return out, nil
}

// JoinFindings writes findings as a round line carries them ("none" for
// none).
func JoinFindings(fs []Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// CheckText says why s cannot be a one-liner of a ledger line (a finding,
// a ruling, a reason, a decision), or nil: it must be one non-empty line
// of printable text, and hold no separator a reader would split at.
func CheckText(what, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s is empty", what)
	case strings.ContainsAny(s, "\n\r"):
		return fmt.Errorf("%s holds a line break: a ledger line is one line", what)
	case strings.Contains(s, " — ruling: "):
		return fmt.Errorf("%s holds \" — ruling: \", which separates a parked finding from its ruling", what)
	case strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) >= 0:
		return fmt.Errorf("%s holds a control character", what)
	}
	return nil
}

// CheckFinding is CheckText for a finding's text, which fix round lines
// carry in a list split before "; F<k> ": a text holding that separator
// would read back as two findings.
func CheckFinding(what, s string) error {
	if err := CheckText(what, s); err != nil {
		return err
	}
	if m := nextFindingRe().FindString(s); m != "" {
		return fmt.Errorf("%s holds %q, which separates the findings of a fix round's list", what, m)
	}
	return nil
}

// The formats, one function per kind of line. Each returns the line
// without its newline; shas are full, short shas as git abbreviates them.

func FormatBase(unit, sha string) string         { return unit + ": base=" + sha }
func FormatImplementer(unit, id string) string   { return unit + ": implementer=" + id }
func FormatReviewedHead(unit, sha string) string { return unit + ": reviewed_head=" + sha }
func FormatMinor(unit, s string) string          { return unit + ": minor (deferred): " + s }
func FormatSettled(unit, s string) string        { return unit + ": settled — " + s }
func FormatFinding(unit string, f Finding) string {
	return unit + ": finding — " + f.String()
}
func FormatParked(unit string, f Finding, why string) string {
	return unit + ": parked — " + f.String() + " — ruling: " + why
}
func FormatBlocked(unit, reason string) string { return unit + ": BLOCKED — " + reason }

// FormatRound is a fix round's line: open are the findings still open
// after it, and a7..b7 the round's commits (short; the same twice for a
// round without commits).
func FormatRound(unit string, round, addressed int, open []Finding, a7, b7 string) string {
	return fmt.Sprintf("%s: fix round %d/%d (%d addressed, %d open — %s; commits %s..%s)",
		unit, round, Cap(unit), addressed, len(open), JoinFindings(open), a7, b7)
}

// FormatComplete is a unit's last line; outcome is "review clean", "<K>
// parked" or "earlier run, human confirmed".
func FormatComplete(unit, base7, head7, outcome string) string {
	return fmt.Sprintf("%s: complete (commits %s..%s, %s)", unit, base7, head7, outcome)
}

// Outcome is a closed unit's outcome: "review clean", or "<K> parked".
func Outcome(parked int) string {
	if parked == 0 {
		return "review clean"
	}
	return fmt.Sprintf("%d parked", parked)
}
