package codexhost

import (
	"regexp"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// Skill is one skill of the <skills_instructions> message the CLI gives
// the model: there is no skill tool, the model reads Path (its root
// expanded) itself.
type Skill = harness.ListedSkill

var (
	skillsRe    = regexp.MustCompile(`(?s)<skills_instructions>(.*?)</skills_instructions>`)
	skillRootRe = regexp.MustCompile("(?m)^- `(r\\d+)` = `([^`]*)`$")
	// A name has no space; a plugin's skill is plugin:skill.
	skillLineRe = regexp.MustCompile(`(?m)^- (\S+): (.*) \(file: ([^)\n]*)\)$`)
)

// parseSkills reads the skills of a <skills_instructions> text (0.171.0):
//
//	### Skill roots
//	- `r0` = `/home/u/.codex/skills`
//	### Available skills
//	- name: description (file: r0/x/SKILL.md)
func parseSkills(text string) []Skill {
	m := skillsRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	roots := map[string]string{}
	for _, r := range skillRootRe.FindAllStringSubmatch(m[1], -1) {
		roots[r[1]] = r[2]
	}
	var out []Skill
	for _, l := range skillLineRe.FindAllStringSubmatch(m[1], -1) {
		path := l[3]
		if root, rest, ok := strings.Cut(path, "/"); ok && roots[root] != "" {
			path = roots[root] + "/" + rest
		}
		out = append(out, Skill{Name: l[1], Description: l[2], Path: path})
	}
	return out
}

// Skills are the skills the CLI listed in this conversation's
// instructions, as the model sees them.
func (a *Turns) Skills() []Skill {
	for _, t := range a.Seen() {
		if s := parseSkills(t.Text); s != nil {
			return s
		}
	}
	return nil
}

// Skill returns the listed skill called name.
func (a *Turns) Skill(name string) (Skill, bool) { return harness.FindSkill(a.Skills(), name) }
