package skilltext

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Checks 1 and 2: the front matter the host lists the skill by, and the
// links between the files.

// skillName is the name the host lists the skill under, after the
// plugin's prefix.
const skillName = "subagent-driven-development"

// listingBudget bounds "sdd-go:subagent-driven-development <description>",
// the line the host keeps in every session's context. The host budgets
// that line at 30 tokens and estimates about four characters per token;
// the real count is measured by the host test (make test-host).
const listingBudget = 120

// onInvokeBudget bounds what SKILL.md costs each time the skill is
// loaded, in the host's estimate: `claude plugin details` counts the body
// after the front matter at four characters a token (14406 characters
// measured 3600 tokens with Claude Code 2.1.328). Rare material goes to
// rare.md, behind a link, to stay under it.
const onInvokeBudget = ship.OnInvokeBudget // tokens, at bytesPerTokens a token

// checkOnInvoke estimates SKILL.md's on-invoke tokens as the host does.
func checkOnInvoke(x skillText) []string {
	_, body, err := FrontMatter(x[skillMD])
	if err != nil {
		return []string{"SKILL.md: " + err.Error()}
	}
	if n := len(body) / bytesPerTokens; n > onInvokeBudget {
		return []string{fmt.Sprintf("SKILL.md: about %d tokens on invoke (%d bytes / %d), over %d: move rare material to rare.md", n, len(body), bytesPerTokens, onInvokeBudget)}
	}
	return nil
}

func TestOnInvokeCost(t *testing.T) {
	x := loadText(t)
	_, body, err := FrontMatter(x[skillMD])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SKILL.md: %d bytes, about %d tokens on invoke (budget %d)", len(body), len(body)/bytesPerTokens, onInvokeBudget)
	requireClean(t, checkOnInvoke(x))
	// The check must catch a text over the budget: one grown past it
	// (by a token at least, whatever the text's size now).
	pad := max(onInvokeBudget*bytesPerTokens-len(body), 0) + bytesPerTokens
	over := x.edit(t, skillMD, "## Before Task 1\n", "## Before Task 1\n\n"+strings.Repeat("x", pad)+"\n")
	requireCatches(t, checkOnInvoke(over), fmt.Sprintf("over %d", onInvokeBudget))
}

func checkFrontMatter(x skillText) []string {
	var p []string
	fm, body, err := FrontMatter(x[skillMD])
	if err != nil {
		return []string{"SKILL.md: " + err.Error()}
	}
	if fm["name"] != skillName {
		p = append(p, fmt.Sprintf("SKILL.md: name is %q, not %q", fm["name"], skillName))
	}
	desc := fm["description"]
	if strings.TrimSpace(desc) == "" {
		p = append(p, "SKILL.md: no description")
	}
	for k := range fm {
		if k != "name" && k != "description" && k != "allowed-tools" {
			p = append(p, fmt.Sprintf("SKILL.md: front matter key %q: only name, description and allowed-tools, whatever else costs context in every session", k))
		}
	}
	listing := "sdd-go:" + fm["name"] + " " + desc
	if n := utf8.RuneCountInString(listing); n > listingBudget {
		p = append(p, fmt.Sprintf("SKILL.md: the listing %q is %d characters, over %d: the description is too long", listing, n, listingBudget))
	}
	if !strings.HasPrefix(body, "\n# ") {
		p = append(p, "SKILL.md: no title right after the front matter")
	}
	return p
}

func TestFrontMatter(t *testing.T) {
	requireClean(t, checkFrontMatter(loadText(t)))
}

func TestFrontMatterCatches(t *testing.T) {
	x := loadText(t)
	fm, _, err := FrontMatter(x[skillMD])
	if err != nil {
		t.Fatal(err)
	}
	desc := fm["description"]
	requireCatchesEach(t, checkFrontMatter, map[string]broken{
		"a wrong name":      {x.edit(t, skillMD, "name: "+skillName, "name: sdd"), "name is"},
		"no closing line":   {x.edit(t, skillMD, "review-package:*)\n---\n", "review-package:*)\n\n"), "front matter line"},
		"a long listing":    {x.edit(t, skillMD, "description: "+desc, "description: "+desc+", whatever the size"+strings.Repeat(" of the plan", 3)), "too long"},
		"an unquoted colon": {x.edit(t, skillMD, "description: "+desc, "description: Use: "+desc), "needs quoting"},
		"an extra key":      {x.edit(t, skillMD, "description: ", "when_to_use: always\ndescription: "), "when_to_use"},
	})
}

var (
	schemeRe   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
	skillDirRe = regexp.MustCompile("<skill dir>/([A-Za-z0-9._-]+)")
)

// linkSources are the files whose relative links must resolve.
func (x skillText) linkSources() []string {
	out := x.files("skill")
	return append(out, "docs/skill.md", "docs/protocol.md")
}

