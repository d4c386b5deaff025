package pihost

import (
	"html"
	"regexp"
)

// Skill is one skill of the <available_skills> list Pi puts in its system
// prompt (0.73.1): there is no skill tool, the model reads Location with
// the read tool.
type Skill struct {
	Name, Description string
	Location          string // the SKILL.md, absolute
}

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
		out = append(out, Skill{Name: html.UnescapeString(s[1]), Description: html.UnescapeString(s[2]), Location: html.UnescapeString(s[3])})
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
func (a *Turns) Skill(name string) (Skill, bool) {
	for _, s := range a.Skills() {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}
