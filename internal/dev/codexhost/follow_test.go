package codexhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// TestMain runs the suite, then removes what harness.Install built.
func TestMain(m *testing.M) { harness.Main(m) }

// TestFollow runs the shared scenarios (harness.RunScenarios) in the real
// Codex CLI: the skill installed in $CODEX_HOME/skills, the controller
// and its subagents scripted by the follower, their calls the CLI's own
// tools (follow.go), every state of follower.Resumes a new `codex exec`
// session.
func TestFollow(t *testing.T) { harness.RunScenarios(t, adapter{}) }

// CheckWalkThrough: the bytes of the instructions that are there for
// the skill are logged. (No dispatch names a model, Facts.Dispatch:
// host-codex.md gives the tiers none, and spawn_agent takes only its
// catalog's names and refuses Claude's.)
func (adapter) CheckWalkThrough(t *testing.T, s *harness.Sessions, p *harness.Played) {
	alwaysOn, instructions, onInvoke, parts := skillBytes(t, s, p)
	b, err := os.ReadFile(filepath.Join(s.SkillDir, "SKILL.md"))
	require.NoError(t, err)
	t.Logf("instructions: the skill's <skills_instructions> entry and root %d bytes (the whole block %d), always sent; SKILL.md as read %d bytes in %d parts under the output cap (the file %d)",
		alwaysOn, instructions, onInvoke, parts, len(b))
}

// skillBytes are the bytes of the instructions that are there for the
// skill in the session's first request (its <skills_instructions> entry
// and its root's line: always sent, whether the skill is used or not),
// the bytes of the whole <skills_instructions> block, and the bytes the
// model got when it read SKILL.md, in as many parts.
func skillBytes(t *testing.T, s *harness.Sessions, p *harness.Played) (alwaysOn, instructions, onInvoke, parts int) {
	reqs := s.Server.Conversation(p.Conversation)
	require.NotEmpty(t, reqs)
	for _, text := range reqs[0].Texts("") {
		m := skillsRe.FindString(text)
		if m == "" {
			continue
		}
		instructions = len(m)
		// The skill's entry, and the root its path names when no other
		// entry names it (the root is there for the skill).
		lines := strings.SplitAfter(m, "\n")
		root := ""
		for _, l := range lines {
			if strings.Contains(l, ship.SkillName) {
				alwaysOn += len(l)
				if _, f, ok := strings.Cut(l, "(file: "); ok {
					root, _, _ = strings.Cut(f, "/")
				}
			}
		}
		if root != "" && strings.Count(m, "(file: "+root+"/") == 1 {
			for _, l := range lines {
				if strings.HasPrefix(l, "- `"+root+"` = ") {
					alwaysOn += len(l)
				}
			}
		}
	}
	for _, c := range s.Server.Calls(p.Conversation) {
		if m := ReadCommandRe.FindStringSubmatch(c.Str("cmd")); m != nil && strings.Contains(m[3], s.SkillDir+"/SKILL.md") {
			onInvoke += len(c.Output)
			parts++
		}
	}
	return alwaysOn, instructions, onInvoke, parts
}
