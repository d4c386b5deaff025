package follower

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file reads what the controller sees: the output of Look, the
// ledger lines in it, the commands' "wrote" lines, and the subagents'
// replies in their role files' formats.

// lookOutput is what Look printed.
type lookOutput struct {
	workspace, branch string
	ledger            []string // nil for "ledger: none"
	flat              []string // the old flat ledger; nil when there is none
	since             []string // commits since the start branch, newest first
	after             []string // commits after the last recorded sha
	afterShown        bool     // Look printed that section (the ledger has a sha)
	files             map[string]int64
	notes             []string // sdd-workspace's notes on stderr
}

// Look's section headers, as the block prints them.
const (
	hdrFlat  = "old flat ledger:"
	hdrAfter = "commits after the last recorded sha:"
	hdrFiles = "workspace files:"
)

func parseLook(out, start string) (lookOutput, error) {
	var l lookOutput
	l.files = map[string]int64{}
	hdrSince := "commits since " + start + ":"
	section := ""
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "sdd-workspace: "):
			l.notes = append(l.notes, line)
			continue
		case section == "" && strings.HasPrefix(line, "workspace: "):
			l.workspace = strings.TrimPrefix(line, "workspace: ")
			section = "head"
			continue
		case section == "head" && strings.HasPrefix(line, "branch: "):
			l.branch = strings.TrimPrefix(line, "branch: ")
			section = "ledger"
			continue
		case section != "" && line == hdrFlat:
			section = "flat"
			l.flat = []string{}
			continue
		case section != "" && line == hdrSince:
			section = "since"
			continue
		case section != "" && line == hdrAfter:
			section = "after"
			l.afterShown = true
			continue
		case section != "" && line == hdrFiles:
			section = "files"
			continue
		}
		switch section {
		case "ledger":
			if line != "ledger: none" {
				l.ledger = append(l.ledger, line)
			}
		case "flat":
			l.flat = append(l.flat, line)
		case "since":
			l.since = append(l.since, line)
		case "after":
			l.after = append(l.after, line)
		case "files":
			name, size := lsLine(line)
			if name != "" {
				l.files[name] = size
			}
		}
	}
	if l.workspace == "" {
		return l, fmt.Errorf("Look printed no \"workspace: \" line")
	}
	return l, nil
}

var lsLongRe = regexp.MustCompile(`^[-dlrwxsStT@+.]{10,11}\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(.+)$`)

// lsLine reads one line of the workspace listing: a bare name (ls), or
// ls -l's long form, which also gives the size (-1 when unknown).
func lsLine(line string) (string, int64) {
	if strings.HasPrefix(line, "total ") {
		return "", 0
	}
	if m := lsLongRe.FindStringSubmatch(line); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return m[2], n
	}
	return line, -1
}

// ledgerLine is one line of a ledger.
type ledgerLine struct {
	text  string
	who   string // "Task 3" or "Final"
	n     int    // the task's number; 0 for Final
	kind  string // base, implementer, reviewed_head, minor, fix, parked, blocked, complete
	value string // the sha, id, one-liner, or the rest of the line

	// A fix round line's numbers and open findings.
	round, addressed, open int
	findings               string
}

var (
	whoRe = regexp.MustCompile(`^(Task (\d+)|Final): (.*)$`)
	fixRe = regexp.MustCompile(`^fix round (\d+)/5 \((\d+) addressed, (\d+) open — (.*); commits [0-9a-f]+\.\.[0-9a-f]+\)$`)
)

func parseLedgerLine(s string) (ledgerLine, bool) {
	m := whoRe.FindStringSubmatch(s)
	if m == nil {
		return ledgerLine{}, false
	}
	l := ledgerLine{text: s, who: m[1]}
	if m[2] != "" {
		l.n, _ = strconv.Atoi(m[2])
	}
	rest := m[3]
	for _, k := range []struct{ prefix, kind string }{
		{"base=", "base"}, {"implementer=", "implementer"}, {"reviewed_head=", "reviewed_head"},
		{"minor (deferred): ", "minor"}, {"parked — ", "parked"}, {"BLOCKED — ", "blocked"},
		{"complete (", "complete"},
	} {
		if strings.HasPrefix(rest, k.prefix) {
			l.kind, l.value = k.kind, strings.TrimPrefix(rest, k.prefix)
			return l, true
		}
	}
	if f := fixRe.FindStringSubmatch(rest); f != nil {
		l.kind = "fix"
		l.round, _ = strconv.Atoi(f[1])
		l.addressed, _ = strconv.Atoi(f[2])
		l.open, _ = strconv.Atoi(f[3])
		l.findings = f[4]
		return l, true
	}
	return ledgerLine{}, false
}

// IdentityPrefix starts a ledger's first line; the plan's path follows.
const IdentityPrefix = "# SDD ledger — plan: "

// unitLines are one task's (or the final review's) lines of a ledger.
type unitLines struct {
	all  []ledgerLine
	main []ledgerLine // without implementer= and minor (deferred) lines
}

