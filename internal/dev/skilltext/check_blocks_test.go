package skilltext

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/plaincmd"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Check 3: the steps a controller runs. Each step is one plain command of
// the plugin's, with literal arguments (internal/dev/plaincmd): once its
// placeholders are filled in, a step of SKILL.md or rare.md must pass the
// checker with the skill's allowed-tools alone, which must name exactly
// the plugin's commands. Anything else would stop the run for a person.
//
// Naming rule: every block of SKILL.md and rare.md is a step or a prompt,
// named by the first bold phrase of the paragraph right before its fence;
// the one exception is a block that shows a ledger (it starts with the
// identity line). manual.md's blocks are not steps: they are the work of
// the commands done by hand.
//
// Placeholder rule: SKILL.md's blocks use the placeholders of its table
// (the table whose header cell is "Placeholder"). A side file (rare.md,
// manual.md) may also use placeholders it declares itself, by naming each
// alone in a code span of its prose, above the first block that uses it.

const manualMD = "skill/manual.md"

// runFiles are the files whose ```sh blocks a controller runs.
var runFiles = []string{skillMD, "skill/rare.md", manualMD}

// samples are the values the checks put in for the placeholders: several
// where the text allows several shapes (<decisions> may be nothing).
var samples = map[string][]string{
	"<plan file>":                            {"docs/plans/greet.md", "docs/my plans/é.md"},
	"<workspace>":                            {"/src/shop/.superpowers/sdd/greet"},
	"<skill dir>":                            {"/home/u/.claude/skills/subagent-driven-development"},
	"<N>":                                    {"2", "final"},
	"<R>":                                    {"3"},
	"<start branch>":                         {"main"},
	"<agent id>":                             {"impl-2", "none"},
	"<who>":                                  {"Task 2", "Final"},
	"<decisions>":                            {"'Parse returns (int, error)' 'the flag is --dry-run; not -n'", ""},
	"<first>":                                {"1"},
	"<last>":                                 {"2"},
	"<last task>":                            {"3"},
	"<K>":                                    {"3", "1"},
	"<old workspace>":                        {"/src/shop/.superpowers/sdd/greet-plans"},
	"<id>":                                   {"F2"},
	"<why>":                                  {"the reviewer misread the loop bound (see $HOME/x)"},
	"<reason>":                               {"F3 leak in Close breaks the pool of Task 4"},
	"<what changed>":                         {"the plan now says bye (Task 2)"},
	"<what happened>":                        {"rebased onto main; the old commits are gone"},
	"<what failed, one line>":                {"go test ./... fails: TestParse"},
	"<open findings>":                        {"F2 off-by-one in Parse; F3 leak in Close"},
	"<review>":                               {"/src/shop/.superpowers/sdd/greet/review-a..b.md"},
	"<package>":                              {"/src/shop/.superpowers/sdd/greet/review-a..b.diff"},
	"<bytes>":                                {"1234"},
	"<brief>":                                {"none"},
	"<report>":                               {"/src/shop/.superpowers/sdd/greet/final-report.md"},
	"<plan file path>":                       {"docs/plans/greet.md"},
	"<one line>":                             {"x"},
	"<the settled: lines it needs, or none>": {"none"},
	"<your answer to each ambiguity you saw in the brief, or none>": {"none"},
	"<what the review could not verify, or none>":                   {"none"},
}

// instances are the block's body with its placeholders replaced, once
// per combination of the samples; an error names a placeholder without a
// sample.
func instances(body string) ([]string, error) {
	out := []string{body}
	seen := map[string]bool{}
	for _, p := range placeholderRe.FindAllString(body, -1) {
		if seen[p] {
			continue
		}
		seen[p] = true
		vals, ok := samples[p]
		if !ok {
			return nil, fmt.Errorf("no sample value for %s (add one to samples)", p)
		}
		var next []string
		for _, b := range out {
			for _, v := range vals {
				next = append(next, strings.ReplaceAll(b, p, v))
			}
		}
		out = next
	}
	return out, nil
}

