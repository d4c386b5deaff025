package droidhost

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

func TestParseShell(t *testing.T) {
	for text, want := range map[string]Shell{
		"hello\n\n\n[Process exited with code 0]":                                      {Output: "hello\n"},
		"Command completed successfully\n\n[Process exited with code 0]":               {},
		"Error: Command failed (exit code: 3)\noops\n\n\n[Process exited with code 3]": {Output: "oops\n", Code: 3},
		`Error: Execute call rejected: missing required parameter "riskLevelReason".`:  {Error: `Error: Execute call rejected: missing required parameter "riskLevelReason".`},
	} {
		assert.Equal(t, want, ParseShell(text), text)
	}
}

func TestParseRead(t *testing.T) {
	assert.Equal(t, Read{Content: "a\nb\n"}, ParseRead("a\nb\n"))
	assert.Equal(t, Read{Content: "b\nc", From: 2, To: 3, Total: 4},
		ParseRead("b\nc\n\n<system-reminder>[Showing lines 2-3 of 4 total lines]</system-reminder>"))
	assert.Equal(t, Read{Content: "1\n14", From: 1, To: 1455, Total: 5001, Cut: true},
		ParseRead("1\n14\n\n<system-reminder>[Showing lines 1-1455 of 5001 total lines, truncated to 60k characters]</system-reminder>"))
	assert.NotEmpty(t, ParseRead("Error: Error reading file: ENOENT: no such file or directory, access '/x'").Error)
}

func TestParseSkill(t *testing.T) {
	s := ParseSkill("Skill \"x\" is now active.\n\n<skill name=\"x\" filePath=\"/h/my é/.factory/skills/x/SKILL.md\">\n# X\n\nRun it.\n</skill>")
	assert.Equal(t, Skill{Name: "x", Path: "/h/my é/.factory/skills/x/SKILL.md", Body: "# X\n\nRun it."}, s)
}

func TestParseTask(t *testing.T) {
	tk := ParseTask("session_id: 52b8ce0e-91fc\nUse this report as the source of record. Continue from it without repeating its searches.\nStatus: DONE\nCommits: a1")
	assert.Equal(t, Task{ID: "52b8ce0e-91fc", Report: "Status: DONE\nCommits: a1"}, tk)
	assert.NotEmpty(t, ParseTask("Error: Error running task subagent: Session not found").Error)
}

// Droid wraps a subagent's prompt, and a message sent to one that
// answered; its system reminders name no conversation.
func TestPromptOf(t *testing.T) {
	assert.Equal(t, "", promptOf("<system-reminder>\nAvailable skills …</system-reminder>"))
	assert.Equal(t, "Say hi.\nline two", promptOf("# Task Tool Invocation\n\nSubagent type: worker\nTask complexity: medium\n\n## Task\n---BEGIN TASK FROM PARENT AGENT---\nSay hi.\nline two\n---END TASK FROM PARENT AGENT---"))
	assert.Equal(t, "Fix it.\n\nNow.", promptOf("# Follow-up Instructions\n\nFix it.\n\nNow.\n\n## Reporting\n- Return the requested result."))
	assert.Equal(t, "Carry out the plan.", promptOf("Carry out the plan."))
}

// The adapter's read, against the scripted model playing Droid's Read: a
// part cut at 60,000 characters is read on from the line it cut, and the
// lines are shown numbered; a git add and commit in one command is two
// Executes.
func TestAdapter(t *testing.T) {
	player := scripted.PlayerOf(scripted.Chat{})
	srv, ask := player.Fake(t, promptOf, true)
	srv.Handle("go", func(a *scripted.Turns) {
		r := adapter{}.Read(a, "/f", 1, 2000)
		b := adapter{}.Bash(a, "git add -- 'a b' && git commit -m 'x'")
		a.Record("r", r.Text+"|"+b.Text)
		a.Say("done")
	})
	calls, said := scripted.Answer(t, ask, []scripted.Entry{scripted.Sent("user", "go")},
		"l1\nl2\nl3 cu\n\n<system-reminder>[Showing lines 1-3 of 10 total lines, truncated to 60k characters]</system-reminder>",
		"l3 cut\nl4\n\n<system-reminder>[Showing lines 3-4 of 4 total lines]</system-reminder>",
		"Command completed successfully\n\n[Process exited with code 0]",
		"[run 1a2b3c4] x\n\n\n[Process exited with code 0]",
	)
	assert.Equal(t, "done", said, srv.Failures())
	require.Len(t, calls, 4)
	assert.Contains(t, string(calls[1].Input), `"offset":3`)
	assert.Contains(t, string(calls[2].Input), `"command":"git add -- 'a b'"`)
	assert.Contains(t, string(calls[3].Input), `"command":"git commit -m 'x'"`)
	got := strings.Split(srv.Records()["r"], "|")
	assert.Equal(t, "1\tl1\n2\tl2\n3\tl3 cut\n4\tl4", got[0])
	assert.Equal(t, "[run 1a2b3c4] x\n", got[1])
}
