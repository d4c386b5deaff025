package skilltext

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// IdentityPrefix starts the first line of every ledger. The dash is an em
// dash (U+2014).
const IdentityPrefix = "# SDD ledger \u2014 plan: "

// LedgerFormats returns the ledger line formats the skill text lists: the
// lines of the first fenced block that starts with the identity line.
func LedgerFormats(skill string) []string {
	for _, f := range Fences(skill) {
		if f.Depth == 0 && strings.HasPrefix(f.Body, IdentityPrefix+"<") {
			return strings.Split(strings.TrimSuffix(f.Body, "\n"), "\n")
		}
	}
	return nil
}

// Format is one compiled ledger line format.
type Format struct {
	Text  string // as written, e.g. "Task <N>: base=<sha>"
	Scope string // "identity", "task" (Task <N>: …) or "final" (Final: …)
	Kind  string // the word after the scope's prefix: base, fix, parked, ...
	re    *regexp.Regexp
	names []string
}

var fieldRe = regexp.MustCompile(`<([^<>]+)>`)

// fieldPattern says what each placeholder of a format may hold.
func fieldPattern(name string) string {
	switch name {
	case "N", "X", "Y", "K":
		return `[0-9]+`
	case "R":
		return `[1-5]`
	case "sha":
		return `[0-9a-f]{40}(?:[0-9a-f]{24})?`
	case "base7", "head7", "a7", "b7":
		return `[0-9a-f]{7,39}` // short: never a full sha
	case "id":
		return `\S+`
	default: // free text: plan path, one-liners, rulings, reasons
		return `.+?`
	}
}

const (
	taskPrefix  = "Task <N>: "
	finalPrefix = "Final: "
)

// CompileFormat turns a format line into a matcher: the text outside <…>
// is literal, each <name> matches what fieldPattern allows.
func CompileFormat(format string) (Format, error) {
	var re strings.Builder
	re.WriteString("^")
	f := Format{Text: format}
	last := 0
	for _, m := range fieldRe.FindAllStringSubmatchIndex(format, -1) {
		re.WriteString(regexp.QuoteMeta(format[last:m[0]]))
		name := format[m[2]:m[3]]
		f.names = append(f.names, name)
		re.WriteString("(" + fieldPattern(name) + ")")
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(format[last:]))
	re.WriteString("$")
	var err error
	if f.re, err = regexp.Compile(re.String()); err != nil {
		return Format{}, err
	}
	var rest string
	switch {
	case strings.HasPrefix(format, taskPrefix):
		f.Scope, rest = "task", strings.TrimPrefix(format, taskPrefix)
	case strings.HasPrefix(format, finalPrefix):
		f.Scope, rest = "final", strings.TrimPrefix(format, finalPrefix)
	case strings.HasPrefix(format, IdentityPrefix):
		f.Scope, f.Kind = "identity", "identity"
		return f, nil
	default:
		return Format{}, fmt.Errorf("format %q is neither the identity line nor a Task or Final line", format)
	}
	end := strings.IndexFunc(rest, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		end = len(rest)
	}
	f.Kind = rest[:end]
	return f, nil
}

// Match reports whether line has this format, with the field values.
func (f Format) Match(line string) (map[string]string, bool) {
	m := f.re.FindStringSubmatch(line)
	if m == nil {
		return nil, false
	}
	out := map[string]string{}
	for i, n := range f.names {
		out[n] = m[i+1]
	}
	return out, true
}

// Fill writes a line of this format with the given field values.
func (f Format) Fill(values map[string]string) string {
	return fieldRe.ReplaceAllStringFunc(f.Text, func(s string) string {
		v, ok := values[s[1:len(s)-1]]
		if !ok {
			return s
		}
		return v
	})
}

// Entry is one parsed ledger line.
type Entry struct {
	Line   int
	Scope  string
	Kind   string
	Format string
	Fields map[string]string
}

// TaskState is what the ledger says about one task.
type TaskState struct {
	Base          string
	Implementer   string   // the last implementer= id
	ReviewedHeads []string // every reviewed_head=, in order: the review's, then each re-review's
	ReviewedHead  string   // the last of them: where the next re-review starts
	Round         int      // last fix round recorded, 0 for none
	LastHead      string   // the short head the last fix round's range ends at
	Open          int      // findings the last fix round left open
	LastKind      string   // the kind of the last line, implementer= and minor lines aside
	Minors        []string
	Parked        []string
	Blocked       string
	Complete      bool
	Entries       []Entry
}

// FinalState is what the ledger says about the final review.
type FinalState struct {
	Base          string
	ReviewedHeads []string // the final review's head, then the re-review's
	Minors        []string
	Parked        []string
	Blocked       string
	Complete      bool
	LastKind      string
}

