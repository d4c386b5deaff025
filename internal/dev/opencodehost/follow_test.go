package opencodehost

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// CLI: the follower's controller as the session's model, its subagents
// as OpenCode's own (task), the skill installed by the project's
// installer, with OpenCode's default permissions; anything that asks is
// refused, and a refusal fails the run.
func TestFollow(t *testing.T) { harness.RunScenarios(t, opencode) }

var skillEntryRe = regexp.MustCompile(`(?s)<skill>\s*<name>` + regexp.QuoteMeta(ship.SkillName) + `</name>.*?</skill>`)

// CheckWalkThrough: the skill is listed to the model, every subagent
// reads its role file and more; and what OpenCode sends the model of the
// skill, always (its <skill> entry in the system prompt) and on invoke
// (the skill tool's result), is logged.
func (adapter) CheckWalkThrough(t *testing.T, s *harness.Sessions, p *harness.Played) {
	listing, invoked := 0, 0
	if reqs := s.Server.Conversation(p.Conversation); len(reqs) > 0 {
		for _, m := range reqs[0].System {
			if e := skillEntryRe.FindString(m); e != "" {
				listing = len(e)
			}
		}
	}
	for _, c := range s.Server.Calls(p.Conversation) {
		if c.Name == "skill" {
			invoked = len(c.Output)
		}
	}
	body := len(skillBodyOf(t, s.SkillDir))
	t.Logf("instruction bytes: the always-on listing of the skill %d; the skill tool's result %d (SKILL.md's body %d, OpenCode's wrapping, base directory and sampled file list %d)",
		listing, invoked, body, invoked-body)
	assert.NotZero(t, listing, "the skill is listed to the model")
	subs := 0
	for conv, steps := range p.Steps {
		if conv != p.Conversation {
			for _, st := range steps {
				subs += len(st.Calls)
			}
		}
	}
	assert.GreaterOrEqual(t, subs, 9*3, "every subagent reads its role file and more")
}

// skillBodyOf is the installed SKILL.md without its front matter.
func skillBodyOf(t *testing.T, skillDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(skillDir, "SKILL.md"))
	require.NoError(t, err)
	rest, ok := strings.CutPrefix(string(b), "---\n")
	require.True(t, ok, "SKILL.md has no front matter")
	_, body, ok := strings.Cut(rest, "\n---\n")
	require.True(t, ok, "SKILL.md's front matter does not end")
	return body
}
