package follower

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

func TestByName(t *testing.T) {
	for in, want := range map[string]string{
		"sdd-ledger look 'p.md' 'main'":                          "sdd-ledger look 'p.md' 'main'",
		"'/home/u/.codex/skills/x/bin/sdd-ledger' finish 'p.md'": "sdd-ledger finish 'p.md'",
		"'/a b/bin/task-brief' 'p.md' 1":                         "task-brief 'p.md' 1",
		"'/a/bin/other' x":                                       "'/a/bin/other' x",
		"sh check1.sh":                                           "sh check1.sh",
		"sh check1.sh && '/c/bin/sdd-ledger' close 'p.md' 1":     "sh check1.sh && sdd-ledger close 'p.md' 1",
		"'unclosed": "'unclosed",
	} {
		assert.Equal(t, want, ByName(in), in)
	}
}

// sayOnly is the Tools of a controller that only reads a host's file: a
// failure is its last words.
type sayOnly struct {
	Tools
	said string
}

func (s *sayOnly) Say(text string) { s.said = text }

// fixRounds are the rounds 1 to 5 that continue the implementer, as
// the host's file md says, for an implementer of this session or of an
// earlier one; failed is the controller's last words when it cannot
// tell.
func fixRounds(t *testing.T, md string, earlier bool) (rounds []int, failed string) {
	host, err := ParseText(md)
	require.NoError(t, err)
	s := &sayOnly{}
	c := &controller{t: s, host: host}
	defer unwound(func(stopped) { failed = s.said })
	for r := 1; r <= 5; r++ {
		if c.continues(r, earlier) {
			rounds = append(rounds, r)
		}
	}
	return rounds, ""
}

// TestFixRoundRow: each host's file says, in its row "a fix round",
// which fix rounds go to the task's implementer again (Codex CLI,
// OpenCode, Copilot CLI and Droid: 1-3), or that each is a new
// implementer (Claude Code, Gemini CLI, Pi); an edit of that row changes the rounds or fails the run.
func TestFixRoundRow(t *testing.T) {
	want := map[string][]int{"claude-code": nil, "codex": {1, 2, 3}, "opencode": {1, 2, 3}, "copilot": {1, 2, 3}, "gemini": nil, "pi": nil, "droid": {1, 2, 3}}
	for host, rounds := range want {
		b, err := os.ReadFile(testutil.ModuleRoot() + "/skill/" + HostFile(host))
		require.NoError(t, err)
		md := string(b)
		got, failed := fixRounds(t, md, false)
		assert.Empty(t, failed, host)
		assert.Equal(t, rounds, got, host)

		row := "| a fix round | "
		require.Contains(t, md, row, host)
		if rounds != nil {
			earlier, _ := fixRounds(t, md, true)
			assert.Empty(t, earlier, "%s: an implementer of an earlier session continued", host)
			anyone, _ := fixRounds(t, strings.Replace(md, ", and an implementer of an earlier session:", ":", 1), true)
			assert.Equal(t, rounds, anyone, host)
			fewer, _ := fixRounds(t, strings.Replace(md, "rounds 1-3: continue", "rounds 1-2: continue", 1), false)
			assert.Equal(t, []int{1, 2}, fewer, host)
			none, _ := fixRounds(t, strings.Replace(md, row+"rounds 1-3: continue the implementer", row+"a new implementer", 1), false)
			assert.Empty(t, none, host)
		} else {
			all, _ := fixRounds(t, strings.Replace(md, row+"a new implementer", row+"rounds 1-5: continue the implementer", 1), false)
			assert.Equal(t, []int{1, 2, 3, 4, 5}, all, host)
		}
		_, failed = fixRounds(t, strings.Replace(md, row, row+"maybe ", 1), false)
		assert.Contains(t, failed, `in its row "a fix round"`, host)
		_, failed = fixRounds(t, strings.Replace(md, row, "| a fix ", 1), false)
		assert.Contains(t, failed, `no row "a fix round"`, host)
	}
}

// TestDispatchTypeRow: the subagent type of every dispatch is the one
// each host's file names in its row "a dispatch" (none for Codex CLI's
// spawn_agent); an edit of that name changes the type dispatched.
func TestDispatchTypeRow(t *testing.T) {
	want := map[string]string{"claude-code": "general-purpose", "codex": "", "opencode": "general", "copilot": "general-purpose", "gemini": "generalist", "pi": "sdd-worker", "droid": "worker"}
	for host, typ := range want {
		b, err := os.ReadFile(testutil.ModuleRoot() + "/skill/" + HostFile(host))
		require.NoError(t, err)
		md := string(b)
		host1, err := ParseText(md)
		require.NoError(t, err)
		c := &controller{t: &sayOnly{}, host: host1}
		assert.Equal(t, typ, c.dispatchType(), host)
		if typ == "" {
			continue
		}
		other, err := ParseText(strings.Replace(md, "` `"+typ+"`", "` `Explore`", 1))
		require.NoError(t, err)
		c = &controller{t: &sayOnly{}, host: other}
		assert.Equal(t, "Explore", c.dispatchType(), host)
	}
}
