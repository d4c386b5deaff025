package pihost

import (
	"html"
	"regexp"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

// Skill is one skill of the <available_skills> list Pi puts in its system
// prompt (0.73.1): there is no skill tool, the model reads Path (the
// list's location) with the read tool.
type Skill = harness.ListedSkill

var (
	skillsRe = regexp.MustCompile(`(?s)<available_skills>(.*?)</available_skills>`)
	skillRe  = regexp.MustCompile(`(?s)<skill>\s*<name>(.*?)</name>\s*<description>(.*?)</description>\s*<location>(.*?)</location>\s*</skill>`)
)

// ParseSkills reads the skills of a system prompt:
//
//	<available_skills>
//	  <skill>
//	    <name>NAME</name>
//	    <description>DESCRIPTION</description>
//	    <location>/…/NAME/SKILL.md</location>
//	  </skill>
//	</available_skills>
func ParseSkills(system string) []Skill {
	m := skillsRe.FindStringSubmatch(system)
	if m == nil {
		return nil
	}
	var out []Skill
	for _, s := range skillRe.FindAllStringSubmatch(m[1], -1) {
		out = append(out, Skill{Name: html.UnescapeString(s[1]), Description: html.UnescapeString(s[2]), Path: html.UnescapeString(s[3])})
	}
	return out
}

// Skills are the skills the conversation's system prompt lists.
func (a *Turns) Skills() []Skill {
	for _, s := range a.System() {
		if sk := ParseSkills(s); sk != nil {
			return sk
		}
	}
	return nil
}

// Skill returns the listed skill called name.
func (a *Turns) Skill(name string) (Skill, bool) { return harness.FindSkill(a.Skills(), name) }
