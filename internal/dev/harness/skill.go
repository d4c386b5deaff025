package harness

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// A host with no skill tool (the Codex CLI, Pi) lists the skills to its
// model in its instructions, each with the path of its SKILL.md, and the
// model reads that file itself. The follower is handed the skill as
// Claude Code's Skill tool hands it over, whatever the listing looks
// like: ListedSkill and ReadSkill are that once, the listing's parser
// the host's.

// ListedSkill is a skill as such a host lists it to its model.
type ListedSkill struct {
	Name, Description string
	Path              string // the SKILL.md, absolute
}

// FindSkill returns the skill of listed called name.
func FindSkill(listed []ListedSkill, name string) (ListedSkill, bool) {
	for _, s := range listed {
		if s.Name == name {
			return s, true
		}
	}
	return ListedSkill{}, false
}

// ReadSkill is the follower's Skill on such a host: the skill listed
// under name (where names the listing, for a failure), its SKILL.md read
// whole the host's way (read: its text, or the failed result), and
// handed over as Claude Code's Skill tool hands a skill over: the
// skill's folder on the line follower.BaseDirPrefix starts, a blank
// line, and the body after the front matter.
func ReadSkill(listed []ListedSkill, name, where string, read func(path string) (string, follower.Result, bool)) follower.Result {
	sk, ok := FindSkill(listed, name)
	if !ok {
		var names []string
		for _, s := range listed {
			names = append(names, s.Name)
		}
		return follower.Result{Text: fmt.Sprintf("no skill %q in %s (listed: %s)", name, where, strings.Join(names, ", ")), IsError: true}
	}
	text, failed, ok := read(sk.Path)
	if !ok {
		return failed
	}
	body, ok := SkillBody(text)
	if !ok {
		return follower.Result{Text: sk.Path + ": its front matter never ends", IsError: true}
	}
	return follower.Result{Text: follower.BaseDirPrefix + filepath.Dir(sk.Path) + "\n\n" + strings.TrimLeft(body, "\n")}
}

// SkillBody is a SKILL.md's text after its front matter (the whole text
// where it has none); false where the front matter never ends.
func SkillBody(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return text, true
	}
	_, body, ok := strings.Cut(rest, "\n---\n")
	return body, ok
}
