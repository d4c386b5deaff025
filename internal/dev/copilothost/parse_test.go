package copilothost

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// What Copilot CLI 1.0.102 writes that the adapter reads: no CLI needed.

func TestParseShell(t *testing.T) {
	sh := parseShell("hi\nerr\n<shellId: 0 completed with exit code 3>")
	assert.Equal(t, Shell{Output: "hi\nerr\n", Code: 3, Exited: true, Text: sh.Text}, sh)
	sh = parseShell("<shellId: 4 completed with exit code 0>")
	assert.Equal(t, "", sh.Output)
	assert.True(t, sh.Exited)
	assert.False(t, parseShell("Permission denied because no interactive user response was available.").Exited)
}

func TestPromptOf(t *testing.T) {
	assert.Equal(t, "Carry out the plan.", promptOf("<current_datetime>2026-12-05T01:33:15.385+00:00</current_datetime>\n\nCarry out the plan."))
	assert.Equal(t, "no time", promptOf("no time"))
}

// A view cut at about 20 KB names the line after the cut one.
func TestTruncated(t *testing.T) {
	out := "line 447\nline 448 of a big file, lo\n\n[Output truncated. Use view_range=[449, ...] to continue reading. In your next response, you may batch this with other view calls. File has at least 2813 lines.]"
	m := truncatedRe.FindStringSubmatch(out)
	assert.Equal(t, "449", m[1])
	assert.False(t, truncatedRe.MatchString("line 1\nline 2\n"))
	assert.True(t, tooLargeRe.MatchString("File too large to read at once (228.4 KB). Consider using the grep tool."))
}

func TestSkillContext(t *testing.T) {
	note := "<skill-context name=\"x\">\nBase directory for this skill: /h/.copilot/skills/x\n\n# X\n\nRun helper.sh.\n\n</skill-context>"
	m := skillContextRe.FindStringSubmatch(note)
	assert.Equal(t, "Base directory for this skill: /h/.copilot/skills/x\n\n# X\n\nRun helper.sh.\n", m[1])
}

func TestAgentName(t *testing.T) {
	assert.Equal(t, "implement-task-1", agentName("Implement  Task 1"))
}

// A background task's result gives the agent id; read_agent gives the
// agent's turns, the answer the last one's (after [Response] in a turn
// that began with a message).
func TestAgentTurns(t *testing.T) {
	assert.Equal(t, "97fa9e45-6724-41f0-96e5-18eebde76a0a", AgentID("Agent started in background with agent_id: 97fa9e45-6724-41f0-96e5-18eebde76a0a. You'll be notified when it completes."))
	assert.Empty(t, AgentID("REPORT 1"))
	head := "Agent is idle (waiting for messages). agent_id: 97fa9e45-6724-41f0-96e5-18eebde76a0a, agent_type: general-purpose, status: idle, description: impl2, elapsed: 1s, total_turns: 2\n\n"
	first := parseAgent(head + "[Turn 0]\nStatus: DONE\nCommits: none\n")
	assert.Equal(t, "idle", first.Status)
	assert.Equal(t, "Status: DONE\nCommits: none", first.Answer)
	again := parseAgent(head + "[Turn 0]\nREPORT 1\n\n[Turn 1]\n[Message]\nFix round 1 of Task 2.\nFix: F1 x\n\n[Response]\nStatus: DONE\nTests: ok")
	assert.Equal(t, "Status: DONE\nTests: ok", again.Answer)
	assert.Equal(t, "running", parseAgent("Agent is running. agent_id: x, agent_type: general-purpose, status: running, elapsed: 3s").Status)
}