func where(b block, line int) string { return fmt.Sprintf("%s:%d", b.File, b.Line+line) }

// pluginRules are the allow rules that name exactly the plugin's commands.
func pluginRules() []string {
	var out []string
	for _, c := range ship.Commands {
		out = append(out, "Bash("+c+":*)")
	}
	return out
}

// checkSteps: the skill's allowed-tools are exactly the plugin's commands,
// and every step, filled in, is plain and allowed by them alone.
func checkSteps(x skillText) []string {
	var p []string
	allowed := follower.AllowedTools(x[skillMD])
	want := pluginRules()
	if strings.Join(sortedCopy(allowed), ",") != strings.Join(sortedCopy(want), ",") {
		p = append(p, fmt.Sprintf("SKILL.md: allowed-tools is %q; it must be exactly the plugin's commands %q (no git, no rm, no shell)", allowed, want))
	}
	rules := plaincmd.Rules(allowed)
	for _, b := range x.shBlocks(stepFiles...) {
		bodies, err := instances(strings.TrimSuffix(b.Body, "\n"))
		if err != nil {
			p = append(p, fmt.Sprintf("%s: %v", where(b, 0), err))
			continue
		}
		for _, body := range bodies {
			if err := plaincmd.Check(body, rules); err != nil {
				p = append(p, fmt.Sprintf("%s: block **%s** would wait for a person: %v\n%s", where(b, 0), b.Name, err, body))
				break
			}
		}
	}
	return p
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func TestSteps(t *testing.T) {
	requireClean(t, checkSteps(loadText(t)))
}

// TestStepsCatch: each construct the host asks about, put in a step,
// fails the check, as do allowed-tools that say more or less.
func TestStepsCatch(t *testing.T) {
	x := loadText(t)
	look := "sdd-ledger look '<plan file>' '<start branch>'"
	requireCatchesEach(t, checkSteps, map[string]broken{
		"a substitution":    {x.edit(t, skillMD, look, "sdd-ledger look '<plan file>' \"$(git branch --show-current)\""), "would wait for a person"},
		"a variable":        {x.edit(t, skillMD, look, "p='<plan file>' && sdd-ledger look \"$p\" main"), "would wait for a person"},
		"a redirection":     {x.edit(t, skillMD, look, look+" > '<workspace>/look.txt'"), "would wait for a person"},
		"a pipe":            {x.edit(t, skillMD, look, look+" | head"), "would wait for a person"},
		"a second line":     {x.edit(t, skillMD, look, look+"\nls '<workspace>'"), "would wait for a person"},
		"another command":   {x.edit(t, skillMD, look, look+" && git log --oneline"), "no allow rule names"},
		"a computed path":   {x.edit(t, skillMD, look, "ls '.superpowers/sdd/greet'"), "no allow rule names"},
		"git allowed":       {x.edit(t, skillMD, "allowed-tools: Bash(sdd-ledger:*),", "allowed-tools: Bash(git:*), Bash(sdd-ledger:*),"), "must be exactly the plugin's commands"},
		"a command dropped": {x.edit(t, skillMD, "allowed-tools: Bash(sdd-ledger:*), ", "allowed-tools: "), "must be exactly the plugin's commands"},
	})
}

// checkPlaceholders: SKILL.md's blocks use only the table's placeholders,
// a side file's blocks those and the ones it declares above them, and
// every placeholder of the table is used by some block.
func checkPlaceholders(x skillText) []string {
	var p []string
	table := placeholderTable(x[skillMD])
	if len(table) == 0 {
		return []string{"SKILL.md: no placeholder table (a table whose first header cell is Placeholder)"}
	}
	own := map[string]map[string]int{}
	for _, f := range sideDeclaring {
		own[f] = declared(x[f])
	}
	for _, b := range x.shBlocks(runFiles...) {
		for _, ph := range placeholderRe.FindAllString(b.Body, -1) {
			if table[ph] {
				continue
			}
			line, ok := own[b.File][ph]
			switch {
			case !ok && b.File == skillMD:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which the placeholder table does not list", where(b, 0), ph))
			case !ok:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which neither the placeholder table nor %s's prose (a code span holding it alone, above the block) declares", where(b, 0), ph, b.File))
			case line > b.Line:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which %s declares only below it, on line %d", where(b, 0), ph, b.File, line))
			}
		}
	}
	used := map[string]bool{}
	for _, f := range x.files("skill") {
		for _, b := range x.blocks(f) {
			for _, ph := range placeholderRe.FindAllString(b.Body, -1) {
				used[ph] = true
			}
		}
	}
	var unused []string
	for ph := range table {
		if !used[ph] {
			unused = append(unused, ph)
		}
	}
	sort.Strings(unused)
	for _, ph := range unused {
		p = append(p, fmt.Sprintf("SKILL.md: the placeholder table lists %s, which no block uses", ph))
	}
	return p
}

func TestPlaceholders(t *testing.T) {
	requireClean(t, checkPlaceholders(loadText(t)))
}

func TestPlaceholdersCatch(t *testing.T) {
	x := loadText(t)
	requireCatchesEach(t, checkPlaceholders, map[string]broken{
		"one not in the table":    {x.edit(t, skillMD, "sdd-ledger package '<plan file>' <N> <agent id>", "sdd-ledger package '<plan file>' <N> <agent name>"), "uses <agent name>, which the placeholder table does not list"},
		"one the table lost":      {x.edit(t, skillMD, "| `<start branch>` |", "| start branch |"), "uses <start branch>, which the placeholder table does not list"},
		"an unused table row":     {x.edit(t, skillMD, "| `<agent id>` |", "| `<agent id>`, `<model>` |"), "lists <model>, which no block uses"},
		"a side file undeclared":  {x.edit(t, "skill/rare.md", "`<first>`\nand `<last>` are", "The first\nand the last are"), "uses <first>, which neither"},
		"no table":                {x.edit(t, skillMD, "| Placeholder | Value |", "| Name | Value |"), "no placeholder table"},
		"manual.md's own unknown": {x.edit(t, manualMD, "plan='<plan file>'", "plan='<plan path>'"), "uses <plan path>"},
	})
}

// checkNames: every step block has a name, no two share one, and every
// bold phrase of the skill's prose that mentions a block (one that starts
// with a capital and does not open its paragraph or list item; in a table
// cell, any) is the name of a block.
func checkNames(x skillText) []string {
	var p []string
	names := map[string]string{}
	for _, b := range x.stepBlocks() {
		switch prev, dup := names[b.Name]; {
		case b.Name == "":
			p = append(p, fmt.Sprintf("%s: a block without a name (no bold phrase in the paragraph right before it)", where(b, 0)))
		case dup:
			p = append(p, fmt.Sprintf("%s: a second block named %q (the first at %s)", where(b, 0), b.Name, prev))
		default:
			names[b.Name] = where(b, 0)
		}
	}
	for _, f := range x.files("skill") {
		for _, u := range bolds(x[f]) {
			if u.Leading || u.Text == "" || !strings.ContainsAny(u.Text[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				continue
			}
			if _, ok := names[u.Text]; !ok {
				p = append(p, fmt.Sprintf("%s:%d: **%s** names no block", f, u.Line, u.Text))
			}
		}
	}
	return p
}

func TestNames(t *testing.T) {
	requireClean(t, checkNames(loadText(t)))
}

func TestNamesCatch(t *testing.T) {
	x := loadText(t)
	requireCatchesEach(t, checkNames, map[string]broken{
		"a block without a name": {x.edit(t, skillMD, "**Record the round** writes", "Recording the round writes"), "a block without a name"},
		"two blocks, one name":   {x.edit(t, "skill/rare.md", "**Carry over**: when", "**Look**: when"), "a second block named \"Look\""},
		"a mention of no block":  {x.edit(t, "skill/example.md", "**Implementer prompt**. `Status", "**Implementer brief**. `Status"), "**Implementer brief** names no block"},
		"a mention in a table":   {x.edit(t, skillMD, "| **Start task N**, or", "| **Start the task**, or"), "**Start the task** names no block"},
	})
}
