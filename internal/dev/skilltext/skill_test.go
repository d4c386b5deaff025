package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// protocolFormats are the ledger lines the protocol fixes as an interface
// (the shared PROTOCOL.md, and docs/protocol.md, the repository's own copy
// of the contract). They are written out here byte for byte, em dashes
// included, so that a change to both markdown files at once still fails.
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
	"Final: base=<sha>",
	"Final: reviewed_head=<sha>",
	"Final: parked — <finding> — ruling: <why>",
	"Final: BLOCKED — <reason>",
	"Final: complete (commits <base7>..<head7>, review clean)",
	"Final: complete (commits <base7>..<head7>, <K> parked)",
}

// allPlaceholders are the placeholders the dispatch templates may use.
var allPlaceholders = map[string]bool{
	"[BRIEF_FILE]": true, "[REPORT_FILE]": true, "[DIFF_FILE]": true,
	"[BASE_SHA]": true, "[HEAD_SHA]": true, "[FIX_BASE_SHA]": true,
	"[FINDINGS]": true, "[GLOBAL_CONSTRAINTS]": true, "[MODEL]": true,
	"[TASK_NUMBER]": true, "[TASK_CONTEXT]": true, "[INTERFACES]": true,
	"[RULINGS]": true, "[ROUND]": true, "[ATTEMPTS]": true, "[LEDGER_FILE]": true,
}

var promptFiles = []string{"implementer-prompt.md", "task-reviewer-prompt.md", "re-review-prompt.md"}

func TestFrontMatterParses(t *testing.T) {
	fm, body, err := FrontMatter(readSkillFile(t, "SKILL.md"))
	require.NoError(t, err)
	assert.Equal(t, "subagent-driven-development", fm["name"])
	assert.Regexp(t, `^[a-z0-9-]{1,64}$`, fm["name"])
	desc := fm["description"]
	assert.True(t, strings.HasPrefix(desc, "Use when "), "the description says when to use the skill: %q", desc)
	assert.LessOrEqual(t, len(desc), 1024, "hosts cap the description length")
	assert.Len(t, fm, 2, "only name and description: %v", fm)
	assert.True(t, strings.HasPrefix(body, "\n# "), "a title follows the front matter")
}

func TestSkillHasEverySection(t *testing.T) {
	anchors := Anchors(readSkillFile(t, "SKILL.md"))
	for _, want := range []string{
		"when-to-use-it", "the-tools", "writing-commands", "setup", "resume", "model-selection", "the-task-loop",
		"1-record-base", "2-write-the-brief", "3-dispatch-the-implementer",
		"4-handle-the-status", "5-build-the-review-package", "6-dispatch-the-task-reviewer",
		"7-the-fix-loop-at-most-5-rounds", "8-the-breaker-after-round-5-only", "9-complete",
		"ledger-formats", "final-review", "finish", "temptations-and-answers",
		"worked-example", "without-the-commands",
	} {
		assert.True(t, anchors[want], "SKILL.md has a section #%s", want)
	}
}

func TestLinksResolve(t *testing.T) {
	dirs := map[string][]string{
		filepath.Join(moduleRoot, "skill"): skillFiles(t),
		filepath.Join(moduleRoot, "docs"):  {"skill.md", "protocol.md"},
	}
	for dir, files := range dirs {
		for _, name := range files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			for _, l := range Links(string(b)) {
				target := l.Text
				if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
					continue // an absolute URL: not checked offline
				}
				file, frag, _ := strings.Cut(target, "#")
				path := filepath.Join(dir, name)
				if file != "" {
					path = filepath.Join(dir, filepath.FromSlash(file))
				}
				tb, err := os.ReadFile(path)
				if !assert.NoError(t, err, "%s:%d: link %s", name, l.Line, target) {
					continue
				}
				if frag != "" {
					assert.True(t, Anchors(string(tb))[frag], "%s:%d: link %s: no heading with that anchor", name, l.Line, target)
				}
			}
		}
	}
}

func TestSkillLinksEveryTemplate(t *testing.T) {
	links := map[string]bool{}
	for _, l := range Links(readSkillFile(t, "SKILL.md")) {
		file, _, _ := strings.Cut(l.Text, "#")
		links[file] = true
	}
	for _, p := range promptFiles {
		assert.True(t, links[p], "SKILL.md links to %s", p)
	}
}

