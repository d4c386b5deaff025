package skilltext

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Check 6: the subagents' answers are what the controller parses, so each
// role file's answer block has exactly the labels, in order, the values
// the controller branches on, and "none" where a line may be empty; and
// SKILL.md, which rules on those answers, names every value.

// replyLine is one line of an answer block as the controller reads it.
type replyLine struct {
	label   string   // the text before ": "
	choices []string // the alternatives of its first <a | b> slot, if the controller branches on them
	has     []string // fragments the line must hold: tags the controller reads, "none"
}

// replyFormats are the answers, by role file.
var replyFormats = map[string][]replyLine{
	"skill/implementer-prompt.md": {
		{label: "Status", choices: []string{"DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"}},
		{label: "Commits", has: []string{"none"}},
		{label: "Tests"},
		{label: "Notes"},
	},
	"skill/task-reviewer-prompt.md": {
		{label: "Spec", choices: []string{"✅", "❌", "⚠️"}},
		{label: "Open", has: []string{"F1 [Spec|Critical|Important] file:line", "none"}},
		{label: "Minor", has: []string{"none"}},
		{label: "Not verifiable", has: []string{"none"}},
		{label: "Review"},
	},
	"skill/re-review-prompt.md": {
		{label: "F<k>", choices: []string{"ADDRESSED", "NOT ADDRESSED"}, has: []string{"> — <"}},
		{label: "New", has: []string{"F<k> [Critical|Important] file:line", "none"}},
		{label: "Out of scope", has: []string{"none"}},
		{label: "Review"},
	},
}

// finalSpec is the first line of a final review's answer.
const finalSpec = "`Spec: n/a`"

var choiceRe = regexp.MustCompile(`<([^<>]*\|[^<>]*)>`)

// checkReplies: each role file holds one fenced block, its answer, whose
// lines are replyFormats' in order; the task reviewer's final review
// answers with Spec: n/a; and SKILL.md names every value the answers
// branch on, Critical, Important and Minor too.
func checkReplies(x skillText) []string {
	var p []string
	for _, file := range sortedKeys(replyFormats) {
		want := replyFormats[file]
		var fences []Fence
		for _, f := range Fences(x[file]) {
			if f.Depth == 0 {
				fences = append(fences, f)
			}
		}
		if len(fences) != 1 {
			p = append(p, fmt.Sprintf("%s: %d fenced blocks; the one block is the answer", file, len(fences)))
			continue
		}
		f := fences[0]
		lines := strings.Split(strings.TrimSuffix(f.Body, "\n"), "\n")
		if len(lines) != len(want) {
			p = append(p, fmt.Sprintf("%s:%d: the answer has %d lines, the controller reads %d", file, f.Line, len(lines), len(want)))
		}
		for i, w := range want {
			if i >= len(lines) {
				break
			}
			label, value, ok := strings.Cut(lines[i], ": ")
			if !ok || label != w.label {
				p = append(p, fmt.Sprintf("%s:%d: answer line %d is %q; the controller reads %q", file, f.Line+1+i, i+1, lines[i], w.label+": …"))
				continue
			}
			if w.choices != nil {
				m := choiceRe.FindStringSubmatch(value)
				var got []string
				if m != nil {
					for _, c := range strings.Split(m[1], "|") {
						got = append(got, strings.TrimSpace(c))
					}
				}
				if strings.Join(got, "|") != strings.Join(w.choices, "|") {
					p = append(p, fmt.Sprintf("%s:%d: %s: offers %q; the controller branches on <%s>", file, f.Line+1+i, w.label, got, strings.Join(w.choices, " | ")))
				}
			}
			for _, h := range w.has {
				if !strings.Contains(value, h) {
					p = append(p, fmt.Sprintf("%s:%d: %s: lacks %q", file, f.Line+1+i, w.label, h))
				}
			}
		}
	}
	if !strings.Contains(x["skill/task-reviewer-prompt.md"], finalSpec) {
		p = append(p, "skill/task-reviewer-prompt.md: the final review's answer does not start with "+finalSpec)
	}
	skill := x[skillMD]
	for _, file := range sortedKeys(replyFormats) {
		for _, w := range replyFormats[file] {
			for _, c := range w.choices {
				if !namesWord(skill, c) {
					p = append(p, fmt.Sprintf("SKILL.md never names %s, which %s may answer", c, file))
				}
			}
		}
	}
	for _, sev := range []string{"Critical", "Important", "Minor"} {
		if !strings.Contains(skill, sev) {
			p = append(p, "SKILL.md never names "+sev+" findings")
		}
	}
	return p
}

// namesWord reports whether text holds word with no capital or _ right
// before or after it (NOT ADDRESSED holds ADDRESSED, DONE_WITH_CONCERNS
// holds DONE: neither names the shorter one).
func namesWord(text, word string) bool {
	edge := func(r byte) bool { return !(r >= 'A' && r <= 'Z' || r == '_') }
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || edge(text[j-1]) && !strings.HasSuffix(text[:j], "NOT ")
		after := j+len(word) == len(text) || edge(text[j+len(word)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func TestReplies(t *testing.T) {
	requireClean(t, checkReplies(loadText(t)))
}

func TestRepliesCatch(t *testing.T) {
	x := loadText(t)
	const impl, rev, rr = "skill/implementer-prompt.md", "skill/task-reviewer-prompt.md", "skill/re-review-prompt.md"
	requireCatchesEach(t, checkReplies, map[string]broken{
		"a status renamed":        {x.edit(t, impl, "| NEEDS_CONTEXT |", "| NEEDS_INFO |"), "the controller branches on"},
		"a line dropped":          {x.edit(t, impl, "Tests: <one line: command and result>\n", ""), "the answer has 3 lines"},
		"a label renamed":         {x.edit(t, rev, "Open: <F1", "Findings: <F1"), "the controller reads \"Open: …\""},
		"lines swapped":           {x.edit(t, rev, "Minor: <M1 one-liner; M2 …, or none>\nNot verifiable: <item and how to check it; …, or none>", "Not verifiable: <item and how to check it; …, or none>\nMinor: <M1 one-liner; M2 …, or none>"), "answer line 3"},
		"a verdict dropped":       {x.edit(t, rev, "Spec: <✅ | ❌ | ⚠️>", "Spec: <✅ | ❌>"), "Spec: offers"},
		"no none":                 {x.edit(t, rev, "Minor: <M1 one-liner; M2 …, or none>", "Minor: <M1 one-liner; M2 …>"), "Minor: lacks \"none\""},
		"a tag dropped":           {x.edit(t, rev, "[Spec|Critical|Important]", "[Critical|Important]"), "lacks \"F1 [Spec|Critical|Important] file:line\""},
		"a hyphen for an em dash": {x.edit(t, rr, "NOT ADDRESSED> — <evidence", "NOT ADDRESSED> - <evidence"), "lacks \"> — <\""},
		"a ruling renamed":        {x.edit(t, rr, "<ADDRESSED | NOT ADDRESSED>", "<FIXED | NOT FIXED>"), "F<k>: offers"},
		"a second block":          {x.edit(t, rr, "## Your answer\n", "## Your answer\n\n```text\nexample\n```\n"), "2 fenced blocks"},
		"no final Spec: n/a":      {x.edit(t, rev, finalSpec, "`Spec: none`"), "Spec: n/a"},
		"SKILL.md loses a status": {x.edit(t, skillMD, "`NEEDS_CONTEXT` (answer, dispatch again)", "`MORE` (answer, dispatch again)"), "SKILL.md never names NEEDS_CONTEXT"},
	})
}
