package scripted

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What only Chat Completions carries (opencode 1.18.33, Copilot CLI
// 1.0.102): system and developer messages are the system prompt, and a
// message's content may be a list of parts, of which the texts are kept,
// or null.
func TestChatDecode(t *testing.T) {
	var req Request
	require.NoError(t, Chat{}.Decode([]byte(`{"messages":[{"role":"system","content":"You are opencode."},
		{"role":"developer","content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]},
		{"role":"user","content":"go"},{"role":"assistant","content":null}]}`), &req))
	assert.Equal(t, []string{"You are opencode.", "a\nb"}, req.System)
	assert.Equal(t, []Entry{{Role: "user", Text: "go"}, {Turn: &Turn{}}}, req.Entries)

	var c chatContent
	require.Error(t, json.Unmarshal([]byte(`42`), &c))
}
