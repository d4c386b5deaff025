package pihost

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

func TestParseShell(t *testing.T) {
	for text, want := range map[string]Shell{
		"hi\n":                                 {Output: "hi\n"},
		"(no output)":                          {},
		"oops\n\n\nCommand exited with code 3": {Output: "oops\n", Code: 3},
		"(no output)\n\nCommand exited with code 1": {Code: 1},
		// An output's own line that reads like the status, not at its end.
		"Command exited with code 9\nmore\n": {Output: "Command exited with code 9\nmore\n"},
	} {
		assert.Equal(t, want, ParseShell(text), text)
	}
}

func TestParseRead(t *testing.T) {
	assert.Equal(t, Read{Content: "a\nb\n"}, ParseRead("a\nb\n"))
	assert.Equal(t, Read{Content: "a\nb", Next: 3}, ParseRead("a\nb\n\n[2 more lines in file. Use offset=3 to continue.]"))
	assert.Equal(t, Read{Content: "x", Next: 1246, Short: true},
		ParseRead("x\n\n[Showing lines 1-1245 of 5001 (50.0KB limit). Use offset=1246 to continue.]"))
	assert.Equal(t, Read{Content: "y", Next: 2001, Short: true},
		ParseRead("y\n\n[Showing lines 1-2000 of 5001. Use offset=2001 to continue.]"))
	enoent := "ENOENT: no such file or directory, access '/x'"
	assert.Equal(t, Read{Error: enoent}, ParseRead(enoent))
	assert.NotEmpty(t, ParseRead("Offset 9 is beyond end of file (3 lines total)").Error)
}

func TestParseSkills(t *testing.T) {
	system := "You are…\n<available_skills>\n  <skill>\n    <name>sdd</name>\n    <description>Use &amp; go</description>\n    <location>/h/my é/.pi/agent/skills/sdd/SKILL.md</location>\n  </skill>\n</available_skills>\nCurrent date: …"
	assert.Equal(t, []Skill{{Name: "sdd", Description: "Use & go", Path: "/h/my é/.pi/agent/skills/sdd/SKILL.md"}}, ParseSkills(system))
	assert.Nil(t, ParseSkills("no skills"))
}

func TestFailed(t *testing.T) {
	call := func(name, out string) scripted.CallResult {
		return scripted.CallResult{Call: scripted.Call{Name: name}, Output: out, Done: true}
	}
	for _, c := range []struct {
		call scripted.CallResult
		bad  bool
	}{
		{call("bash", "ok\n"), false},
		{call("bash", "no\n\n\nCommand exited with code 2"), true},
		{call("read", "text"), false},
		{call("read", "ENOENT: no such file or directory, access '/x'"), true},
		{call("write", "Successfully wrote 3 bytes to /x"), false},
		{call("write", "EACCES: permission denied"), true},
		{call("subagent", "Status: DONE"), false},
		{call("subagent", `Agent failed: Unknown agent: "w". Available agents: "sdd-worker".`), true},
		{call("edit", "Tool edit not found"), true},
		{call("bash", "Validation failed for tool \"bash\":\n  - command: required"), true},
	} {
		assert.Equal(t, c.bad, Failed(c.call) != "", "%s %q", c.call.Name, c.call.Output)
	}
}

// The adapter's read, against the scripted model playing Pi's read tool:
// a part the tool cut at 50 KB names where it goes on; a whole read is
// read on to the end; the lines are shown numbered from the offset, a
// file's last newline an empty last line.
func TestAdapterRead(t *testing.T) {
	player := scripted.PlayerOf(scripted.Chat{})
	srv, ask := player.Fake(t, promptOf, true)
	srv.Handle("read", func(a *scripted.Turns) {
		r := adapter{}.Read(a, "/f", 10, 2000)
		r2 := adapter{}.Read(a, "/g", 0, 0)
		a.Record("r", r.Text+"|"+r2.Text)
		if r.Next != 1210 {
			a.Failf("next %d", r.Next)
		}
		a.Say("done")
	})
	calls, said := scripted.Answer(t, ask, []scripted.Entry{scripted.Sent("user", "read")},
		"l10\nl11\n\n[Showing lines 10-1209 of 5001 (50.0KB limit). Use offset=1210 to continue.]",
		"a\n\n[Showing lines 1-2000 of 2002. Use offset=2001 to continue.]",
		"b\n",
	)
	assert.Equal(t, "done", said, srv.Failures())
	assert.Len(t, calls, 3)
	got := strings.Split(srv.Records()["r"], "|")
	assert.Equal(t, "10\tl10\n11\tl11", got[0])
	assert.Equal(t, "1\ta\n2\tb\n3\t", got[1])
}
