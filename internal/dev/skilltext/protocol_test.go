package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/ledger"
)

// Check 8: docs/protocol.md is the contract the text must carry. Its
// ledger formats are the ones sdd-ledger writes and reads (internal/
// ledger): each line of its formats block, its placeholders filled in,
// must parse as a line of its kind, and every kind must be there. The
// facts below are the protocol's statements the text must make in words;
// its decisions (rows, models, the cap) are tested by following the text.

// formatSamples fill the formats block's placeholders.
var formatSamples = strings.NewReplacer(
	"<plan file path>", "docs/plans/greet.md", "<N>", "2", "<sha>", strings.Repeat("ab", 20),
	"<id>", "agent-1", "<one-liner>", "x — y", "F<k>", "F3", "<R>", "2", "<X>", "1", "<Y>", "1",
	"<finding one-liners>", "F2 off by one", "<a7>", "abcd123", "<b7>", "abcd124", "<finding>", "F2 off by one",
	"<why>", "wrong", "<reason>", "F2: Task 3 needs it", "<workspace name>", "greet", "<decision>", "the plan now says bye", "<K>", "3", "<M>", "4", "<base7>", "abcd120", "<head7>", "abcd124")

// checkProtocolFormats: the formats block of docs/protocol.md is what the
// ledger writes: every line parses, as its kind, and no kind is missing.
func checkProtocolFormats(x skillText) []string {
	var p []string
	var block string
	for _, f := range Fences(x["docs/protocol.md"]) {
		if strings.HasPrefix(f.Body, IdentityPrefix) {
			block = f.Body
		}
	}
	if block == "" {
		return []string{"docs/protocol.md: no formats block (a fence starting with the identity line)"}
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	kinds := map[string]bool{}
	for _, l := range lines[1:] {
		filled := formatSamples.Replace(l)
		pl, ok := ledger.Parse(filled)
		if !ok {
			p = append(p, fmt.Sprintf("docs/protocol.md: %q is no line sdd-ledger reads (filled in: %q)", l, filled))
			continue
		}
		unit := pl.Unit
		if len(unit) > 4 {
			unit = unit[:4] // "Task", "Fina"
		}
		kinds[unit+" "+string(pl.Kind)] = true
	}
	for _, unit := range []string{"Task", "Fina"} {
		for _, k := range []ledger.Kind{ledger.KindBase, ledger.KindReviewedHead, ledger.KindMinor, ledger.KindFinding, ledger.KindFix, ledger.KindParked, ledger.KindBlocked, ledger.KindUnblocked, ledger.KindComplete} {
			if !kinds[unit+" "+string(k)] {
				p = append(p, fmt.Sprintf("docs/protocol.md: the formats block has no %s line of %s", k, unit))
			}
		}
	}
	if !kinds[ledger.RunUnit+" "+string(ledger.KindRestarted)] {
		p = append(p, "docs/protocol.md: the formats block has no Run: restarted line")
	}
	if _, ok := ledger.IdentityPlan(formatSamples.Replace(lines[0])); !ok {
		p = append(p, "docs/protocol.md: the formats block's first line is no identity line")
	}
	return p
}

// protocolFact is something the protocol says that the text must say.
type protocolFact struct {
	name     string
	protocol string // a phrase of docs/protocol.md (blanks normalized) that states it
	file     string // the skill file that must state it
	text     string // a regular expression that file must match (blanks normalized)
}

// hostClaudeMD is the skill's file for Claude Code, where its tools and
// limits are said.
const hostClaudeMD = "skill/host-claude-code.md"

var protocolFacts = []protocolFact{
	{"plain commands", "each step of the text is one `sdd-ledger` call", skillMD, "Every step of yours is one call of your host's shell tool, running `sdd-ledger`"},
	{"what the host refuses", "It asks a person first, and under `claude -p` refuses", skillMD, "never add `cd`, a variable, `\\$\\(…\\)`, a pipe, a redirection or `;`"},
	{"never a typed sha", "The controller never types a sha", skillMD, "you never type a sha"},
	{"exit 4", "every writing command refuses it (exit 4)", skillMD, "Exit 4: the ledger is another plan's"},
	{"main needs a yes", "Working on `main` or `master` needs the human's consent.", skillMD, "`main` or `master` needs the human's yes"},
	{"one checkout per controller", "Two controllers never share a checkout", skillMD, "Two controllers never share a checkout"},
	{"a worktree's start", "(`git worktree add ../<dir> -b <branch> <start branch>`)", "skill/rare.md", "`git worktree add ../<dir> -b <branch> <start branch>`"},
	{"another plan's ledger", "never renames, moves, edits or deletes it", skillMD, "never rename, edit or delete it"},
	{"the old flat ledger", "which is never continued or edited", skillMD, "which is never continued or edited"},
	{"questions once", "asks the human once, all questions in one batch", skillMD, "ask the human everything at once"},
	{"answers before Task 1", "recorded in the call that starts the run, before Task 1", skillMD, "Record the answers \\(\\[rare.md\\]\\(rare.md#answers\\)\\) in the call that starts the run"},
	{"believe the ledger", "the ledger is believed, not memory", skillMD, "Run it first, again after a compaction or whenever unsure; then, if the plan is not in your context, Read it once"},
	{"git clean", "`git clean -fdx` deletes the workspace", "skill/rare.md", "`git clean -fdx` deletes it"},
	{"one implementer", "One implementer at a time", skillMD, "One implementer at a time"},
	{"every dispatch names its model", "every dispatch names its model", skillMD, "Where your host's file names their models, always name the model"},
	{"never HEAD~1", "never `HEAD~1`", skillMD, "never `HEAD~1`"},
	{"never what not to flag", "never tells a reviewer what not to flag", skillMD, "Never tell a reviewer what not to flag"},
	{"minors never loop", "Minor findings never enter it", skillMD, "Minor findings never enter the fix loop"},
	{"one defect, one finding", "One defect reported twice (a spec ❌ and a quality finding) is one finding.", skillMD, "One defect reported twice is one finding"},
	{"a plan conflict goes up", "A finding that conflicts with the plan's text goes to the human.", skillMD, "A finding that contradicts the plan's own text goes to the human"},
	{"a fix report's three parts", "Every fix report names the covering tests, the command and its output, or it is sent back.", skillMD, "A fix's answer whose `Tests:` line does not give the covering tests' command and result goes back: the same round again"},
	{"reviewers' floor", "Reviewers and re-reviewers are never below the standard tier.", skillMD, "\\| reviewer, re-reviewer \\| the task's tier, at least standard \\|"},
	{"no check after a fix loop", "After a fix loop, closing needs no check.", skillMD, "after a fix loop, Close needs no check"},
	{"done iff complete", "A task is done if and only if it has a `Task <N>: complete` line.", skillMD, "A task is done if and only if it has a `complete` line"},
	{"the saved review", "Every reviewer saves its whole review beside its package", skillMD, "The reviewer saves its review beside the package \\(`.md`\\), answer first"},
	{"what survives", "the controller hands them to the human in its last message", skillMD, "Give the human what it printed in your last message"},
	{"no reset --hard", "there is no `reset --hard` on a dirty tree", skillMD, "never `git reset --hard` a dirty tree"},
	{"large outputs", "A tool output over about 30 KB comes back cut", hostClaudeMD, "Bash output over ~30 KB comes back cut"},
	{"Read's limit", "Read refuses a file over 256 KB without `offset` and `limit`", hostClaudeMD, "Read refuses a file over 256 KB without `offset` and `limit`"},
	{"the reviewer reads in parts", "the reviewer reads it in parts", "skill/task-reviewer-prompt.md", "Read it once, completely, in parts: `offset` and `limit` of 2000 lines at a time"},
	{"asynchronous subagents", "a subagent may answer later as a notification", skillMD, "a subagent's answer may come later: wait for it"},
	{"the manual recipe", "gives the manual equivalent of each step", skillMD, "\\[manual.md\\]\\(manual.md\\)\\s+says how to install them, or to do their work by hand"},
	{"go install", "The text says how to install them otherwise (`go install`)", "skill/manual.md", "`go install -tags urfave_cli_no_docs github.com/sdd-go/sdd-go/cmd/...@latest`"},
}

// factRes are the facts' statements, compiled.
var factRes = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, f := range protocolFacts {
		out = append(out, regexp.MustCompile(f.text))
	}
	return out
}()