func TestPlaceholdersListedAndUsed(t *testing.T) {
	for _, name := range promptFiles {
		tpls, orphans := Templates(readSkillFile(t, name))
		require.NotEmpty(t, tpls, "%s has at least one template followed by Placeholders:", name)
		assert.Empty(t, orphans, "%s: Placeholders: lists with no template above them (lines)", name)
		for _, tp := range tpls {
			listed := append([]string(nil), tp.Listed...)
			sort.Strings(listed)
			assert.Equal(t, tp.Used, listed, "%s:%d: placeholders used in the template vs listed under it", name, tp.Line)
			assert.Equal(t, len(unique(tp.Listed)), len(tp.Listed), "%s:%d: a placeholder is listed twice", name, tp.Line)
			assert.Contains(t, tp.Used, "[MODEL]", "%s:%d: every dispatch names its model", name, tp.Line)
			for _, p := range tp.Used {
				assert.True(t, allPlaceholders[p], "%s:%d: unknown placeholder %s", name, tp.Line, p)
			}
		}
	}
}

func TestReturnFormats(t *testing.T) {
	impl := readSkillFile(t, "implementer-prompt.md")
	for _, s := range []string{"DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"} {
		assert.Contains(t, impl, s)
	}
	assert.Contains(t, impl, "Status: <DONE | DONE_WITH_CONCERNS | NEEDS_CONTEXT | BLOCKED>")

	rev := readSkillFile(t, "task-reviewer-prompt.md")
	for _, s := range []string{"Spec: <✅ | ❌ | ⚠️>", "Missing:", "Extra:", "Misunderstood:",
		"Not verifiable from the diff:", "\nCritical:\n", "\nImportant:\n", "\nMinor:\n"} {
		assert.Contains(t, rev, s)
	}

	rr := readSkillFile(t, "re-review-prompt.md")
	assert.Contains(t, rr, "F<k>: <ADDRESSED | NOT ADDRESSED>")
	assert.Contains(t, rr, "Out of scope:")

	skill := readSkillFile(t, "SKILL.md")
	for _, s := range []string{"`DONE`", "`DONE_WITH_CONCERNS`", "`NEEDS_CONTEXT`", "`BLOCKED`",
		"Spec ✅", "Spec ❌", "NOT\nADDRESSED", "Critical", "Important", "Minor", "`HEAD~1`"} {
		assert.Contains(t, skill, s)
	}
}

func TestLedgerFormatsMatchProtocol(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	for _, f := range protocolFormats {
		assert.Contains(t, skill, f, "SKILL.md shows the ledger format exactly")
	}
	assert.Equal(t, protocolFormats, LedgerFormats(skill), "the Ledger formats block lists exactly the protocol's formats, in order")
	for _, f := range LedgerFormats(skill) {
		assert.NotContains(t, f, " - ", "a hyphen where an em dash belongs: %q", f)
	}
	// Only the separators are em dashes: a rule that forbids every hyphen
	// in a ledger line would forbid them in one-liners and rulings too.
	assert.NotRegexp(t, `(?i)every dash`, skill)
}

// TestProtocolFileFormats reads docs/protocol.md, the repository's own
// statement of the controller protocol, and checks that its formats block
// is exactly the protocol's formats and that SKILL.md shows every ledger
// line it names, exactly. The file must exist: a protocol the tests
// cannot read is a failure, not a skip.
func TestProtocolFileFormats(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "protocol.md"))
	require.NoError(t, err, "docs/protocol.md carries the protocol contract")
	text := string(b)
	assert.Equal(t, protocolFormats, LedgerFormats(text), "docs/protocol.md's formats block")

	skill := readSkillFile(t, "SKILL.md")
	assert.Equal(t, LedgerFormats(text), LedgerFormats(skill), "SKILL.md lists the formats docs/protocol.md fixes")
	var n int
	for _, s := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(strings.ReplaceAll(text, "\n", " "), -1) {
		f := regexp.MustCompile(`\s+`).ReplaceAllString(s[1], " ")
		if strings.HasPrefix(f, "Task <N>: ") || strings.HasPrefix(f, "# SDD ledger") ||
			strings.HasPrefix(f, "Final: ") && strings.Contains(f, "<") {
			n++
			assert.Contains(t, skill, f, "SKILL.md shows the protocol's %q exactly", f)
		}
	}
	assert.GreaterOrEqual(t, n, 10, "ledger lines named in the prose of docs/protocol.md")
}

// formatLine fills the format of formats that contains substr (the first
// one) with the given field values.
func formatLine(t *testing.T, formats []string, substr string, kv ...string) string {
	t.Helper()
	v := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		v[kv[i]] = kv[i+1]
	}
	for _, s := range formats {
		if strings.Contains(s, substr) {
			f, err := CompileFormat(s)
			require.NoError(t, err)
			line := f.Fill(v)
			require.NotContains(t, line, "<", "every field of %q filled", s)
			return line
		}
	}
	t.Fatalf("no ledger format contains %q", substr)
	return ""
}

