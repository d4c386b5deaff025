package ledger

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The texts a verb is given (decisions, findings, reasons, agent ids):
// refused when they would not read back as given, cleaned when read from
// a review.

// CheckText says why s cannot be a one-liner of a ledger line (a finding,
// a ruling, a reason, a decision), or nil: it must be one non-empty line
// of printable text that reads back exactly as given, and hold no
// separator a reader would split at. A line break is also what editors
// and terminals take for one: CR, NEL (U+0085), U+2028, U+2029.
func CheckText(what, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s is empty", what)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not valid UTF-8", what)
	case strings.ContainsAny(s, "\n\r\u0085\u2028\u2029"):
		return fmt.Errorf("%s holds a line break: a ledger line is one line", what)
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0:
		return fmt.Errorf("%s holds a control character", what)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("%s begins or ends with a blank, which the ledger would not read back", what)
	case strings.Contains(s, " — ruling: ") || strings.HasPrefix(s, "— ruling: ") || strings.HasSuffix(s, " — ruling:"):
		return fmt.Errorf("%s holds \" — ruling: \", which separates a parked finding from its ruling", what)
	}
	return nil
}

// CheckFinding is CheckText for a finding's text, which reads back from
// its own line and from a fix round's list, split before "; F<k> ": a text
// holding that separator would read back as two findings, and one that
// begins with a grade ("[Critical] x") as another text.
func CheckFinding(what, s string) error {
	if err := CheckText(what, s); err != nil {
		return err
	}
	if m := nextFindingRe().FindString(s); m != "" {
		return fmt.Errorf("%s holds %q, which separates the findings of a fix round's list", what, m)
	}
	f := Finding{ID: "F1", Text: s}
	if g, ok := parseFinding(f.String()); !ok || g != f {
		return fmt.Errorf("%s begins with %q, which the ledger reads as the finding's grade", what, s[:strings.Index(s, "]")+1])
	}
	return nil
}

// CheckParked says why the line parking f with the ruling why would not
// read back as f and why, or nil.
func CheckParked(f Finding, why string) error {
	if err := CheckText("the ruling", why); err != nil {
		return err
	}
	l, ok := Parse(FormatParked("Task 1", f, why))
	if !ok || l.Value != f.String() || l.Ruling != why {
		return fmt.Errorf("the ruling %q would not read back from the parked line", why)
	}
	return nil
}

// CheckAgentID says why id cannot be an implementer's agent id, or nil: one
// word of printable characters, no blank of any kind.
func CheckAgentID(id string) error {
	if err := CheckText("AGENT_ID", id); err != nil {
		return err
	}
	if strings.IndexFunc(id, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("AGENT_ID %q holds a blank: an agent id is one word (none when unknown)", id)
	}
	return nil
}

// Clean makes a text a subagent wrote (a review's answer) one line of
// printable text, so that whatever bytes it holds it is recorded and read
// back as it is read now: invalid UTF-8 becomes U+FFFD, a control
// character or a line or paragraph separator a space, and the ends are
// trimmed.
func Clean(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	}) < 0 {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			r = ' '
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// The formats, one function per kind of line. Each returns the line
// without its newline; shas are full, short shas as git abbreviates them.
