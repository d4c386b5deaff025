//lint:file-ignore ST1005 an answer's error begins with the label of the line it is about, as the reviewer wrote it ("Spec: …", "New: …")

package ledger

import (
	"fmt"
	"strings"

	"github.com/sdd-go/sdd-go/internal/lazyre"
)

// A reviewer writes its review beside the package it read (.diff becomes
// .md), beginning with its answer's lines; the role files
// (skill/task-reviewer-prompt.md, skill/re-review-prompt.md) give their
// layout. Those lines are what the ledger's facts are read from: a
// review's verdicts become the unit's open findings and its minors.

// ReviewMax bounds how much of a review file is read for its answer.
const ReviewMax = 64 << 10

// Review is a task review's (or the final review's) answer.
type Review struct {
	Spec          string // ✅, ⚠️, ❌, or n/a in the final review
	Open          []Finding
	Minors        []string
	NotVerifiable string // "" for none
}

// ReReview is a scoped re-review's answer.
type ReReview struct {
	Addressed  map[string]bool // by finding id: ADDRESSED (true) or NOT ADDRESSED
	New        []Finding
	OutOfScope []string
}

// answerLines are the "Label: value" lines a review file begins with,
// up to the first line that is not one.
func answerLines(text string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		label, value, ok := strings.Cut(l, ": ")
		if !ok || label == "" || strings.ContainsAny(label, "#*`") {
			break
		}
		if _, dup := out[label]; !dup {
			// Whatever bytes the reviewer wrote, what is read is what the
			// ledger records and reads back: one line of printable text.
			out[label] = Clean(value)
		}
	}
	return out
}

func need(lines map[string]string, label string) (string, error) {
	v, ok := lines[label]
	if !ok {
		return "", fmt.Errorf("no %q line among the answer's lines at its top", label+":")
	}
	return v, nil
}

// ParseReview reads a task or final review file's answer. A review that
// says Spec ❌ names what is missing as findings: Spec ❌ with nothing
// open is not an answer the run can act on.
func ParseReview(text string) (Review, error) {
	lines := answerLines(text)
	var r Review
	spec, err := need(lines, "Spec")
	if err != nil {
		return r, err
	}
	switch spec {
	case "✅", "❌", "n/a":
		r.Spec = spec
	case "⚠️", "⚠":
		r.Spec = "⚠️"
	default:
		return r, fmt.Errorf("Spec: %q is none of ✅, ⚠️, ❌, n/a", spec)
	}
	open, err := need(lines, "Open")
	if err != nil {
		return r, err
	}
	if r.Open, err = ParseFindings(open); err != nil {
		return r, fmt.Errorf("Open: %v", err)
	}
	if id := repeatedID(r.Open, nil); id != "" {
		return r, fmt.Errorf("Open: two findings are %s (each finding has an id of its own)", id)
	}
	minor, err := need(lines, "Minor")
	if err != nil {
		return r, err
	}
	r.Minors = oneLiners(minor)
	if nv := lines["Not verifiable"]; nv != "none" {
		r.NotVerifiable = nv
	}
	if r.Spec == "❌" && len(r.Open) == 0 {
		return r, fmt.Errorf("Spec: ❌ with Open: none (what is missing must be an open finding)")
	}
	return r, nil
}

var verdictRe = lazyre.New(`^(ADDRESSED|NOT ADDRESSED)(?:\s*—.*)?$`)

// ParseReReview reads a re-review file's answer: a verdict for each of
// ids, the findings still open going into it.
func ParseReReview(text string, ids []string) (ReReview, error) {
	lines := answerLines(text)
	r := ReReview{Addressed: map[string]bool{}}
	for _, id := range ids {
		v, err := need(lines, id)
		if err != nil {
			return r, err
		}
		m := verdictRe().FindStringSubmatch(v)
		if m == nil {
			return r, fmt.Errorf("%s: %q is neither ADDRESSED nor NOT ADDRESSED", id, v)
		}
		r.Addressed[id] = m[1] == "ADDRESSED"
	}
	n, err := need(lines, "New")
	if err != nil {
		return r, err
	}
	if r.New, err = ParseFindings(n); err != nil {
		return r, fmt.Errorf("New: %v", err)
	}
	if id := repeatedID(r.New, ids); id != "" {
		return r, fmt.Errorf("New: %s is already a finding's id (a new finding takes an id no finding had)", id)
	}
	out, err := need(lines, "Out of scope")
	if err != nil {
		return r, err
	}
	r.OutOfScope = oneLiners(out)
	return r, nil
}

var nextMinorRe = lazyre.New(`; M\d+ `)

// oneLiners reads a list of minors, "M1 a; M2 b", the ids left out, an
// item's own "; " kept in it (the list is split only before "; M<k> ");
// or, unnumbered, "a; b", split at each "; "; or "none".
func oneLiners(s string) []string {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil
	}
	var parts []string
	if strings.HasPrefix(s, "M1 ") {
		from := 0
		for _, ix := range nextMinorRe().FindAllStringIndex(s, -1) {
			parts = append(parts, s[from:ix[0]])
			from = ix[0] + 2
		}
		parts = append(parts, s[from:])
		for i, p := range parts {
			_, parts[i], _ = strings.Cut(p, " ")
		}
	} else {
		parts = strings.Split(s, "; ")
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// repeatedID is an id that two of fs, or one of fs and taken, share; "" if
// none: findings are ruled on, parked and recorded by id.
func repeatedID(fs []Finding, taken []string) string {
	seen := map[string]bool{}
	for _, id := range taken {
		seen[id] = true
	}
	for _, f := range fs {
		if seen[f.ID] {
			return f.ID
		}
		seen[f.ID] = true
	}
	return ""
}
