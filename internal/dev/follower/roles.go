package follower

import (
	"fmt"
	"regexp"
	"strings"
)

// This file is the subagents' rules that their role files state in a
// sentence: the reviewer's Spec verdict and the numbering of its
// findings, the re-reviewer's ADDRESSED and the numbering of its New
// findings, what the final review reopens of the ledger, how a fix round
// writes the report. Each scripted subagent reads the rule's variable
// part from its role file, so an edit there changes what it answers, and
// a rule it cannot read fails it.

// roleText is the role file as one line, for its sentences.
func (a *agent) roleText() string { return oneLine(a.role) }

// specRe is the reviewer's rule for its Spec verdict: "Spec is ✅ when …;
// ❌ when …; ⚠️ when …."
var specRe = regexp.MustCompile(`Spec is (.+?)\.(?: |$)`)

var specClauseRe = regexp.MustCompile(`^(✅|❌|⚠️) when (.+)$`)

// specVerdict is the Spec verdict the role file's rule gives a review
// that found problems (anything missing, extra or misunderstood) or not,
// and items it could not verify or not: the first clause whose
// conditions all hold.
func (a *agent) specVerdict(problems, unverifiable bool) string {
	m := specRe.FindStringSubmatch(a.roleText())
	if m == nil {
		a.fail("%s does not say when Spec is ✅, ❌ or ⚠️ (\"Spec is ✅ when …\")", a.d.RoleFile)
	}
	for _, clause := range strings.Split(m[1], "; ") {
		cm := specClauseRe.FindStringSubmatch(clause)
		if cm == nil {
			a.fail("%s's Spec rule has a clause the reviewer cannot read: %q", a.d.RoleFile, clause)
		}
		holds := true
		for _, cond := range regexp.MustCompile(` and | but `).Split(cm[2], -1) {
			switch {
			case strings.Contains(cond, "nothing is missing") || strings.Contains(cond, "the diff conforms"):
				holds = holds && !problems
			case strings.Contains(cond, "anything is missing"):
				holds = holds && problems
			case strings.Contains(cond, "all could be verified"):
				holds = holds && !unverifiable
			case strings.Contains(cond, "not verifiable"):
				holds = holds && unverifiable
			default:
				a.fail("%s's Spec rule has a condition the reviewer cannot judge: %q", a.d.RoleFile, cond)
			}
		}
		if holds {
			return cm[1]
		}
	}
	a.fail("%s's Spec rule gives no verdict for a review with problems %v and unverifiable items %v", a.d.RoleFile, problems, unverifiable)
	return ""
}

// numberingRe is the reviewer's rule for its findings' ids: "Number the
// findings that are not Minor F1, F2, …".
var numberingRe = regexp.MustCompile(`Number the findings that are not Minor ([A-Za-z]*)(\d+), `)

// finalNumberingRe is what the rule says of a final review's ids, in the
// parentheses after it: "(in a final review too)", or ids of their own.
var finalNumberingRe = regexp.MustCompile(`Number the findings that are not Minor [A-Za-z]*\d+, [^(]*\(in a final review ([^)]*)\)`)

// ownIDRe is the first id of a final review's own numbering: "G1, G2, …".
var ownIDRe = regexp.MustCompile(`^([A-Za-z]*)(\d+)\b`)

// idForm is the prefix and the first number of the reviewer's ids (the
// final reviewer's, where the rule gives them apart).
func (a *agent) idForm() (prefix string, first int) {
	text := oneLine(a.roleText())
	m := numberingRe.FindStringSubmatch(text)
	if m == nil {
		a.fail("%s does not say how its findings are numbered (\"Number the findings that are not Minor F1, F2, …\")", a.d.RoleFile)
	}
	if fm := finalNumberingRe.FindStringSubmatch(text); fm != nil && a.d.Role == RoleFinal && fm[1] != "too" {
		own := ownIDRe.FindStringSubmatch(fm[1])
		if own == nil {
			a.fail("%s numbers a final review's findings %q, which the final reviewer cannot follow", a.d.RoleFile, fm[1])
		}
		return own[1], atoiOr(own[2])
	}
	return m[1], atoiOr(m[2])
}

// number gives fs ids, from first on, with prefix.
func number(fs []finding, prefix string, first int) []finding {
	for i := range fs {
		fs[i].id = fmt.Sprintf("%s%d", prefix, first+i)
	}
	return fs
}

// newNumberingRe is the re-reviewer's rule for its New findings' ids.
var newNumberingRe = regexp.MustCompile(`New breakage: [^.]*?, numbered ([^.]+?)\.(?: |$)`)

var fromIDRe = regexp.MustCompile(`^from ([A-Za-z]*)(\d+)$`)

// newFirst is the id of the re-reviewer's first New finding, given the
// ids of the findings it rules on, as its role file numbers them: on
// from the highest given, or from a fixed id.
func (a *agent) newFirst(given []finding) (prefix string, first int) {
	m := newNumberingRe.FindStringSubmatch(a.roleText())
	if m == nil {
		a.fail("%s does not say how New findings are numbered", a.d.RoleFile)
	}
	switch rule := m[1]; {
	case rule == "on from the highest id you were given":
		high := 0
		for _, f := range given {
			if n := atoiOr(strings.TrimPrefix(f.id, "F")); n > high {
				high = n
			}
		}
		return "F", high + 1
	case fromIDRe.MatchString(rule):
		fm := fromIDRe.FindStringSubmatch(rule)
		return fm[1], atoiOr(fm[2])
	default:
		a.fail("%s numbers New findings %q, which the re-reviewer cannot follow", a.d.RoleFile, rule)
	}
	return "", 0
}