func (u unitLines) last() ledgerLine {
	if len(u.main) == 0 {
		return ledgerLine{}
	}
	return u.main[len(u.main)-1]
}

// lastOf is the value of the last line of a kind ("" when none).
func (u unitLines) lastOf(kind string) string {
	v := ""
	for _, l := range u.all {
		if l.kind == kind {
			v = l.value
		}
	}
	return v
}

func (u unitLines) count(kind string) int {
	k := 0
	for _, l := range u.all {
		if l.kind == kind {
			k++
		}
	}
	return k
}

func (u unitLines) has(kind string) bool { return u.count(kind) > 0 }

// heads are the unit's reviewed_head= shas in order.
func (u unitLines) heads() []string {
	var out []string
	for _, l := range u.all {
		if l.kind == "reviewed_head" {
			out = append(out, l.value)
		}
	}
	return out
}

// lastRound is the last fix round line (round 0 when there is none).
func (u unitLines) lastRound() ledgerLine {
	var f ledgerLine
	for _, l := range u.all {
		if l.kind == "fix" {
			f = l
		}
	}
	return f
}

// splitLedger groups a ledger's lines by unit; lines it cannot read are
// returned as an error (the ledger is the text's interface).
func splitLedger(lines []string) (map[string]unitLines, error) {
	units := map[string]unitLines{}
	for _, s := range lines[1:] {
		l, ok := parseLedgerLine(s)
		if !ok {
			return nil, fmt.Errorf("a ledger line in no format of the text: %q", s)
		}
		u := units[l.who]
		u.all = append(u.all, l)
		if l.kind != "implementer" && l.kind != "minor" {
			u.main = append(u.main, l)
		}
		units[l.who] = u
	}
	return units, nil
}

var (
	wrotePackageRe = regexp.MustCompile(`(?m)^wrote (.+\.diff): (\d+) commit\(s\), (\d+) bytes$`)
	wroteBriefRe   = regexp.MustCompile(`(?m)^wrote (.+): (\d+) lines$`)
)

// wrotePackage finds review-package's line in a block's output.
func wrotePackage(out string) (path, bytes string, ok bool) {
	m := wrotePackageRe.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		return "", "", false
	}
	return m[0][1], m[0][3], true
}

// reply is a subagent's answer, line by label.
type reply struct {
	text   string
	labels []string
	values map[string]string
}

// parseReply reads "Label: value" lines; every line must have a label.
func parseReply(text string) (reply, error) {
	r := reply{text: text, values: map[string]string{}}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		label, value, ok := strings.Cut(l, ": ")
		if !ok {
			return r, fmt.Errorf("a reply line without a label: %q", l)
		}
		r.labels = append(r.labels, label)
		r.values[label] = value
	}
	return r, nil
}

func (r reply) get(label string) (string, error) {
	v, ok := r.values[label]
	if !ok {
		return "", fmt.Errorf("the reply has no %q line:\n%s", label, r.text)
	}
	return v, nil
}

// finding is one numbered finding.
type finding struct {
	id    string // F2
	grade string // Critical, Important, Spec; "" when the text gave none
	text  string // the rest: "file:line problem"
}

// line is the finding as the controller passes it on: its id and its
// text ("F2 parse.go:3 off-by-one").
func (f finding) line() string { return f.id + " " + f.text }

var findingRe = regexp.MustCompile(`^(F\d+)(?: \[([A-Za-z]+)\])? (.+)$`)

// parseFindings reads "F1 [Important] a.go:1 x; F2 …" or "none".
func parseFindings(s string) ([]finding, error) {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil, nil
	}
	var out []finding
	for _, part := range splitFindings(s) {
		m := findingRe.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("a finding without an id: %q", part)
		}
		out = append(out, finding{id: m[1], grade: m[2], text: m[3]})
	}
	return out, nil
}

var findingStartRe = regexp.MustCompile(`; (F\d+ )`)

// splitFindings splits at "; " before an id, so a finding's own "; "
// stays in it.
func splitFindings(s string) []string {
	idx := findingStartRe.FindAllStringIndex(s, -1)
	var out []string
	from := 0
	for _, ix := range idx {
		out = append(out, s[from:ix[0]])
		from = ix[0] + 2
	}
	return append(out, s[from:])
}

func joinFindings(fs []finding) string {
	if len(fs) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.line())
	}
	return strings.Join(parts, "; ")
}

// oneLiners reads "a; b" or "none".
func oneLiners(s string) []string {
	s = strings.TrimSpace(s)
	if s == "none" || s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, "; ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// quoteMinors writes <minors>: each one-liner in single quotes,
// space-separated (the text keeps single quotes out of one-liners).
func quoteMinors(ms []string) string {
	var q []string
	for _, m := range ms {
		q = append(q, "'"+strings.ReplaceAll(m, "'", "")+"'")
	}
	return strings.Join(q, " ")
}

var findingIDRe = regexp.MustCompile(`^F\d+$`)
