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

// output is what a Bash call of the controller printed: Look's report,
// or the lines of the commands it ran (each writing command prints the
// state line of the unit it touched).
type output struct {
	workspace, branch string
	ledger, ledgerRow string  // Look's "Ledger: ledger=… row=…"
	firstLine         string  // a foreign ledger's first line
	moved             []moved // Look's "moved?:" lines
	side              string  // Look's "side?:" line: the two tasks it names
	sideK             int     // Look's "side:" line: at most so many tasks at a time; 0 without one

	flat       []string // the old flat ledger's lines
	since      []string // the commits since the start branch, "1 abc1234 subject", oldest first
	sinceShown bool
	units      []*unitLine
	next       string
	settled    []string // "settled:" lines of Start task N
	carried    bool
	batches    [][]string // Look's "batch?:" lines: the tasks of each batch it proposes
}

// moved is a workspace of a plan that no longer exists.
type moved struct{ dir, plan string }

// unitLine is a unit's state line and its details.
type unitLine struct {
	name          string // "Task 2", "Final"
	facts         map[string]string
	row           string   // the row the command names
	details       []string // the lines under the state line, unindented: "implementer: agent-3"
	unblocked     string   // the change the next dispatch carries, after a BLOCKED recorded
	notVerifiable string
	open          []finding
	shas          []string
}

var (
	stateLineRe = regexp.MustCompile(`^(Task \S+|Final): ((?:[a-z]+=\S+ )+)row=(\S+)$`)
	sideRe      = regexp.MustCompile(`^side\?: (Tasks \S+ and \S+) could run side by side`)
	sideKRe     = regexp.MustCompile(`^side: at most (\d+) tasks at a time`)
	movedRe     = regexp.MustCompile(`^moved\?: (.+) belongs to (.+), which no longer exists$`)
	ledgerRe    = regexp.MustCompile(`^Ledger: ledger=(\S+)(?: row=(\S+))?$`)
)

func parseOutput(out string) (output, error) {
	var o output
	var u *unitLine
	section := ""
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if m := stateLineRe.FindStringSubmatch(line); m != nil {
			u = &unitLine{name: m[1], row: m[3], facts: map[string]string{}}
			for _, kv := range strings.Fields(m[2]) {
				k, v, _ := strings.Cut(kv, "=")
				u.facts[k] = v
			}
			o.units = append(o.units, u)
			section = "unit"
			continue
		}
		if strings.HasPrefix(line, "  ") && section != "" {
			d := strings.TrimPrefix(line, "  ")
			switch section {
			case "unit":
				u.details = append(u.details, d)
				switch {
				case strings.HasPrefix(d, "unblocked: "):
					u.unblocked = strings.TrimPrefix(d, "unblocked: ")
				case strings.HasPrefix(d, "shas: "), strings.HasPrefix(d, "plan: "):
					u.shas = append(u.shas, d)
				case strings.HasPrefix(d, "not verifiable: "):
					u.notVerifiable = strings.TrimPrefix(d, "not verifiable: ")
				case strings.HasPrefix(d, "open: "):
					fs, err := parseFindings(strings.TrimPrefix(d, "open: "))
					if err != nil {
						return o, err
					}
					u.open = append(u.open, fs...)
				}
			case "flat":
				o.flat = append(o.flat, strings.TrimPrefix(d, "| "))
			case "since":
				o.since = append(o.since, d)
			case "ledger":
				if v, ok := strings.CutPrefix(d, "first line: "); ok {
					o.firstLine = v
				}
			}
			continue
		}
		section = ""
		switch {
		case strings.HasPrefix(line, "workspace: "):
			o.workspace = strings.TrimPrefix(line, "workspace: ")
		case strings.HasPrefix(line, "branch: "):
			o.branch = strings.TrimPrefix(line, "branch: ")
		case strings.HasPrefix(line, "ledger: "):
			section = "ledger"
		case strings.HasPrefix(line, "old flat ledger: "):
			section = "flat"
			o.flat = []string{}
		case strings.HasPrefix(line, "commits since "):
			section = "since"
			o.sinceShown = true
		case strings.HasPrefix(line, "next: "):
			o.next = strings.TrimPrefix(line, "next: ")
		case strings.HasPrefix(line, "settled: "):
			o.settled = append(o.settled, strings.TrimPrefix(line, "settled: "))
		case strings.HasPrefix(line, "carried "):
			o.carried = true
		case strings.HasPrefix(line, "batch?: Tasks "):
			list, _, _ := strings.Cut(strings.TrimPrefix(line, "batch?: Tasks "), " (")
			o.batches = append(o.batches, strings.Split(list, ", "))
		}
		if m := sideRe.FindStringSubmatch(line); m != nil {
			o.side = m[1]
		}
		if m := sideKRe.FindStringSubmatch(line); m != nil {
			o.sideK, _ = strconv.Atoi(m[1])
		}
		if m := movedRe.FindStringSubmatch(line); m != nil {
			o.moved = append(o.moved, moved{dir: m[1], plan: m[2]})
		}
		if m := ledgerRe.FindStringSubmatch(line); m != nil {
			o.ledger, o.ledgerRow = m[1], m[2]
		}
	}
	return o, nil
}

// IdentityPrefix starts a ledger's first line; the plan's path follows.
const IdentityPrefix = "# SDD ledger — plan: "

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