// budgetRe reads the protocol's budgets: implementer, fix round,
// reviewer, re-reviewer.
var budgetRe = regexp.MustCompile(`an implementer gets at most ([0-9]+) tool calls, a fix round ([0-9]+), a reviewer ([0-9]+), a re-reviewer ([0-9]+)`)

// checkProtocolFacts: each fact's phrase is in docs/protocol.md and its
// statement in its file; the budgets the protocol gives are SKILL.md's
// and each role file's.
func checkProtocolFacts(x skillText) []string {
	var p []string
	proto := normalizeSpace(x["docs/protocol.md"])
	flat := map[string]string{}
	for i, f := range protocolFacts {
		if !strings.Contains(proto, normalizeSpace(f.protocol)) {
			p = append(p, fmt.Sprintf("fact %q: docs/protocol.md no longer says %q (update the fact list)", f.name, f.protocol))
		}
		if _, ok := flat[f.file]; !ok {
			flat[f.file] = normalizeSpace(x[f.file])
		}
		if !factRes[i].MatchString(flat[f.file]) {
			p = append(p, fmt.Sprintf("fact %q: %s does not say /%s/", f.name, f.file, f.text))
		}
	}
	m := budgetRe.FindStringSubmatch(proto)
	if m == nil {
		return append(p, "docs/protocol.md: no budgets sentence (an implementer gets at most N tool calls, a fix round N, a reviewer N, a re-reviewer N)")
	}
	impl, fix, rev, rerev := m[1], m[2], m[3], m[4]
	// SKILL.md may say, in parentheses after the fix round's budget, the
	// larger one of a round whose findings are a batch's undone tasks.
	skillBudgets := regexp.MustCompile("Implementer " + impl + " tool calls, fix round " + fix + `(?: \([^()]*\))?, reviewer ` + rev + ", re-reviewer " + rerev)
	if !skillBudgets.MatchString(normalizeSpace(x[skillMD])) {
		p = append(p, fmt.Sprintf("budgets: %s does not say %q, as docs/protocol.md's budgets have it", skillMD, skillBudgets))
	}
	for _, b := range []struct{ file, text string }{
		{"skill/implementer-prompt.md", "Stay within about " + impl + " tool calls"},
		{"skill/implementer-prompt.md", "Stay within about " + fix + " tool calls"},
		{"skill/task-reviewer-prompt.md", "Stay within about " + rev + " tool calls"},
		{"skill/re-review-prompt.md", "Stay within about " + rerev + " tool calls"},
	} {
		if !strings.Contains(normalizeSpace(x[b.file]), b.text) {
			p = append(p, fmt.Sprintf("budgets: %s does not say %q, as docs/protocol.md's budgets have it", b.file, b.text))
		}
	}
	return p
}

