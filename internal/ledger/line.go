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

	"github.com/sdd-go/sdd-go/internal/lazyre"

	"github.com/sdd-go/sdd-go/internal/workspace"
)

// IdentityPrefix opens a ledger's first line; the plan's path follows. The
// dash is an em dash (U+2014).
const IdentityPrefix = workspace.LedgerIdentity

// FileName is the ledger's name inside a workspace.
const FileName = "progress.md"

// Identity is the first line of the ledger of plan (its path relative to
// the repository root, as the workspace marker records it).
func Identity(plan string) string { return IdentityPrefix + plan }

// IdentityPlan returns the plan path a first line names; ok is false when
// the line is not an identity line. Invisible bytes before it (a BOM, as
// PowerShell 5 and Notepad write one) and trailing blanks and a CR are
// ignored: they never make another plan's first line read as none
// (workspace.IdentityPlan, which adoption reads too).
func IdentityPlan(line string) (plan string, ok bool) { return workspace.IdentityPlan(line) }

// Kind is what a ledger line records.
type Kind string

// The kinds of line, by their place in a unit's life.
const (
	KindNone         Kind = "none" // a unit without lines (Facts only)
	KindBase         Kind = "base"
	KindImplementer  Kind = "implementer"
	KindReviewedHead Kind = "reviewed_head"
	KindMinor        Kind = "minor"
	KindSettled      Kind = "settled"
	KindFinding      Kind = "finding" // a finding the controller added (a failed check)
	KindFix          Kind = "fix"
	KindParked       Kind = "parked"
	KindBlocked      Kind = "blocked"
	KindUnblocked    Kind = "unblocked" // the human's decision to go on after a BLOCKED
	KindComplete     Kind = "complete"
	KindRestarted    Kind = "restarted" // the human's decision to begin the record again (RunUnit)
	KindBatch        Kind = "batch"     // the first task of a batch: the tasks it holds
	KindBatched      Kind = "batched"   // a later task of a batch: its first task does its steps
	KindSide         Kind = "side"      // the human's answer: tasks side by side, so many at a time (RunUnit)
	KindBranch       Kind = "branch"    // a task side by side: its own branch, in its own worktree
	KindJoined       Kind = "joined"    // the feature branch's head once the task's branch joined it
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

// RunUnit names the lines about the whole run ("Run: restarted — …").
const RunUnit = "Run"

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
	// A batch line's tasks, by number, in plan order.
	Members []string
}

var (
	roundRe    = lazyre.New(`^fix round (\d+)/(\d+) \((\d+) addressed, (\d+) open — (.*); commits ([0-9a-f]+)\.\.([0-9a-f]+)\)$`)
	completeRe = lazyre.New(`^complete \(commits ([0-9a-f]+)\.\.([0-9a-f]+), (.+)\)$`)
	parkedRe   = lazyre.New(`^parked — (.+) — ruling: (.+)$`)
	sideRe     = lazyre.New(`^side by side — ([1-9]) at a time$`)
)