// TestSampleLedgerRoundTrip writes a ledger from the formats the text
// shows, covering every kind of line, and parses it back.
func TestSampleLedgerRoundTrip(t *testing.T) {
	formats := LedgerFormats(readSkillFile(t, "SKILL.md"))
	require.NotEmpty(t, formats)
	sha := func(c byte) string { return strings.Repeat(string(c), 40) }
	var b strings.Builder
	add := func(substr string, kv ...string) { b.WriteString(formatLine(t, formats, substr, kv...) + "\n") }
	add("# SDD ledger", "plan file path", "docs/plans/search.md")
	// Task 1: one fix round, then clean.
	add("Task <N>: base=", "N", "1", "sha", sha('a'))
	add("Task <N>: implementer=", "N", "1", "id", "agent-7f3")
	add("Task <N>: reviewed_head=", "N", "1", "sha", sha('b'))
	add("Task <N>: minor", "N", "1", "one-liner", "comment typo in index.go - says \"retrys\"")
	add("Task <N>: fix round", "N", "1", "R", "1", "X", "1", "Y", "0", "finding one-liners", "F1 unchecked error - Open()", "a7", "bbbbbbb", "b7", "ccccccc")
	add("Task <N>: complete (commits <base7>..<head7>, review clean)", "N", "1", "base7", "aaaaaaa", "head7", "ccccccc")
	// Task 2: five rounds, then one finding parked.
	add("Task <N>: base=", "N", "2", "sha", sha('d'))
	add("Task <N>: implementer=", "N", "2", "id", "agent-1")
	add("Task <N>: reviewed_head=", "N", "2", "sha", sha('e'))
	prev := "eeeeeee"
	for r := 1; r <= 5; r++ {
		if r == 4 {
			add("Task <N>: implementer=", "N", "2", "id", "agent-2") // rounds 4-5: a fresh one
		}
		next := fmt.Sprintf("%07x", 0x1000000*r+r)
		add("Task <N>: fix round", "N", "2", "R", fmt.Sprint(r), "X", "0", "Y", "1", "finding one-liners", "F1 retry loop never ends", "a7", prev, "b7", next)
		prev = next
	}
	add("Task <N>: parked", "N", "2", "finding", "F1 retry loop never ends", "why", "reviewer misread the back-off; the loop exits at max")
	add("Task <N>: complete (commits <base7>..<head7>, <K> parked)", "N", "2", "base7", "ddddddd", "head7", prev, "K", "1")
	// The final review: one fix, its re-review, one residual parked.
	add("Final: base=", "sha", sha('1'))
	add("Final: reviewed_head=", "sha", sha('2'))
	add("Final: reviewed_head=", "sha", sha('3'))
	add("Final: parked", "finding", "duplicate helper in a.go and b.go", "why", "harmless; both are two-liners")
	add("Final: complete (commits <base7>..<head7>, <K> parked)", "base7", "1111111", "head7", "3333333", "K", "1")
	text := b.String()
	assert.NotContains(t, text, "<", "every placeholder filled")

	l, err := ParseLedger(text, formats)
	require.NoError(t, err, "\n%s", text)
	assert.Equal(t, "docs/plans/search.md", l.Plan)
	assert.True(t, l.Done(1))
	assert.True(t, l.Done(2))
	assert.Equal(t, "agent-7f3", l.Tasks[1].Implementer)
	assert.Equal(t, "agent-2", l.Tasks[2].Implementer, "the last implementer= line names the agent to resume")
	assert.Equal(t, []string{"comment typo in index.go - says \"retrys\""}, l.Tasks[1].Minors)
	assert.Equal(t, []string{"F1 retry loop never ends"}, l.Tasks[2].Parked)
	assert.Equal(t, 5, l.Tasks[2].Round)
	require.NotNil(t, l.Final)
	assert.True(t, l.Final.Complete)
	assert.Equal(t, []string{sha('2'), sha('3')}, l.Final.ReviewedHeads)

	// A task stopped by the breaker.
	var c strings.Builder
	c.WriteString(formatLine(t, formats, "# SDD ledger", "plan file path", "p.md") + "\n")
	c.WriteString(formatLine(t, formats, "Task <N>: base=", "N", "3", "sha", sha('f')) + "\n")
	c.WriteString(formatLine(t, formats, "Task <N>: reviewed_head=", "N", "3", "sha", sha('0')) + "\n")
	prev = "0000000"
	for r := 1; r <= 5; r++ {
		next := fmt.Sprintf("%07d", r)
		c.WriteString(formatLine(t, formats, "Task <N>: fix round", "N", "3", "R", fmt.Sprint(r), "X", "0", "Y", "1", "finding one-liners", "F1 schema drift", "a7", prev, "b7", next) + "\n")
		prev = next
	}
	c.WriteString(formatLine(t, formats, "Task <N>: BLOCKED", "N", "3", "reason", "F1 schema drift breaks Task 4's migration") + "\n")
	l, err = ParseLedger(c.String(), formats)
	require.NoError(t, err, "\n%s", c.String())
	assert.False(t, l.Done(3))
	assert.Equal(t, "F1 schema drift breaks Task 4's migration", l.Tasks[3].Blocked)
}