// TestProtocolFileFormats reads docs/protocol.md from the disk: a
// protocol the tests cannot read is a failure, not a skip.
func TestProtocolFileFormats(t *testing.T) {
	_, err := os.Stat(filepath.Join(moduleRoot, "docs", "protocol.md"))
	require.NoError(t, err, "docs/protocol.md carries the protocol contract")
	requireClean(t, checkProtocolFormats(loadText(t)))
}

func TestProtocolFacts(t *testing.T) {
	requireClean(t, checkProtocolFacts(loadText(t)))
}

func TestProtocolCatches(t *testing.T) {
	x := loadText(t)
	for name, c := range map[string]struct {
		check  func(skillText) []string
		broken skillText
		want   string
	}{
		"a format drifts":        {checkProtocolFormats, x.edit(t, "docs/protocol.md", "Final: BLOCKED — <reason>\n", "Final: BLOCKED - <reason>\n"), "is no line sdd-ledger reads"},
		"a format missing":       {checkProtocolFormats, x.edit(t, "docs/protocol.md", "Task <N>: settled — <one-liner>\nTask <N>: finding — F<k> <one-liner>\n", "Task <N>: settled — <one-liner>\n"), "no finding line of Task"},
		"a budget changes":       {checkProtocolFacts, x.edit(t, "docs/protocol.md", "a reviewer 15,", "a reviewer 12,"), "does not say \"Stay within about 12 tool calls\""},
		"SKILL.md's budget":      {checkProtocolFacts, x.edit(t, skillMD, "fix round 20 (", "fix round 25 ("), "budgets: skill/SKILL.md"},
		"the protocol drops one": {checkProtocolFacts, x.edit(t, "docs/protocol.md", "never tells a reviewer what not\n   to flag", "briefs the reviewer"), "docs/protocol.md no longer says"},
		"a fact reworded":        {checkProtocolFacts, x.edit(t, skillMD, "One implementer at a time", "Implementers run side by side"), "fact \"one implementer\""},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, c.check(c.broken), c.want) })
	}
	// Every fact can fail: without its statement, its check says so.
	for i, f := range protocolFacts {
		t.Run("fact "+f.name, func(t *testing.T) {
			loc := factRes[i].FindStringIndex(normalizeSpace(x[f.file]))
			require.NotNil(t, loc, "the real text states %q", f.name)
			y := skillText{}
			for k, v := range x {
				y[k] = v
			}
			y[f.file] = normalizeSpace(x[f.file])[:loc[0]] + normalizeSpace(x[f.file])[loc[1]:]
			requireCatches(t, checkProtocolFacts(y), fmt.Sprintf("fact %q: %s does not say", f.name, f.file))
		})
	}
}