// checkLinks: every relative link of the skill's files and of
// docs/skill.md and docs/protocol.md names an existing file and, with a
// fragment, a heading of it; every `<skill dir>/<file>` a dispatch names
// exists; and SKILL.md names every other file of skill/, by a link or by
// `<skill dir>/<file>`, so the host can reach each and none is orphaned.
func checkLinks(x skillText) []string {
	var p []string
	for _, src := range x.linkSources() {
		text, ok := x[src]
		if !ok {
			p = append(p, src+": missing")
			continue
		}
		for _, l := range Links(text) {
			if schemeRe.MatchString(l.Text) {
				continue // an absolute URL: not checked offline
			}
			file, frag, _ := strings.Cut(l.Text, "#")
			target := src
			if file != "" {
				target = path.Clean(path.Join(path.Dir(src), file))
			}
			body, ok := x[target]
			if !ok {
				if _, err := os.Stat(filepath.Join(moduleRoot, filepath.FromSlash(target))); err != nil || strings.HasPrefix(target, "skill/") || strings.HasPrefix(target, "docs/") {
					p = append(p, fmt.Sprintf("%s:%d: link %s: no file %s", src, l.Line, l.Text, target))
					continue
				}
			}
			if frag != "" && !Anchors(body)[frag] {
				p = append(p, fmt.Sprintf("%s:%d: link %s: %s has no heading with the anchor #%s", src, l.Line, l.Text, target, frag))
			}
		}
	}
	named := map[string]bool{}
	for _, src := range x.files("skill") {
		for _, m := range skillDirRe.FindAllStringSubmatch(x[src], -1) {
			if m[1] == "bin" && src != skillMD {
				continue // a host's file may name the commands the install puts in <skill dir>/bin
			}
			if _, ok := x["skill/"+m[1]]; !ok {
				p = append(p, fmt.Sprintf("%s: names <skill dir>/%s, which is not a file of skill/", src, m[1]))
			}
			if src == skillMD {
				named["skill/"+m[1]] = true
			}
		}
	}
	for _, l := range Links(x[skillMD]) {
		if file, _, _ := strings.Cut(l.Text, "#"); file != "" && !schemeRe.MatchString(file) {
			named[path.Clean(path.Join("skill", file))] = true
		}
	}
	for _, f := range x.files("skill") {
		if f != skillMD && !named[f] {
			p = append(p, fmt.Sprintf("%s: SKILL.md names it nowhere (neither a link nor <skill dir>/%s): the host never reads it", f, path.Base(f)))
		}
	}
	return p
}

func TestLinks(t *testing.T) {
	requireClean(t, checkLinks(loadText(t)))
}

func TestLinksCatch(t *testing.T) {
	x := loadText(t)
	requireCatchesEach(t, checkLinks, map[string]broken{
		"a missing anchor":         {x.edit(t, skillMD, "[the ways on](rare.md#history)", "[the ways on](rare.md#the-history)"), "no heading with the anchor #the-history"},
		"a missing file":           {x.edit(t, "docs/skill.md", "(../skill/SKILL.md)", "(../skill/skill.md)"), "no file skill/skill.md"},
		"a missing local anchor":   {x.edit(t, skillMD, "[Before Task 1](#before-task-1)", "[Before Task 1](#before-the-first-task)"), "#before-the-first-task"},
		"a role file not named":    {x.edit(t, skillMD, "<skill dir>/re-review-prompt.md", "re-review-prompt.md"), "skill/re-review-prompt.md: SKILL.md names it nowhere"},
		"a side file not named":    {x.edit(t, skillMD, "[example.md](example.md)\nshows a whole run", "the example shows a whole run"), "skill/example.md: SKILL.md names it nowhere"},
		"a role file gone":         {x.without("skill/task-reviewer-prompt.md"), "<skill dir>/task-reviewer-prompt.md, which is not a file"},
		"an orphan in skill/":      {func() skillText { y := x.without("x"); y["skill/notes.md"] = "# Notes\n"; return y }(), "skill/notes.md: SKILL.md names it nowhere"},
		"a linked side file gone":  {x.without("skill/manual.md"), "no file skill/manual.md"},
		"a protocol link":          {x.edit(t, "docs/protocol.md", "(../skill/SKILL.md)", "(../skills/SKILL.md)"), "no file skills/SKILL.md"},
		"a dispatch names a typo":  {x.edit(t, skillMD, "<skill dir>/implementer-prompt.md and follow it", "<skill dir>/implementer.md and follow it"), "<skill dir>/implementer.md"},
		"a link inside the skill/": {x.edit(t, "skill/rare.md", "[SKILL.md](SKILL.md)", "[SKILL.md](Skill.md)"), "no file skill/Skill.md"},
	})
}