// ruledRe is the re-reviewer's base rule: "ADDRESSED when <…>; NOT
// ADDRESSED otherwise".
var ruledRe = regexp.MustCompile(`Rule on every finding: ADDRESSED when (.+?); NOT ADDRESSED otherwise\.`)

// caseRe is a case the rule names after it: "<a case> is NOT ADDRESSED",
// "and so is <a case>".
var caseRe = regexp.MustCompile(`(?:^|\. |; )([^.;]+?) is (NOT ADDRESSED|ADDRESSED)((?:, and so is [^.;,]+)*)`)

// fixState is what the re-reviewer sees of one finding: the diff removes
// it; the fix round tried it without removing it (its file in the diff);
// the implementer disputes it (the report says so under its id).
type fixState struct{ removed, attempted, disputed bool }

// holds says whether a case the role file names is f's.
func (a *agent) caseHolds(c string, f fixState) bool {
	switch {
	case strings.Contains(c, "removes the problem") && !strings.Contains(c, "not remove"):
		return f.removed
	case strings.Contains(c, "attempt"):
		return f.attempted && !f.removed
	case strings.Contains(c, "disput"):
		return f.disputed && (!strings.Contains(c, "without the diff settling it") || !f.removed)
	}
	a.fail("%s names a case the re-reviewer cannot judge: %q", a.d.RoleFile, c)
	return false
}

// verdict is ADDRESSED or NOT ADDRESSED for f, as the role file rules:
// its base rule, then each case it names after it (the last that holds
// decides).
func (a *agent) verdict(f fixState) string {
	text := a.roleText()
	m := ruledRe.FindStringSubmatch(text)
	if m == nil {
		a.fail("%s does not say when a finding is ADDRESSED", a.d.RoleFile)
	}
	v := "NOT ADDRESSED"
	for _, c := range strings.Split(m[1], " or ") {
		if a.caseHolds(c, f) {
			v = "ADDRESSED"
		}
	}
	rest := text[strings.Index(text, m[0])+len(m[0]):]
	rest, _, _ = strings.Cut(rest, " - ") // the next rule of the list
	for _, cm := range caseRe.FindAllStringSubmatch(rest, -1) {
		cases := append([]string{cm[1]}, strings.Split(cm[3], ", and so is ")[1:]...)
		for _, c := range cases {
			if a.caseHolds(c, f) {
				v = cm[2]
			}
		}
	}
	return v
}

// reopenRe is the final reviewer's rule on the ledger's lines the task
// reviews left: "For each `minor (deferred)` and `parked` line of the
// ledger, say whether it must be fixed now …; one that must becomes an
// open finding."
var reopenRe = regexp.MustCompile("For each ((?:`[^`]+`(?:, | and | or )?)+) line of the ledger, say whether it must be fixed now[^;.]*; one that must (becomes an open finding|[^.]+)\\.")

// reopened are the kinds of ledger line the final review looks at again
// (as the ledger writes them: "minor (deferred)", "parked") and whether
// one that must be fixed now becomes an open finding.
func (a *agent) reopened() (kinds []string, opens bool) {
	m := reopenRe.FindStringSubmatch(a.roleText())
	if m == nil {
		return nil, false
	}
	for _, k := range codeSpanRe.FindAllStringSubmatch(m[1], -1) {
		kinds = append(kinds, k[1])
	}
	return kinds, m[2] == "becomes an open finding"
}

// reportRuleRe is the fix round's rule for the report: "Append to the
// Report file (never overwrite it) a section `Fix round <R>`".
var reportRuleRe = regexp.MustCompile("(Append to|Add to|Write|Overwrite|Rewrite) the Report file[^`]*? a section `([^`]+)`")

// fixReport is how a fix round writes the report, as its role file says:
// appended to it or written anew, and its section's title for round r.
func (a *agent) fixReport(r int) (appends bool, title string) {
	m := reportRuleRe.FindStringSubmatch(a.roleText())
	if m == nil {
		a.fail("%s does not say how a fix round writes the report (\"Append to the Report file … a section `Fix round <R>`\")", a.d.RoleFile)
	}
	return m[1] == "Append to" || m[1] == "Add to", strings.ReplaceAll(m[2], "<R>", fmt.Sprint(r))
}

// latestSectionRe is the re-reviewer's reading of the report: "The latest
// `Fix round` section of the report".
var latestSectionRe = regexp.MustCompile("The latest `([^`]+)` section of the \\*\\*report\\*\\*")

// sectionTitle is the title the re-reviewer looks for in the report.
func (a *agent) sectionTitle() string {
	m := latestSectionRe.FindStringSubmatch(a.roleText())
	if m == nil {
		a.fail("%s does not say which section of the report it reads", a.d.RoleFile)
	}
	return m[1]
}

// lastSection is the number of the report's latest "## <title> <n>"
// section (0 without one), and the section's text.
func lastSection(report, title string) (n int, text string) {
	re := regexp.MustCompile(`(?m)^## ` + regexp.QuoteMeta(title) + ` (\d+)$`)
	ms := re.FindAllStringSubmatchIndex(report, -1)
	if len(ms) == 0 {
		return 0, ""
	}
	last := ms[len(ms)-1]
	text = report[last[1]:]
	if i := strings.Index(text, "\n## "); i >= 0 {
		text = text[:i]
	}
	return atoiOr(report[last[2]:last[3]]), text
}
