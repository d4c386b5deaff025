package scripted

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What only the Messages API carries (Claude Code 2.1.328): a
// tool_result's error mark and its content as blocks, the system prompt
// as blocks or a string, a message's content as a string.
func TestMessagesResultsAndStrings(t *testing.T) {
	p := PlayerOf(Messages{})
	srv := NewServer(t, Messages{})
	srv.Handle("strict", func(a *Turns) {
		if r := a.Call("Bash", map[string]any{"command": "false"}); !r.IsError || r.Text != "Exit code 1\nsee above" {
			a.Failf("the result: %+v", r)
		}
		a.Say("seen")
	})
	first := p.Ask(t, srv, true, Sent("user", "strict"))
	body := p.Body(true, Sent("user", "strict"), Said(first))
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	body["messages"] = append(body["messages"].([]map[string]any), map[string]any{"role": "user", "content": []map[string]any{{
		"type": "tool_result", "tool_use_id": first.Call.ID, "is_error": true, "content": []map[string]any{text("Exit code 1"), text("see above")}}}})
	assert.Equal(t, "seen", p.Post(t, srv, true, body).Text)
	assert.Empty(t, srv.Failures())
	assert.Equal(t, []string{"You are Claude Code."}, srv.Requests()[0].System)

	var req Request
	require.NoError(t, Messages{}.Decode([]byte(`{"system":"sys","messages":[{"role":"user","content":"hi"}]}`), &req))
	assert.Equal(t, []string{"sys"}, req.System)
	assert.Equal(t, []Entry{{Role: "user", Text: "hi"}}, req.Entries)
}