// Ledger is a parsed progress ledger.
type Ledger struct {
	Plan  string
	Tasks map[int]*TaskState
	Final *FinalState // nil until a Final: line
}

// Done reports whether task n has its completion line.
func (l *Ledger) Done(n int) bool {
	t := l.Tasks[n]
	return t != nil && t.Complete
}

// NextRound is the fix round a resumed controller runs next for task n.
func (l *Ledger) NextRound(n int) int {
	if t := l.Tasks[n]; t != nil {
		return t.Round + 1
	}
	return 1
}

// FixBase is the revision a scoped re-review of task n starts from: the
// last reviewed_head, the head the previous review saw.
func (l *Ledger) FixBase(n int) string {
	if t := l.Tasks[n]; t != nil {
		return t.ReviewedHead
	}
	return ""
}

// ParseLedger reads a ledger written with the given formats and checks
// the order the skill's blocks write it in: the identity line first,
// nothing but known lines; a task's base before anything else of it; one
// reviewed_head= for its review, then for each fix round the re-review's
// reviewed_head= followed by the round's line, rounds counted 1 to 5,
// each round's range running from the previous reviewed head to the last
// one; parking and blocking only after round 5; a completion line whose
// range runs from the base to the last reviewed head and whose parked
// count is the number of parked lines (and the last round's open count);
// nothing after it. The final review's lines come once every task is
// complete: base, the review's head, at most one re-review's head, then
// rulings and completion, nothing after.
func ParseLedger(text string, formats []string) (*Ledger, error) {
	var compiled []Format
	var identity Format
	for _, s := range formats {
		f, err := CompileFormat(s)
		if err != nil {
			return nil, err
		}
		if f.Scope == "identity" {
			identity = f
			continue
		}
		compiled = append(compiled, f)
	}
	if identity.re == nil {
		return nil, fmt.Errorf("no identity format among %d formats", len(formats))
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	fields, ok := identity.Match(lines[0])
	if !ok {
		return nil, fmt.Errorf("line 1: not the identity line: %q", lines[0])
	}
	l := &Ledger{Plan: fields["plan file path"], Tasks: map[int]*TaskState{}}
	for i, line := range lines[1:] {
		no := i + 2
		var e *Entry
		for _, f := range compiled {
			if v, ok := f.Match(line); ok {
				e = &Entry{Line: no, Scope: f.Scope, Kind: f.Kind, Format: f.Text, Fields: v}
				break
			}
		}
		if e == nil {
			return nil, fmt.Errorf("line %d: no ledger format matches %q", no, line)
		}
		var err error
		if e.Scope == "final" {
			err = l.applyFinal(*e)
		} else {
			err = l.apply(*e)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w: %q", no, err, line)
		}
	}
	return l, nil
}

// shortOf reports whether short is an abbreviation of the full sha.
func shortOf(short, full string) bool {
	return len(short) >= 7 && strings.HasPrefix(full, short)
}

func (l *Ledger) apply(e Entry) error {
	if l.Final != nil {
		return fmt.Errorf("a task line after the final review began")
	}
	n, err := strconv.Atoi(e.Fields["N"])
	if err != nil {
		return err
	}
	t := l.Tasks[n]
	if t != nil && t.Complete {
		return fmt.Errorf("task %d is already complete", n)
	}
	if t != nil && t.Blocked != "" {
		return fmt.Errorf("task %d is BLOCKED", n)
	}
	if e.Kind == "base" {
		// A restarted task records a new base; its history starts over.
		l.Tasks[n] = &TaskState{Base: e.Fields["sha"], LastKind: "base", Entries: []Entry{e}}
		return nil
	}
	if t == nil {
		return fmt.Errorf("task %d has no base line yet", n)
	}
	t.Entries = append(t.Entries, e)
	heads := len(t.ReviewedHeads)
	switch e.Kind {
	case "implementer":
		t.Implementer = e.Fields["id"]
		return nil // not a step of the task: LastKind stays
	case "minor":
		t.Minors = append(t.Minors, e.Fields["one-liner"])
		return nil
	case "reviewed_head":
		switch {
		case len(t.Parked) > 0:
			return fmt.Errorf("a review after the breaker's rulings")
		case heads == 5+1:
			return fmt.Errorf("a review after fix round 5")
		case heads != 0 && heads != t.Round+1:
			return fmt.Errorf("a third reviewed head with no fix round line for the second")
		}
		t.ReviewedHeads = append(t.ReviewedHeads, e.Fields["sha"])
		t.ReviewedHead = e.Fields["sha"]
	case "fix":
		r, _ := strconv.Atoi(e.Fields["R"])
		switch {
		case r != t.Round+1:
			return fmt.Errorf("fix round %d follows round %d", r, t.Round)
		case heads != t.Round+2:
			return fmt.Errorf("fix round %d without its re-review's reviewed_head= line", r)
		case !shortOf(e.Fields["a7"], t.ReviewedHeads[heads-2]):
			return fmt.Errorf("round %d starts at %s, not at the head the previous review saw (%s)", r, e.Fields["a7"], t.ReviewedHeads[heads-2])
		case !shortOf(e.Fields["b7"], t.ReviewedHeads[heads-1]):
			return fmt.Errorf("round %d ends at %s, not at the head its re-review saw (%s)", r, e.Fields["b7"], t.ReviewedHeads[heads-1])
		}
		t.Round = r
		t.LastHead = e.Fields["b7"]
		t.Open, _ = strconv.Atoi(e.Fields["Y"])
	case "parked", "BLOCKED":
		if t.Round != 5 || heads != 5+1 {
			return fmt.Errorf("%s after round %d: the breaker acts only after round 5's re-review", e.Kind, t.Round)
		}
		if e.Kind == "parked" {
			t.Parked = append(t.Parked, e.Fields["finding"])
		} else {
			t.Blocked = e.Fields["reason"]
		}
	case "complete":
		switch {
		case heads == 0:
			return fmt.Errorf("complete without a review")
		case heads != t.Round+1:
			return fmt.Errorf("complete while a re-review has no fix round line")
		case !shortOf(e.Fields["base7"], t.Base):
			return fmt.Errorf("completion range starts at %s, base is %s", e.Fields["base7"], t.Base)
		case !shortOf(e.Fields["head7"], t.ReviewedHead):
			return fmt.Errorf("completion range ends at %s, last reviewed head is %s", e.Fields["head7"], t.ReviewedHead)
		case t.Round > 0 && t.Open != len(t.Parked):
			return fmt.Errorf("round %d left %d open, %d parked", t.Round, t.Open, len(t.Parked))
		}
		if err := parkedCount(e, len(t.Parked)); err != nil {
			return err
		}
		t.Complete = true
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	t.LastKind = e.Kind
	return nil
}

// parkedCount checks a completion line's parked count against the parked
// lines before it.
func parkedCount(e Entry, parked int) error {
	k := 0
	if s, ok := e.Fields["K"]; ok {
		k, _ = strconv.Atoi(s)
		if k == 0 {
			return fmt.Errorf("0 parked: write review clean")
		}
	}
	if k != parked {
		return fmt.Errorf("completion says %d parked, the ledger parks %d", k, parked)
	}
	return nil
}

func (l *Ledger) applyFinal(e Entry) error {
	f := l.Final
	if e.Kind == "base" {
		if f != nil {
			return fmt.Errorf("a second Final: base")
		}
		if len(l.Tasks) == 0 {
			return fmt.Errorf("final review before any task")
		}
		for n, t := range l.Tasks {
			if !t.Complete {
				return fmt.Errorf("final review while task %d is not complete", n)
			}
		}
		l.Final = &FinalState{Base: e.Fields["sha"], LastKind: "base"}
		return nil
	}
	if f == nil {
		return fmt.Errorf("a Final: line before Final: base")
	}
	if f.Complete || f.Blocked != "" {
		return fmt.Errorf("the final review is already over")
	}
	switch e.Kind {
	case "minor":
		f.Minors = append(f.Minors, e.Fields["one-liner"])
		return nil
	case "reviewed_head":
		if len(f.Parked) > 0 {
			return fmt.Errorf("a review after the rulings")
		}
		if len(f.ReviewedHeads) == 2 {
			return fmt.Errorf("a third final review: the final review gets one fix and one re-review")
		}
		f.ReviewedHeads = append(f.ReviewedHeads, e.Fields["sha"])
	case "parked", "BLOCKED", "complete":
		if len(f.ReviewedHeads) == 0 {
			return fmt.Errorf("Final: %s before the final review", e.Kind)
		}
		switch e.Kind {
		case "parked":
			f.Parked = append(f.Parked, e.Fields["finding"])
		case "BLOCKED":
			f.Blocked = e.Fields["reason"]
		case "complete":
			if !shortOf(e.Fields["base7"], f.Base) {
				return fmt.Errorf("final range starts at %s, Final: base is %s", e.Fields["base7"], f.Base)
			}
			if head := f.ReviewedHeads[len(f.ReviewedHeads)-1]; !shortOf(e.Fields["head7"], head) {
				return fmt.Errorf("final range ends at %s, last reviewed head is %s", e.Fields["head7"], head)
			}
			if err := parkedCount(e, len(f.Parked)); err != nil {
				return err
			}
			f.Complete = true
		}
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	f.LastKind = e.Kind
	return nil
}
