package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

func TestParseSkill(t *testing.T) {
	s, err := ParseSkill([]string{"<system-reminder>x</system-reminder>", "Base directory for this skill: /h/my skills/sdd\n\n# Title\n\nBody.\n"})
	require.NoError(t, err)
	assert.Equal(t, SkillText{Dir: "/h/my skills/sdd", Body: "# Title\n\nBody.\n"}, s)
	_, err = ParseSkill([]string{"Launching skill: x"})
	assert.Error(t, err)
}

const sample = "# Skill\n" +
	"\n" +
	"## Setup\n" +
	"\n" +
	"1. **Workspace.** Run:\n" +
	"\n" +
	"   ```sh\n" +
	"   sdd-workspace '<plan file>'\n" +
	"   ```\n" +
	"\n" +
	"   ```text\n" +
	"   not a command\n" +
	"   ```\n" +
	"\n" +
	"### Inside setup\n" +
	"\n" +
	"```sh\n" +
	"# Resume\n" +
	"printf '%s\\n' 'x' >> '<workspace>/progress.md'\n" +
	"```\n" +
	"\n" +
	"## Resume\n" +
	"\n" +
	"```sh\n" +
	"git log\n" +
	"```\n"

func TestShellBlock(t *testing.T) {
	got, err := ShellBlock(sample, "Setup", 0)
	require.NoError(t, err)
	assert.Equal(t, "sdd-workspace '<plan file>'", got, "a list item's block loses its indentation")
	got, err = ShellBlock(sample, "Setup", 1)
	require.NoError(t, err)
	assert.Equal(t, "# Resume\nprintf '%s\\n' 'x' >> '<workspace>/progress.md'", got, "a sub-section is part of the section; a # line in a fence is no heading")
	got, err = ShellBlock(sample, "Resume", 0)
	require.NoError(t, err)
	assert.Equal(t, "git log", got)

	_, err = ShellBlock(sample, "Setup", 2)
	assert.ErrorContains(t, err, `the section "Setup" has 2 sh blocks, not 3`)
	_, err = ShellBlock(sample, "Finish", 0)
	assert.ErrorContains(t, err, `no heading "Finish"`)
	_, err = ShellBlock(sample+"\n## Setup\n", "Setup", 0)
	assert.ErrorContains(t, err, `2 headings "Setup"`)
}

func TestFill(t *testing.T) {
	got, err := Fill("review-package '<plan file>' '<base sha>' '<head sha>' 2>&1 < /dev/null", Values{
		"plan file": "docs/my plan é.md", "base sha": "abc", "head sha": "def", "unused": "x",
	})
	require.NoError(t, err)
	assert.Equal(t, "review-package 'docs/my plan é.md' 'abc' 'def' 2>&1 < /dev/null", got)

	_, err = Fill("task-brief '<plan file>' <N>", Values{"plan file": "p.md"})
	assert.ErrorContains(t, err, "no value for <N>")
	_, err = Fill("echo '<workspace>'", Values{"workspace": "/x/<N>"})
	assert.ErrorContains(t, err, "still holds the placeholder <N>")
	got, err = Fill("cat <<'EOF'\nx\nEOF", nil)
	require.NoError(t, err)
	assert.Equal(t, "cat <<'EOF'\nx\nEOF", got)
}

// Every step of the Steps table is found in the repository's SKILL.md,
// and once filled passes the fresh-shell check. When the text's headings
// change, this test names the step to move.
func TestStepsAreInTheText(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "skill", "SKILL.md"))
	require.NoError(t, err)
	sk := SkillText{Body: string(b)}
	sha := "0123456789abcdef0123456789abcdef01234567"
	v := Values{
		"plan file": "docs/plan.md", "workspace": "/r/my repo é/.superpowers/sdd/plan", "N": "1",
		"base sha": sha, "head sha": sha, "fix base sha": sha, "merge base sha": sha,
		"base7": "0123456", "head7": "0123456", "start branch": "main", "agent id": "a1b2",
		"ledger path": "docs/plan.md",
	}
	for step := range Steps {
		cmd, err := sk.Command(step, v)
		if assert.NoError(t, err, "%s", step) {
			assert.NoError(t, CheckCommand(cmd), "%s", step)
		}
	}
	cmd, err := sk.Command(StepWorkspace, v)
	require.NoError(t, err)
	assert.Equal(t, "sdd-workspace 'docs/plan.md'", cmd)
}
