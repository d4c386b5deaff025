package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Check 8: docs/protocol.md is the contract the text must carry. Its
// ledger formats are written out here too, so a change to both markdown
// files at once still fails; each fact below is anchored in a phrase of
// the protocol (the fact list goes stale when the protocol changes) and
// must be stated by the text.

// protocolFormats are the ledger lines the protocol fixes, byte for byte.
var protocolFormats = []string{
	"# SDD ledger — plan: <plan file path>",
	"Task <N>: base=<sha>",
	"Task <N>: implementer=<id>",
	"Task <N>: reviewed_head=<sha>",
	"Task <N>: minor (deferred): <one-liner>",
	"Task <N>: fix round <R>/5 (<X> addressed, <Y> open — <finding one-liners>; commits <a7>..<b7>)",
	"Task <N>: parked — <finding> — ruling: <why>",
	"Task <N>: BLOCKED — <reason>",
	"Task <N>: complete (commits <base7>..<head7>, review clean)",
	"Task <N>: complete (commits <base7>..<head7>, <K> parked)",
	"Task <N>: complete (commits <base7>..<head7>, earlier run, human confirmed)",
	"Final: base=<sha>",
	"Final: reviewed_head=<sha>",
	"Final: minor (deferred): <one-liner>",
	"Final: parked — <finding> — ruling: <why>",
	"Final: BLOCKED — <reason>",
	"Final: complete (commits <base7>..<head7>, review clean)",
	"Final: complete (commits <base7>..<head7>, <K> parked)",
}

