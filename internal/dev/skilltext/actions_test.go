package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// A run's calls as steps of the text: each Bash call named by the blocks
// it is made of ("Bash Close+Start task N"), each dispatch by its role,
// task and model, so a test says which step came next in the text's own
// names, whatever the blocks' wording.

// blockMatcher names the shell blocks of a skill directory.
type blockMatcher struct {
	names []string
	res   []*regexp.Regexp
}

func newBlockMatcher(t *testing.T, skillDir string) *blockMatcher {
	t.Helper()
	m := &blockMatcher{}
	for _, file := range []string{"SKILL.md", "resume.md"} {
		b, err := os.ReadFile(filepath.Join(skillDir, file))
		require.NoError(t, err)
		text, err := follower.ParseText(string(b))
		require.NoError(t, err)
		for _, name := range text.Names() {
			blk := text.Blocks[name]
			if blk.Lang != "sh" {
				continue
			}
			// The block with its placeholders as wildcards.
			var re strings.Builder
			re.WriteString(`^`)
			last := 0
			for _, ix := range follower.PlaceholderRe.FindAllStringIndex(blk.Body, -1) {
				re.WriteString(regexp.QuoteMeta(blk.Body[last:ix[0]]))
				re.WriteString(`[^\n]*?`)
				last = ix[1]
			}
			re.WriteString(regexp.QuoteMeta(blk.Body[last:]))
			m.names = append(m.names, name)
			m.res = append(m.res, regexp.MustCompile(re.String()))
		}
	}
	return m
}

// name splits a command into the blocks it is made of, "?" for a part
// that is no block.
func (m *blockMatcher) name(command string) string {
	var names []string
	rest := command
	for rest != "" {
		found := false
		for i, re := range m.res {
			if loc := re.FindStringIndex(rest); loc != nil && loc[1] > 0 {
				names = append(names, m.names[i])
				rest = rest[loc[1]:]
				found = true
				break
			}
		}
		if !found {
			first, _, _ := strings.Cut(rest, "\n")
			names = append(names, "? "+first)
			break
		}
	}
	return strings.Join(names, "+")
}

// actions are the controller's calls as steps.
func actions(t *testing.T, skillDir string, calls []directCall) []string {
	t.Helper()
	if skillDir == "" {
		skillDir = filepath.Join(moduleRoot, "skill")
	}
	m := newBlockMatcher(t, skillDir)
	var out []string
	for _, c := range calls {
		if c.Actor != "controller" {
			continue
		}
		switch c.Tool {
		case "Bash":
			out = append(out, "Bash "+m.name(c.Input))
		case "Agent":
			d, _ := follower.ParseDispatch(c.Input)
			out = append(out, fmt.Sprintf("Agent %s %d (%s)", d.Role, d.N, c.Model))
		case "SendMessage":
			to, msg, _ := strings.Cut(c.Input, "\n")
			d, _ := follower.ParseDispatch(msg)
			out = append(out, fmt.Sprintf("SendMessage %s %d round %d to %s", d.Role, d.N, d.R, to))
		case "Read":
			out = append(out, "Read "+reviewNameRe.ReplaceAllString(filepath.Base(c.Input), "review-…"))
		case "Say":
			out = append(out, "Say")
		default:
			out = append(out, c.Tool+" "+c.Input)
		}
	}
	return out
}

var reviewNameRe = regexp.MustCompile(`review-[0-9a-f]+\.\.[0-9a-f]+`)

// TestActionsNameTheBlocks: the walk-through's calls by name, which is
// also skill/example.md's list of calls.
func TestActionsNameTheBlocks(t *testing.T) {
	t.Parallel()
	p, r := walk(t, "")
	require.Empty(t, p)
	require.Equal(t, []string{
		"Skill " + follower.DefaultSkill,
		"Bash Look",
		"Read greet.md",
		"Bash Start the run+Start task N",
		"Agent implementer 1 (sonnet)",
		"Bash Build the package",
		"Agent reviewer 1 (opus)",
		"Bash Close+Start task N",
		"Agent implementer 2 (sonnet)",
		"Bash Build the package",
		"Agent reviewer 2 (opus)",
		"ToolSearch select:SendMessage",
		"SendMessage fix 2 round 1 to agent-3",
		"Bash Re-review package",
		"Agent re-reviewer 2 (sonnet)",
		"Bash Record the round+Close+Start task N",
		"Agent implementer 3 (sonnet)",
		"Bash Build the package",
		"Agent reviewer 3 (opus)",
		"Bash Close+Final package",
		"Agent final reviewer 0 (opus)",
		"Bash Close+Finish",
		"Say",
	}, actions(t, "", r.calls))
}
