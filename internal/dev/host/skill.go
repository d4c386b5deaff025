package host

import (
	"fmt"
	"regexp"
	"strings"
)

// SkillName is the skill as a plugin-installed sdd-go lists it: plugin
// name, colon, skill name.
const SkillName = "sdd-go:subagent-driven-development"

// Step is one thing the scripted controller does by running a command
// block of the skill text.
type Step string

// The steps, named after what they do, not after where the text has them:
// the text may move a block, and then only Steps changes.
const (
	StepWorkspace         Step = "create the workspace"
	StepLedgerCheck       Step = "look for a ledger"
	StepLedgerCreate      Step = "create the ledger"
	StepLedgerOwner       Step = "compare the ledger's plan"
	StepFlatLedger        Step = "look at the old flat ledger"
	StepBase              Step = "take the task's BASE"
	StepBaseLine          Step = "record BASE"
	StepBrief             Step = "write the brief"
	StepImplementerLine   Step = "record the implementer"
	StepHead              Step = "take HEAD for the package"
	StepPackage           Step = "build the review package"
	StepReviewedHeadLine  Step = "record the reviewed head"
	StepFixCommits        Step = "see whether a fix round made commits"
	StepFixPackage        Step = "build the fix round's package"
	StepMergeBase         Step = "find the merge base"
	StepFinalBaseLine     Step = "record the final BASE"
	StepFinalPackage      Step = "build the final package"
	StepFinalReviewedLine Step = "record the final reviewed head"
	StepFinish            Step = "delete the workspace"
)

// Where locates a command block: the Index-th (from 0) fenced sh block
// in the section under the heading whose text is Heading.
type Where struct {
	Heading string
	Index   int
}

// Steps is where each step's command block stands in SKILL.md: the one
// table to change when the text's headings change.
var Steps = map[Step]Where{
	StepWorkspace:         {"Setup", 0},
	StepLedgerCheck:       {"Setup", 1},
	StepLedgerCreate:      {"Setup", 2},
	StepLedgerOwner:       {"Setup", 3},
	StepFlatLedger:        {"Setup", 4},
	StepBase:              {"1. Record BASE", 0},
	StepBaseLine:          {"1. Record BASE", 1},
	StepBrief:             {"2. Write the brief", 0},
	StepImplementerLine:   {"3. Dispatch the implementer", 0},
	StepHead:              {"5. Build the review package", 0},
	StepPackage:           {"5. Build the review package", 1},
	StepReviewedHeadLine:  {"6. Dispatch the task reviewer", 0},
	StepFixCommits:        {"7. The fix loop (at most 5 rounds)", 0},
	StepFixPackage:        {"7. The fix loop (at most 5 rounds)", 1},
	StepMergeBase:         {"Final review", 0},
	StepFinalBaseLine:     {"Final review", 1},
	StepFinalPackage:      {"Final review", 2},
	StepFinalReviewedLine: {"Final review", 3},
	StepFinish:            {"Finish", 0},
}

// SkillText is the skill as the host handed it to the controller: the
// Skill tool's result carries it in a text block "Base directory for this
// skill: <dir>" followed by SKILL.md's body.
type SkillText struct {
	Dir  string // the skill's directory (its templates are there)
	Body string // SKILL.md without its front matter
}

const baseDirPrefix = "Base directory for this skill: "

// ParseSkill finds the skill text among the texts that came back with a
// Skill call.
func ParseSkill(notes []string) (SkillText, error) {
	for _, n := range notes {
		if rest, ok := strings.CutPrefix(n, baseDirPrefix); ok {
			dir, body, _ := strings.Cut(rest, "\n")
			return SkillText{Dir: dir, Body: strings.TrimPrefix(body, "\n")}, nil
		}
	}
	return SkillText{}, fmt.Errorf("no %q block among the %d texts that came back", baseDirPrefix, len(notes))
}

// Skill calls the Skill tool and returns the text the host handed over.
func (a *Turns) Skill(name string) SkillText {
	r := a.must("Skill", map[string]any{"skill": name})
	s, err := ParseSkill(r.Notes)
	if err != nil {
		a.Failf("Skill %s: %v (result %q)", name, err, clip(r.Text, 200))
	}
	return s
}