// checkProtocolFormats: docs/protocol.md's formats block is exactly
// protocolFormats, and SKILL.md shows every ledger line the protocol's
// prose names, exactly.
func checkProtocolFormats(x skillText) []string {
	var p []string
	proto := x["docs/protocol.md"]
	if got := LedgerFormats(proto); strings.Join(got, "\n") != strings.Join(protocolFormats, "\n") {
		p = append(p, "docs/protocol.md: the formats block is not the protocol's formats:\n"+lineDiff("protocolFormats", strings.Join(protocolFormats, "\n"), "protocol.md", strings.Join(got, "\n")))
	}
	n := 0
	for _, s := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(strings.ReplaceAll(Prose(proto), "\n", " "), -1) {
		f := normalizeSpace(s[1])
		if strings.HasPrefix(f, "Task <N>: ") || strings.HasPrefix(f, "# SDD ledger") || strings.HasPrefix(f, "Final: ") && strings.Contains(f, "<") {
			n++
			if !strings.Contains(x[skillMD], f) {
				p = append(p, fmt.Sprintf("SKILL.md does not show %q, a ledger line docs/protocol.md names", f))
			}
		}
	}
	if n < 10 {
		p = append(p, fmt.Sprintf("docs/protocol.md's prose names %d ledger lines; it names at least 10", n))
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

var protocolFacts = []protocolFact{
	{"exit 2", "2 for a wrong call", skillMD, "Exit 2 is a wrong call"},
	{"exit 3", "3 when `task-brief` finds no `Task <N>` heading", skillMD, "3 is no `Task <N>` heading"},
	{"exit 128", "git's own 128 (`Invalid revision range`)", skillMD, "128 \\(`Invalid revision range`\\)"},
	{"reasons on stderr", "The reason is always on stderr.", skillMD, "The reason is always on stderr"},
	{"a moved plan on stderr", "`sdd-workspace` also says on stderr when it passes over a workspace whose plan path no longer exists", skillMD, "said on stderr that a workspace belongs to a plan path that no longer exists"},
	{"main needs a yes", "Working on `main` or `master` needs the human's consent.", skillMD, "`main` or `master` needs the human's yes"},
	{"one checkout per controller", "Two controllers never share a checkout", skillMD, "Two controllers never share a checkout"},
	{"the identity line", "Its first line is exactly `# SDD ledger — plan: <plan file path>`", skillMD, "its first line is `# SDD ledger — plan: <plan file path>` \\(an em dash\\)"},
	{"names this plan", "not a comparison of strings", skillMD, "both paths read from the repository root"},
	{"another plan's ledger", "never renames, moves, edits or deletes it", skillMD, "never rename, move, edit or delete it"},
	{"the old flat ledger", "is never continued or edited", skillMD, "never continue or edit that ledger"},
	{"questions once", "It asks the human once, all questions in one batch.", skillMD, "ask the human once"},
	{"answers before Task 1", "before Task 1 starts, so a compaction between question and answer loses nothing", "skill/resume.md", "Record each answer in the ledger before Task 1 starts"},
	{"only the first line", "A ledger holding only its first line is read exactly like no ledger", skillMD, "none, or only its first line"},
	{"git clean", "`git clean -fdx` deletes the workspace", "skill/resume.md", "`git clean -fdx` deletes it"},
	{"believe the ledger", "the ledger and `git log` are believed, not memory", skillMD, "believe the ledger and `git log`, never your memory"},
	{"one implementer", "One implementer runs at a time", skillMD, "One implementer at a time"},
	{"every dispatch names its model", "every dispatch names its model", skillMD, "Name the model in every dispatch"},
	{"never HEAD~1", "Never `HEAD~1`", skillMD, "never `HEAD~1`"},
	{"never what not to flag", "never tells a reviewer what not to flag", skillMD, "Never tell a reviewer what not to flag"},
	{"minors never loop", "Minor findings never enter it", skillMD, "Minor findings never enter the fix loop"},
	{"one defect, one finding", "One defect reported twice (a spec ❌ and a quality finding) is one finding.", skillMD, "One defect reported twice \\(a spec ❌ and a quality finding\\) is one finding"},
	{"a plan conflict goes up", "A finding that conflicts with the plan's text goes to the human.", skillMD, "A finding that contradicts the plan's own text goes to the human"},
	{"five rounds", "there are at most 5 rounds", skillMD, "at most 5 rounds"},
	{"rounds 1-3", "Rounds 1–3 resume the original implementer", skillMD, "Rounds 1-3 go to the same implementer"},
	{"rounds 4-5", "rounds 4–5 go to a fresh implementer on a more capable model", skillMD, "rounds 4-5 to a fresh implementer on a stronger model"},
	{"a fix report's three parts", "a fix report naming the covering tests, the command and its output; without all three the re-review is not dispatched", skillMD, "A fix report must name the covering tests, the command and its output; without all three, send it back"},
	{"a round without commits", "A round that made no commit has nothing to re-review", skillMD, "a round without commits has nothing to review: its findings stay open"},
	{"the breaker after round 5", "Only after round 5, never earlier.", skillMD, "After round 5 only, never earlier"},
	{"done iff complete", "A task is done if and only if it has a `Task <N>: complete` line.", skillMD, "A task is done if and only if it has a `Task <N>: complete` line"},
	{"the saved review", "every reviewer saves its whole review beside its package", skillMD, "The reviewer saves its whole review beside the package \\(`.diff` becomes `.md`, its answer's lines first\\)"},
	{"one final fix", "Its findings get ONE fix dispatch with the whole list and one scoped re-review", skillMD, "Critical or Important findings get ONE fix dispatch with the whole list"},
	{"the final reviewer's model", "on the most capable model", skillMD, "Final reviewer, most capable model"},
	{"only this plan's workspace", "the plan's own workspace is deleted (sibling directories stay)", skillMD, "never `.superpowers/sdd` itself"},
	{"no reset --hard", "there is no `reset --hard` on a dirty tree", skillMD, "never `git reset --hard` a dirty tree"},
	{"a new shell per call", "each Bash call runs in a new bash", skillMD, "every Bash call starts a new shell"},
	{"never a typed sha", "never lets the agent type a sha", skillMD, "Never type a sha"},
	{"large outputs", "a tool output over about 30 KB comes back", skillMD, "Bash output over ~30 KB comes back cut"},
	{"Read's limit", "Read refuses a file over 256 KB without `offset` and `limit`", skillMD, "Read refuses files over 256 KB without `offset`/`limit`"},
	{"the reviewer reads in parts", "the reviewer reads it in parts", "skill/task-reviewer-prompt.md", "Read it once, completely, in parts: `offset` and `limit` of 2000 lines at a time"},
	{"asynchronous subagents", "its result arriving later as a notification", skillMD, "may answer later as a notification: wait for it"},
	{"the manual recipe", "gives the manual equivalent of each", skillMD, "read \\[manual.md\\]\\(manual.md\\) and do their work by hand"},
	{"go install", "The text says how to install them otherwise (`go install`)", skillMD, "`go install -tags urfave_cli_no_docs github.com/sdd-go/sdd-go/cmd/...@latest`"},
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
	for _, b := range []struct{ file, text string }{
		{skillMD, "implementer " + impl + " tool calls, fix round " + fix + ", reviewer " + rev + ", re-reviewer " + rerev},
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
		"both blocks drift":      {checkProtocolFormats, x.edit(t, "docs/protocol.md", "Final: BLOCKED — <reason>\n", "Final: BLOCKED - <reason>\n").edit(t, skillMD, "Final: BLOCKED — <reason>\n", "Final: BLOCKED - <reason>\n"), "the formats block is not the protocol's formats"},
		"a prose line unshown":   {checkProtocolFormats, x.edit(t, skillMD, "Task <N>: complete (commits <base7>..<head7>, earlier run, human confirmed)\n", ""), "SKILL.md does not show \"Task <N>: complete (commits <base7>..<head7>, earlier run, human confirmed)\""},
		"a budget changes":       {checkProtocolFacts, x.edit(t, "docs/protocol.md", "a reviewer 15,", "a reviewer 12,"), "does not say \"Stay within about 12 tool calls\""},
		"SKILL.md's budget":      {checkProtocolFacts, x.edit(t, skillMD, "fix round 20,", "fix round 25,"), "budgets: skill/SKILL.md"},
		"the protocol drops one": {checkProtocolFacts, x.edit(t, "docs/protocol.md", "never tells a reviewer what not to flag", "briefs the reviewer"), "docs/protocol.md no longer says"},
		"no budgets sentence":    {checkProtocolFacts, x.edit(t, "docs/protocol.md", "an implementer gets at most 50 tool calls", "an implementer gets 50 tool calls"), "no budgets sentence"},
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
