package scripted

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What only the Responses API carries (Codex CLI 0.171.0): a namespace's
// functions among the tools (and a hosted tool, its type its name),
// developer messages kept among the texts, a namespaced call that goes
// out with its namespace and comes back matched by it, an output in
// parts read as text.
func TestResponsesNamespaces(t *testing.T) {
	p := PlayerOf(Responses{})
	srv := NewServer(t, Responses{})
	srv.Handle("main", func(a *Turns) {
		if r := a.CallIn("multi_agent_v1", "spawn_agent", map[string]any{"message": "sub"}); r.Text != `{"agent_id":"a1"}`+"\nmore" {
			a.Failf("the result: %+v", r)
		}
		a.Say("ok")
	})
	prompt := []Entry{{Role: "developer", Text: "You are a coding agent running in the Codex CLI."}, Sent("user", "main")}
	spawn := p.Ask(t, srv, true, prompt...)
	require.NotNil(t, spawn.Call)
	assert.Equal(t, "multi_agent_v1", spawn.Call.Namespace)
	body := p.Body(true, append(prompt, Said(spawn))...)
	body["input"] = append(body["input"].([]map[string]any), map[string]any{"type": "function_call_output", "call_id": spawn.Call.ID,
		"output": []map[string]any{{"type": "input_text", "text": `{"agent_id":"a1"}`}, {"type": "input_text", "text": "more"}}})
	assert.Equal(t, "ok", p.Post(t, srv, true, body).Text)
	assert.Empty(t, srv.Failures())

	req := srv.Requests()[0]
	assert.Equal(t, []string{"exec_command", "spawn_agent", "web_search"}, req.ToolNames())
	sp, ok := req.Tool("spawn_agent")
	assert.True(t, ok)
	assert.Equal(t, Tool{Namespace: "multi_agent_v1", Name: "spawn_agent", Description: "Spawns."}, sp)
	assert.Equal(t, []string{"You are a coding agent running in the Codex CLI."}, req.Texts("developer"))

	// Without its namespace the call is another.
	other := *spawn.Call
	other.Namespace = ""
	got := p.Ask(t, srv, true, append(prompt, Said(Turn{Call: &other}), Returned(other.ID, "{}", false))...)
	assert.Contains(t, got.Text, "SCRIPT FAILED")
}
