package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The calls of each conversation that came back failed are problems,
// each once (a conversation's last request holds its calls), and so is a
// request of a conversation no script answers; requests before the
// session's are not looked at.
func TestCallProblems(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Chat{}).Fake(t, nil, false)
	m := &Machine{T: t, Server: srv}
	srv.Handle("go", func(a *scripted.Turns) {
		a.Call("bash", map[string]any{"command": "true"})
		a.Call("bash", map[string]any{"command": "false"})
		a.Say("done")
	})
	prompt := scripted.Sent("user", "go")
	first := ask(prompt)
	ok := scripted.Returned(first.Call.ID, "fine", false)
	second := ask(prompt, scripted.Said(first), ok)
	bad := scripted.Returned(second.Call.ID, "Error: no", false)
	assert.Equal(t, "done", ask(prompt, scripted.Said(first), ok, scripted.Said(second), bad).Text)
	ask(scripted.Sent("user", "nobody's"))
	failed := func(c scripted.CallResult) string {
		if strings.HasPrefix(c.Output, "Error: ") {
			return "an error: " + c.Output
		}
		return ""
	}
	got := m.CallProblems(0, failed)
	require.Len(t, got, 2, "%q", got)
	assert.Contains(t, got[0], `request 4 of a conversation no script answers: "nobody's"`)
	assert.Contains(t, got[1], `bash {"command":"false"} came back an error: Error: no`)
	assert.Empty(t, m.CallProblems(4, failed))
}

// A round trip's HOME holds a space and an é, beside the machine's, with
// its git identity.
func TestRoundTripHome(t *testing.T) {
	m := NewMachine(t, t.TempDir(), scripted.Chat{}, nil)
	old := m.Home
	require.NoError(t, m.RoundTripHome())
	assert.Equal(t, filepath.Join(filepath.Dir(old), "home é x"), m.Home)
	b, err := os.ReadFile(filepath.Join(m.Home, ".gitconfig"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "name = SDD Host Test")
}