// Command is step's command block from the text, with values written in.
func (s SkillText) Command(step Step, v Values) (string, error) {
	where, ok := Steps[step]
	if !ok {
		return "", fmt.Errorf("step %q is not in the Steps table", step)
	}
	block, err := ShellBlock(s.Body, where.Heading, where.Index)
	if err != nil {
		return "", fmt.Errorf("step %q: %w", step, err)
	}
	cmd, err := Fill(block, v)
	if err != nil {
		return "", fmt.Errorf("step %q: %w", step, err)
	}
	return cmd, nil
}

// Step runs step's command block, taken from the skill text the host
// handed over and filled with v, through the Bash tool exactly as
// filled, and returns its output.
func (a *Turns) Step(s SkillText, step Step, v Values) string {
	cmd, err := s.Command(step, v)
	if err != nil {
		a.Failf("%v", err)
	}
	return a.Bash(cmd)
}

// Values are the literal values of a text's placeholders, by name
// without the angle brackets: "plan file", "N", "base sha".
type Values map[string]string

// placeholderRe is a placeholder as the text writes it: a name in angle
// brackets, brackets included. A shell redirection never matches (its
// bracket is followed by a blank, a digit, & or another bracket).
var placeholderRe = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9 _-]*)>`)

// Fill writes the literal values into a command block, brackets
// included. It refuses a placeholder it has no value for, and a block
// that still holds one afterwards.
func Fill(block string, v Values) (string, error) {
	var missing []string
	out := placeholderRe.ReplaceAllStringFunc(block, func(m string) string {
		name := m[1 : len(m)-1]
		val, ok := v[name]
		if !ok {
			missing = append(missing, m)
			return m
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for %s in %q", strings.Join(missing, ", "), block)
	}
	if left := placeholderRe.FindString(out); left != "" {
		return "", fmt.Errorf("%q still holds the placeholder %s once filled", out, left)
	}
	return out, nil
}

var (
	headingRe = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	fenceRe   = regexp.MustCompile("^( *)(`{3,}|~{3,})[ \t]*([^`]*)$")
)

// ShellBlock returns the index-th (from 0) fenced block with info string
// sh in the section under the heading whose text is heading (the section
// ends at the next heading of the same or a higher level). A block
// indented in a list item loses that indentation, as markdown renders it;
// the last newline is dropped.
func ShellBlock(markdown, heading string, index int) (string, error) {
	type item struct {
		level int    // a heading's level; 0 for a sh block
		text  string // the heading's text or the block's body
	}
	var items []item
	lines := strings.Split(markdown, "\n")
	for i := 0; i < len(lines); i++ {
		if m := fenceRe.FindStringSubmatch(lines[i]); m != nil {
			indent, marker, info := len(m[1]), m[2], strings.Fields(m[3])
			var body []string
			j := i + 1
			for ; j < len(lines); j++ {
				t := strings.TrimLeft(lines[j], " ")
				if strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]+" \t") == "" {
					break
				}
				l := lines[j]
				for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
					l = l[1:]
				}
				body = append(body, l)
			}
			if len(info) > 0 && info[0] == "sh" {
				items = append(items, item{0, strings.Join(body, "\n")})
			}
			i = j
		} else if m := headingRe.FindStringSubmatch(lines[i]); m != nil {
			items = append(items, item{len(m[1]), m[2]})
		}
	}
	start, found := -1, 0
	for i, it := range items {
		if it.level > 0 && it.text == heading {
			start, found = i, found+1
		}
	}
	switch {
	case found == 0:
		return "", fmt.Errorf("no heading %q", heading)
	case found > 1:
		return "", fmt.Errorf("%d headings %q", found, heading)
	}
	n := 0
	for _, it := range items[start+1:] {
		if it.level > 0 && it.level <= items[start].level {
			break
		}
		if it.level == 0 {
			if n == index {
				return it.text, nil
			}
			n++
		}
	}
	return "", fmt.Errorf("the section %q has %d sh blocks, not %d", heading, n, index+1)
}