// Parse reads one line (without its newline; a trailing CR is ignored);
// ok is false for a line in no format of the protocol.
func Parse(text string) (Line, bool) {
	text = strings.TrimSuffix(text, "\r")
	unit, rest, ok := cutUnit(text)
	if !ok {
		return Line{}, false
	}
	l := Line{Text: text, Unit: unit}
	if l.Unit == RunUnit {
		if m := sideRe().FindStringSubmatch(rest); m != nil {
			l.Kind, l.Value = KindSide, m[1]
			return l, true
		}
		v, ok := strings.CutPrefix(rest, "restarted — ")
		if !ok || v == "" {
			return Line{}, false
		}
		l.Kind, l.Value = KindRestarted, v
		return l, true
	}
	for _, k := range []struct {
		prefix string
		kind   Kind
	}{
		{"base=", KindBase}, {"implementer=", KindImplementer}, {"reviewed_head=", KindReviewedHead},
		{"minor (deferred): ", KindMinor}, {"settled — ", KindSettled}, {"finding — ", KindFinding},
		{"BLOCKED — ", KindBlocked}, {"unblocked — ", KindUnblocked},
		{"batch — Tasks ", KindBatch}, {"batched — in ", KindBatched},
		{"branch=", KindBranch}, {"joined=", KindJoined},
	} {
		if v, ok := strings.CutPrefix(rest, k.prefix); ok && v != "" {
			l.Kind, l.Value = k.kind, v
			switch k.kind {
			case KindBase, KindReviewedHead, KindJoined:
				if !isSha(v) {
					return Line{}, false
				}
			case KindFinding:
				f, ok := parseFinding(v)
				if !ok {
					return Line{}, false
				}
				l.Findings = []Finding{f}
			case KindBatch:
				l.Members = strings.Split(v, ", ")
				for _, n := range l.Members {
					if n == "" || strings.Trim(n, "0123456789") != "" {
						return Line{}, false
					}
				}
				if len(l.Members) < 2 || UnitName(l.Members[0]) != l.Unit {
					return Line{}, false
				}
			case KindBatched:
				if _, _, ok := cutUnit(v + ": "); !ok || !strings.HasPrefix(v, "Task ") || v == l.Unit {
					return Line{}, false
				}
			case KindBranch:
				if !isBranchName(v) {
					return Line{}, false
				}
			}
			return l, true
		}
	}
	// The expressions run only on a line that begins as their kind does:
	// a long run's ledger has tens of thousands of lines.
	if !strings.HasPrefix(rest, "parked — ") && !strings.HasPrefix(rest, "complete (") && !strings.HasPrefix(rest, "fix round ") {
		return Line{}, false
	}
	if p := parkedRe().FindStringSubmatch(rest); p != nil {
		l.Kind, l.Value, l.Ruling = KindParked, p[1], p[2]
		return l, true
	}
	if c := completeRe().FindStringSubmatch(rest); c != nil {
		l.Kind, l.Value, l.Outcome = KindComplete, c[1]+".."+c[2], c[3]
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
		l.Kind, l.Value, l.Findings = KindFix, r[5], fs
		l.Round, _ = strconv.Atoi(r[1])
		l.Addressed, _ = strconv.Atoi(r[3])
		l.Open, _ = strconv.Atoi(r[4])
		return l, true
	}
	return Line{}, false
}

// cutUnit splits a line into its unit ("Task 3", "Final", "Run") and the
// rest after ": ".
func cutUnit(text string) (unit, rest string, ok bool) {
	head, rest, found := strings.Cut(text, ": ")
	if !found {
		return "", "", false
	}
	switch {
	case head == FinalUnit || head == RunUnit:
		return head, rest, true
	case strings.HasPrefix(head, "Task ") && len(head) > len("Task ") && strings.Trim(head[len("Task "):], "0123456789") == "":
		return head, rest, true
	}
	return "", "", false
}

// isSha says whether s is a full sha: 40 (SHA-1) or 64 (SHA-256) hex
// digits, lower case.
func isSha(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Finding is one numbered finding: "F2 [Important] parse.go:3 off by one".
type Finding struct {
	ID    string // F2
	Grade string // Spec, Critical, Important; "" where the text gives none
	Text  string // the rest
}

// String is the finding as the ledger and the dispatches carry it: its id
// and its text, without the grade.
func (f Finding) String() string { return f.ID + " " + f.Text }

var findingRe = lazyre.New(`^(F\d+)(?: \[([A-Za-z]+)\])? (.+)$`)

func parseFinding(s string) (Finding, bool) {
	m := findingRe().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Finding{}, false
	}
	return Finding{ID: m[1], Grade: m[2], Text: m[3]}, true
}

var nextFindingRe = lazyre.New(`; (F\d+ )`)

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
func FormatUnblocked(unit, decision string) string {
	return unit + ": unblocked — " + decision
}
func FormatRestarted(reason string) string { return RunUnit + ": restarted — " + reason }

// FormatSide is the human's answer to running tasks side by side: at most
// k at a time (1: one at a time, as without the answer).
func FormatSide(k int) string { return fmt.Sprintf("%s: side by side — %d at a time", RunUnit, k) }

func FormatBranch(unit, branch string) string { return unit + ": branch=" + branch }
func FormatJoined(unit, sha string) string    { return unit + ": joined=" + sha }

// isBranchName says whether s is a branch name as the command makes them
// (BranchName): letters, digits, '-', '_' and '/' between them.
func isBranchName(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//") {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '/') {
			return false
		}
	}
	return true
}

// FormatBatch is the line of a batch's first task naming every task of
// it, by number, in plan order (the first task's own number first).
func FormatBatch(members []string) string {
	return UnitName(members[0]) + ": batch — Tasks " + strings.Join(members, ", ")
}

// FormatBatched is the line of a later task of a batch: the first task
// (head, "Task 3") does its steps.
func FormatBatched(unit, head string) string { return unit + ": batched — in " + head }

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
