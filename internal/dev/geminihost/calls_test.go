package geminihost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

func output(s string) scripted.Result { return scripted.Result{Text: s} }

func TestParseShell(t *testing.T) {
	for _, c := range []struct {
		text string
		want Shell
	}{
		{"<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 7\n</untrusted_context>", Shell{Output: "a\nb"}},
		{"<untrusted_context>\nOutput: err\nExit Code: 3\nProcess Group PGID: 7\n</untrusted_context>", Shell{Output: "err", ExitCode: 3}},
		{"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>", Shell{ExitCode: 1}},
		// An output's own line that looks like a trailer, before the trailers.
		{"<untrusted_context>\nOutput: Exit Code: 9\nProcess Group PGID: 7\n</untrusted_context>", Shell{Output: "Exit Code: 9"}},
		{"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /h/.gemini/tmp/repo/tool-outputs/session-1/x.txt\n<untrusted_context>\nOutput: 1\n…\n9\nProcess Group PGID: 7\n</untrusted_context>",
			Shell{Output: "1\n…\n9", Saved: "/h/.gemini/tmp/repo/tool-outputs/session-1/x.txt"}},
	} {
		assert.Equal(t, c.want, ParseShell(output(c.text)), c.text)
	}
	denied := scripted.Result{Text: "Tool execution denied by policy.", IsError: true}
	assert.Equal(t, Shell{Error: "Tool execution denied by policy."}, ParseShell(denied))
}

func TestParseSkill(t *testing.T) {
	text := "<activated_skill name=\"x\">\n  <instructions>\n    # X\n\nRun bin/hello.\n  </instructions>\n\n  <available_resources>\n    Showing up to 200 items (files + folders).\n\n/h/.agents/skills/x/\n├───SKILL.md\n└───bin/\n    └───hello\n  </available_resources>\n</activated_skill>"
	s := ParseSkill(output(text))
	assert.Equal(t, "x", s.Name)
	assert.Equal(t, "# X\n\nRun bin/hello.", s.Instructions)
	assert.Equal(t, "/h/.agents/skills/x", s.Dir)
	assert.Contains(t, s.Resources, "└───hello")
}

func TestParseRead(t *testing.T) {
	whole := ParseRead(output("a\nb\n"))
	assert.Equal(t, Read{Content: "a\nb\n"}, whole)

	part := ParseRead(output("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of 2501 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 2001.\n\n--- FILE CONTENT (truncated) ---\nline 1\nline 2"))
	assert.Equal(t, Read{Content: "line 1\nline 2", From: 1, To: 2000, Total: 2501, Next: 2001}, part)

	last := ParseRead(output("\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 2001-2501 of 2501 total lines.\nAction: …\n\n--- FILE CONTENT (truncated) ---\nline 2001\n"))
	assert.Equal(t, 0, last.Next, "the end is reached")

	denied := ParseRead(scripted.Result{Text: "Path not in workspace: …", IsError: true})
	assert.Equal(t, "Path not in workspace: …", denied.Error)
}

func TestParseSubagent(t *testing.T) {
	s := ParseSubagent(output("Subagent 'impl' finished.\nTermination Reason: GOAL\nResult:\nimpl done\nsecond line"))
	assert.Equal(t, Subagent{Name: "impl", Reason: "GOAL", Result: "impl done\nsecond line"}, s)
	f := ParseSubagent(output("Subagent 'impl' failed. Error: boom"))
	assert.Equal(t, Subagent{Name: "impl", Error: "boom"}, f)
}

// A session's environment: the scripted model is the API's base URL,
// the folder trusted, no settings of the machine's read, a git identity
// for the commands (which see no ~/.gitconfig).
func TestEnv(t *testing.T) {
	h := &Host{Machine: &harness.Machine{Home: "/h", Tmp: "/t", Path: []string{"/usr/bin"}, Server: &scripted.Server{URL: "http://127.0.0.1:4242"}}}
	env := h.Env()
	for _, want := range []string{
		"HOME=/h", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4242", "GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_SYSTEM_SETTINGS_PATH=/h/.gemini-system/settings.json",
		"GIT_AUTHOR_NAME=SDD Host Test",
	} {
		assert.Contains(t, env, want)
	}
}

// settings.json signs in with the key, keeps the CLI off the network, and
// lets read_file read what git ignores (the packages).
func TestWriteSettings(t *testing.T) {
	h := &Host{Machine: &harness.Machine{Home: t.TempDir()}}
	require.NoError(t, h.WriteSettings(Settings()))
	b, err := os.ReadFile(filepath.Join(h.Home, ".gemini", "settings.json"))
	require.NoError(t, err)
	var s struct {
		Context struct {
			FileFiltering struct{ RespectGitIgnore *bool }
		}
		Security struct{ Auth struct{ SelectedType string } }
		Privacy  struct{ UsageStatisticsEnabled *bool }
		General  struct{ EnableAutoUpdate, EnableAutoUpdateNotification *bool }
	}
	require.NoError(t, json.Unmarshal(b, &s))
	assert.Equal(t, "gemini-api-key", s.Security.Auth.SelectedType)
	for _, off := range []*bool{s.Context.FileFiltering.RespectGitIgnore, s.Privacy.UsageStatisticsEnabled, s.General.EnableAutoUpdate, s.General.EnableAutoUpdateNotification} {
		require.NotNil(t, off)
		assert.False(t, *off)
	}
}

func TestReadEvents(t *testing.T) {
	out := `{"type":"init","session_id":"s1","model":"auto"}
{"type":"message","role":"user","content":"hi"}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}
{"type":"tool_result","tool_id":"t1","status":"error","output":"Tool execution denied by policy.","error":{"type":"policy_violation","message":"Tool execution denied by policy."}}
{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}
{"type":"result","status":"success","stats":{}}
`
	events, err := ReadEvents(strings.NewReader(out))
	require.NoError(t, err)
	require.Len(t, events, 6)
	assert.Equal(t, "s1", events[0].SessionID)
	assert.Equal(t, map[string]any{"command": "ls"}, events[2].Parameters)
	assert.Equal(t, "policy_violation", events[3].Error.Type)
	problems := Problems(events)
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0], "a tool failed")
	assert.Contains(t, problems[1], "Loop detected")

	cut, err := ReadEvents(strings.NewReader(`{"type":"init"}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"the session printed no result"}, Problems(cut))

	_, err = ReadEvents(strings.NewReader("Warning: not JSON\n"))
	assert.ErrorContains(t, err, "not an event")
}

func TestArgs(t *testing.T) {
	assert.Equal(t, []string{"--approval-mode", "yolo", "-o", "stream-json", "-p", "-x"}, Args("-x", "--approval-mode", "yolo"))
}
