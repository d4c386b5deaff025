package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// A listed skill is handed over as Claude Code's Skill tool hands it
// over: its folder, a blank line, the body after the front matter; a
// name not listed, a failed read and a front matter that never ends are
// failures.
func TestReadSkill(t *testing.T) {
	listed := []ListedSkill{{Name: "x", Path: "/h/skills/x/SKILL.md"}, {Name: "y", Path: "/h/skills/y/SKILL.md"}}
	files := map[string]string{"/h/skills/x/SKILL.md": "---\nname: x\n---\n\n# X\n", "/h/skills/y/SKILL.md": "---\nname: y\n"}
	read := func(path string) (string, follower.Result, bool) {
		text, ok := files[path]
		return text, follower.Result{Text: "no file " + path, IsError: true}, ok
	}
	assert.Equal(t, follower.Result{Text: follower.BaseDirPrefix + "/h/skills/x\n\n# X\n"}, ReadSkill(listed, "x", "the instructions", read))
	assert.Equal(t, follower.Result{Text: `no skill "z" in the instructions (listed: x, y)`, IsError: true}, ReadSkill(listed, "z", "the instructions", read))
	assert.True(t, ReadSkill(listed, "y", "the instructions", read).IsError, "a front matter that never ends")
	delete(files, "/h/skills/x/SKILL.md")
	assert.Equal(t, follower.Result{Text: "no file /h/skills/x/SKILL.md", IsError: true}, ReadSkill(listed, "x", "the instructions", read))
	body, ok := SkillBody("# no front matter\n")
	assert.True(t, ok)
	assert.Equal(t, "# no front matter\n", body)
}
