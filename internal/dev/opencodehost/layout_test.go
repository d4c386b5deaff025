package opencodehost

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// These tests hold the adapter's translations of OpenCode's results
// (follow.go) to the shapes opencode 1.18.33 gives: no CLI needed.

// TestClaudeLayout: a whole read gives the follower the file (its last,
// empty line the newline it ends with); a part gives its lines and no
// more; a failure and a directory come back as they are.
func TestClaudeLayout(t *testing.T) {
	whole := "<path>/r/a.txt</path>\n<type>file</type>\n<content>\n1: one\n2:  two: 2\n3: \n4: four\n\n(End of file - total 4 lines)\n</content>"
	assert.Equal(t, "one\n two: 2\n\nfour\n", follower.FileText(claudeLayout(whole)))

	part := "<path>/r/a.txt</path>\n<type>file</type>\n<content>\n2: two\n3: three\n\n(Showing lines 2-3 of 9. Use offset=4 to continue.)\n</content>"
	assert.Equal(t, []string{"two", "three"}, follower.FileLines(claudeLayout(part)))

	capped := "<path>/r/a.txt</path>\n<type>file</type>\n<content>\n1: x\n\n(Output capped at 50 KB. Showing lines 1-1. Use offset=2 to continue.)\n</content>"
	assert.Equal(t, []string{"x"}, follower.FileLines(claudeLayout(capped)), "a read cut at 50 KB is no whole file")

	empty := "<path>/r/e.txt</path>\n<type>file</type>\n<content>\n\n(End of file - total 0 lines)\n</content>"
	assert.Empty(t, follower.FileLines(claudeLayout(empty)))

	// A reminder after the content keeps its numbers as they are.
	reminder := whole + "\n<system-reminder>\n7: not a line of the file\n</system-reminder>"
	assert.Contains(t, claudeLayout(reminder), "\n7: not a line of the file\n")

	for _, out := range []string{"File not found: /r/b.txt", "<path>/r</path>\n<type>directory</type>\n<entries>\na.txt\n(1 entries)\n</entries>"} {
		assert.Equal(t, out, claudeLayout(out))
	}
}

// TestSkillResult: the skill tool's result, body first, becomes the
// follower's: the base directory's line, a blank line, the body.
func TestSkillResult(t *testing.T) {
	out := "<skill_content name=\"x\">\n# Skill: x\n\n# X\n\nRun **Look**.\n\nBase directory for this skill: /h/skills/x\n" +
		"Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\nNote: file list is sampled.\n\n" +
		"<skill_files>\n<file>/h/skills/x/bin/a</file>\n</skill_files>\n</skill_content>"
	sk := parseSkill(out)
	body, ok := skillBody(sk)
	assert.True(t, ok)
	assert.Equal(t, "# X\n\nRun **Look**.\n", body)
	parsed, err := follower.ParseSkill(follower.BaseDirPrefix + sk.Dir + "\n\n" + body)
	assert.NoError(t, err)
	assert.Equal(t, "/h/skills/x", parsed.Dir)

	_, ok = skillBody(parseSkill("Skill not found: y"))
	assert.False(t, ok)
}