func TestLedgerCheckerRejects(t *testing.T) {
	formats := protocolFormats
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	head := "# SDD ledger — plan: p.md\n"
	done := head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: complete (commits aaaaaaa..bbbbbbb, review clean)\n"
	final := done + "Final: base=" + a + "\nFinal: reviewed_head=" + b + "\n"
	for name, text := range map[string]string{
		"hyphen in identity":       "# SDD ledger - plan: p.md\n",
		"no identity":              "Task 1: base=" + a + "\n",
		"unknown line":             head + "Task 1: base=" + a + "\nTask 1: done\n",
		"line before base":         head + "Task 1: reviewed_head=" + a + "\n",
		"implementer before base":  head + "Task 1: implementer=x\n",
		"implementer with a blank": head + "Task 1: base=" + a + "\nTask 1: implementer=agent 7\n",
		"short base":               head + "Task 1: base=aaaaaaa\n",
		"short reviewed head":      head + "Task 1: base=" + a + "\nTask 1: reviewed_head=bbbbbbb\n",
		"hyphen separator":         head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: fix round 1/5 (1 addressed, 0 open - F1 x; commits bbbbbbb..ccccccc)\n",
		"round skipped":            head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: fix round 2/5 (1 addressed, 0 open — F1 x; commits bbbbbbb..ccccccc)\n",
		"round from wrong sha":     head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: fix round 1/5 (1 addressed, 0 open — F1 x; commits aaaaaaa..ccccccc)\n",
		"round six":                head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: fix round 6/5 (1 addressed, 0 open — F1 x; commits bbbbbbb..ccccccc)\n",
		"review after a round":     head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: fix round 1/5 (0 addressed, 1 open — F1 x; commits bbbbbbb..ccccccc)\nTask 1: reviewed_head=" + a + "\n",
		"parked early":             head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: parked — F1 — ruling: meh\n",
		"blocked early":            head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: BLOCKED — stuck\n",
		"complete unreviewed":      head + "Task 1: base=" + a + "\nTask 1: complete (commits aaaaaaa..bbbbbbb, review clean)\n",
		"complete wrong base":      head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: complete (commits ccccccc..bbbbbbb, review clean)\n",
		"parked count wrong":       head + "Task 1: base=" + a + "\nTask 1: reviewed_head=" + b + "\nTask 1: complete (commits aaaaaaa..bbbbbbb, 2 parked)\n",
		"base after complete":      done + "Task 1: base=" + b + "\n",
		"minor after complete":     done + "Task 1: minor (deferred): late\n",
		"parked after complete":    done + "Task 1: parked — F1 — ruling: late\n",
		"blank line":               head + "\nTask 1: base=" + a + "\n",
		"final before complete":    head + "Task 1: base=" + a + "\nFinal: base=" + a + "\n",
		"final with no task":       head + "Final: base=" + a + "\n",
		"final head before base":   done + "Final: reviewed_head=" + b + "\n",
		"final parked unreviewed":  done + "Final: base=" + a + "\nFinal: parked — x — ruling: y\n",
		"third final review":       final + "Final: reviewed_head=" + a + "\nFinal: reviewed_head=" + b + "\n",
		"final range wrong":        final + "Final: complete (commits bbbbbbb..bbbbbbb, review clean)\n",
		"final parked count":       final + "Final: parked — x — ruling: y\nFinal: complete (commits aaaaaaa..bbbbbbb, review clean)\n",
		"task line after final":    final + "Task 2: base=" + b + "\n",
		"line after final complete": final + "Final: complete (commits aaaaaaa..bbbbbbb, review clean)\n" +
			"Final: parked — x — ruling: y\n",
	} {
		_, err := ParseLedger(text, formats)
		assert.Error(t, err, name)
	}
}

// TestWorkedExampleLedgerParses checks the ledger the worked example ends
// with.
func TestWorkedExampleLedgerParses(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	var found bool
	for _, f := range Fences(skill) {
		if f.Depth != 0 || !strings.HasPrefix(f.Body, IdentityPrefix) || strings.HasPrefix(f.Body, IdentityPrefix+"<") {
			continue
		}
		found = true
		l, err := ParseLedger(f.Body, LedgerFormats(skill))
		require.NoError(t, err, "SKILL.md:%d", f.Line)
		assert.True(t, l.Done(1))
		assert.NotEmpty(t, l.Tasks[1].Implementer, "the example records the implementer's id")
	}
	assert.True(t, found, "the worked example shows a filled-in ledger")
}
