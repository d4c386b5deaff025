package geminihost

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The round trips the skill needs, each in a real session of the pinned
// CLI against the scripted model, on a host of their own (roundTrip);
// the package's doc says what they found.

// A headless session in the default approval mode is offered no tool
// that writes or runs anything: the CLI's default policy denies
// run_shell_command, write_file, replace and activate_skill when no one
// can be asked, and a tool denied outright is left out of the request. A
// skill's allowed-tools does not change that (the CLI reads a skill's
// name and description, nothing else of its front matter).
func TestDefaultModeOffersNoShellAndNoSkill(t *testing.T) {
	h := newRoundTrip(t)
	h.write(".agents/skills/x/SKILL.md", "---\nname: x\ndescription: the x skill\nallowed-tools: run_shell_command activate_skill\n---\n# X\n")
	h.ok("What can you do?", func(m *Turns) { m.Say("Nothing much.") })
	tools := h.last("What can you do?").ToolNames()
	for _, name := range []string{"run_shell_command", "write_file", "replace", "activate_skill"} {
		assert.NotContains(t, tools, name)
	}
	for _, name := range []string{"read_file", "invoke_agent"} {
		assert.Contains(t, tools, name)
	}
	assert.Contains(t, h.last("What can you do?").System[0], "<name>x</name>", "the skill is listed all the same")
}

// The narrowest rule for our four commands: a user policy allowing
// run_shell_command for the commands' quoted paths (commandPrefix). The
// tool is offered; a command of the four runs, alone or in a && chain of
// them, and its exit status comes back; anything else (another command,
// one chained after ours, the unquoted path) is denied, an output
// redirected into a file is refused as needing a confirmation no one can
// give, and the session goes on.
func TestShellUnderTheCommandsPolicy(t *testing.T) {
	h := newRoundTrip(t)
	dir := h.installStub()
	h.Policy(commandRule(dir))
	const prompt = "Run the ledger."
	s := h.run(prompt, func(m *Turns) {
		look := m.Shell(cmd(dir, "sdd-ledger", "look", "plan.md"))
		if look.Output != "sdd-ledger look plan.md" || look.ExitCode != 0 {
			m.Failf("look: %+v", look)
		}
		chain := m.Shell(cmd(dir, "sdd-workspace", "plan.md") + " && " + cmd(dir, "task-brief", "plan.md", "1"))
		if chain.Output != "sdd-workspace plan.md\ntask-brief plan.md 1" {
			m.Failf("chain: %+v", chain)
		}
		if fail := m.Shell(cmd(dir, "review-package", "fail")); fail.ExitCode != 4 {
			m.Failf("fail: %+v", fail)
		}
		for _, c := range []string{
			"git status",
			cmd(dir, "sdd-ledger", "look", "plan.md") + " && rm -f README.md",
			filepath.Join(dir, "bin", "sdd-ledger") + " look plan.md", // unquoted
		} {
			if r := m.Shell(c); r.Error != denied {
				m.Failf("%s: %+v", c, r)
			}
		}
		if r := m.Shell(cmd(dir, "sdd-ledger", "look", "plan.md") + " > out.txt"); r.Error != needsConfirmation {
			m.Failf("redirected: %+v", r)
		}
		m.Say("Done.")
	})
	tools := h.last(prompt).ToolNames()
	assert.Contains(t, tools, "run_shell_command")
	assert.NotContains(t, tools, "write_file")
	assert.NotContains(t, tools, "activate_skill")
	var results []string
	for _, e := range s.Events {
		if e.Type == "tool_result" {
			results = append(results, e.Status)
		}
	}
	assert.Equal(t, []string{"success", "success", "success", "error", "error", "error", "error"}, results)
	assert.FileExists(t, filepath.Join(h.repo.Root, "README.md"))
	assert.NoFileExists(t, filepath.Join(h.repo.Root, "out.txt"))

	side := h.side()
	require.Len(t, side, 1, "one side request: the routing classifier, before the first turn")
	assert.True(t, strings.HasSuffix(side[0].Path, ":generateContent"), side[0].Path)
	assert.Empty(t, side[0].Tools)
	assert.NotContains(t, s.Stderr, "[Routing]", "the classifier read its answer")
}

// The older allow-lists do the same, deprecated: --allowed-tools
// "run_shell_command(PREFIX)" and tools.allowed in settings.json, each
// warned about on stderr.
func TestShellUnderTheAllowList(t *testing.T) {
	h := newRoundTrip(t)
	script := func(m *Turns) {
		if r := m.Shell("echo allowed"); r.Output != "allowed" {
			m.Failf("echo: %+v", r)
		}
		if r := m.Shell("ls"); r.Error != denied {
			m.Failf("ls: %+v", r)
		}
		m.Say("Done.")
	}
	s := h.run("By flag.", script, "--allowed-tools", "run_shell_command(echo)")
	assert.Contains(t, s.Stderr, "--allowed-tools cli argument and tools.allowed in settings.json are deprecated")
	h.settings["tools"] = map[string]any{"allowed": []string{"run_shell_command(echo)"}}
	s = h.run("By settings.", script)
	assert.Contains(t, s.Stderr, "are deprecated")
}

// What a command gets back: stdout and stderr together, its exit status,
// and past 40,000 characters (of the answer, wrapper included) the first
// 8,000 and the last 32,000, the middle left out with a line saying how
// much, and the whole answer saved in a file the answer names. Every command runs with git's
// global and system configuration cut off (GIT_CONFIG_GLOBAL=/dev/null):
// a user.name in ~/.gitconfig is not seen. (The session runs in the yolo
// approval mode: the commands are no skill's.)
func TestShellOutput(t *testing.T) {
	h := newRoundTrip(t)
	h.write(".gitconfig", "[user]\n\tname = Home User\n\temail = home@example.com\n")
	big := strings.Repeat("0123456789", 10_000) // 100,000 characters
	h.ok("Show me outputs.", func(m *Turns) {
		if r := m.Shell(`sh -c 'echo out; echo err >&2; exit 3'`); r.Output != "out\nerr" || r.ExitCode != 3 {
			m.Failf("exit 3: %+v", r)
		}
		if r := m.Shell(`sh -c 'true'`); r.Output != "" || r.ExitCode != 0 {
			m.Failf("true: %+v", r)
		}
		m.Shell(fmt.Sprintf(`sh -c 'printf "%%s" %s'`, big)) // read below
		if r := m.Shell(`sh -c 'git config user.name; echo "status $?"; echo "$GIT_CONFIG_GLOBAL"'`); r.Output != "status 1\n/dev/null" {
			m.Failf("git config: %+v", r)
		}
		m.Say("Done.")
	}, "--approval-mode", "yolo")
	var cut Shell
	var answer string
	for _, c := range h.last("Show me outputs.").Calls() {
		if s := ParseShell(scripted.Result{Text: c.Output, IsError: c.IsError}); s.Saved != "" {
			cut, answer = s, c.Output
		}
	}
	require.NotEmpty(t, cut.Saved, "the big output was cut")
	whole, err := os.ReadFile(cut.Saved)
	require.NoError(t, err)
	assert.True(t, ParseShell(scripted.Result{Text: string(whole)}).Output == big, "the file holds the whole answer, wrapper included")
	omitted := fmt.Sprintf("\n\n... [%d,%03d characters omitted] ...\n\n", (len(whole)-40_000)/1000, (len(whole)-40_000)%1000)
	head, tail, ok := strings.Cut(cut.Output, omitted)
	require.True(t, ok, "no %q in the answer", omitted)
	assert.Equal(t, big[:8000-len("<untrusted_context>\nOutput: ")], head, "the first 8,000 characters")
	assert.True(t, strings.HasSuffix(big, tail) && len(tail) > 31_900, "the last 32,000: %d", len(tail))
	assert.True(t, strings.HasPrefix(answer, "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: "))
}

// A skill in ~/.agents/skills/ or ~/.gemini/skills/ is listed in the
// system prompt with the path of its SKILL.md; activate_skill, once a
// user policy allows it for that skill alone, hands over its body and its
// folder's tree, and adds the folder to the workspace: a file there can
// be read, and its commands run by their quoted paths under the commands'
// policy. Another skill stays denied.
func TestSkill(t *testing.T) {
	h := newRoundTrip(t)
	dir := h.installStub()
	h.write(filepath.Join(".agents", "skills", stubSkill, "host-gemini.md"), "# On Gemini CLI\n")
	h.write(".gemini/skills/other/SKILL.md", "---\nname: other\ndescription: another skill\n---\n# Other\n")
	h.Policy(commandRule(dir) + "\n" + skillRule(stubSkill))
	const prompt = "Use the skill."
	run := h.run(prompt, func(m *Turns) {
		s := m.ActivateSkill(stubSkill)
		if s.Name != stubSkill || s.Dir != dir || s.Instructions != "# SDD\n\nRun the commands in bin/." {
			m.Failf("activated: %+v", s)
		}
		if r := m.ReadFile(filepath.Join(s.Dir, "host-gemini.md"), 0, 0); r.Content != "# On Gemini CLI\n" {
			m.Failf("host file: %+v", r)
		}
		if r := m.Shell(cmd(s.Dir, "sdd-ledger", "look", "plan.md")); r.Output != "sdd-ledger look plan.md" {
			m.Failf("command: %+v", r)
		}
		if s := m.ActivateSkill("other"); s.Error != denied {
			m.Failf("other: %+v", s)
		}
		m.Say("Done.")
	})
	problems := Problems(run.Events)
	require.Len(t, problems, 1, "the other skill's activation alone")
	assert.Contains(t, problems[0], `"tool_id":"activate_skill__`)
	sys := h.last(prompt).System[0]
	assert.Contains(t, sys, "<name>"+stubSkill+"</name>")
	assert.Contains(t, sys, "<location>"+filepath.Join(dir, "SKILL.md")+"</location>")
	assert.Contains(t, sys, "<location>"+filepath.Join(h.Home, ".gemini", "skills", "other", "SKILL.md")+"</location>")
	activate, ok := h.last(prompt).Tool("activate_skill")
	require.True(t, ok)
	assert.Contains(t, string(activate.Parameters), `"enum":["skill-creator","antigravity-support","other","`+stubSkill+`"]`,
		"the built-in skills first, then the user's")
}

// gemini skills list needs no model: it lists the user's skills with
// their paths. A name in both ~/.agents/skills/ and ~/.gemini/skills/ is
// listed (and offered) once, from ~/.agents/skills/, with a warning on
// stderr: one folder in ~/.agents/skills/ is all a skill needs here.
func TestSkillsList(t *testing.T) {
	h := newRoundTrip(t)
	h.write(".agents/skills/dup/SKILL.md", "---\nname: dup\ndescription: from agents\n---\nA\n")
	h.write(".gemini/skills/dup/SKILL.md", "---\nname: dup\ndescription: from gemini\n---\nG\n")
	h.write(".gemini/skills/only/SKILL.md", "---\nname: only\ndescription: only in gemini\n---\nO\n")
	require.NoError(t, h.WriteSettings(h.settings))
	var stdout, stderr strings.Builder
	c := exec.Command(h.Gemini, "skills", "list")
	c.Dir, c.Env, c.Stdout, c.Stderr = h.Repo, h.Env(), &stdout, &stderr
	require.NoError(t, c.Run(), stderr.String())
	assert.Equal(t, "Discovered Agent Skills:\n\n"+
		"dup [Enabled]\n  Description: from agents\n  Location:    "+filepath.Join(h.Home, ".agents/skills/dup/SKILL.md")+"\n\n"+
		"only [Enabled]\n  Description: only in gemini\n  Location:    "+filepath.Join(h.Home, ".gemini/skills/only/SKILL.md")+"\n\n",
		stdout.String())
	assert.Contains(t, stderr.String(), `Skill conflict detected: "dup" from "`+filepath.Join(h.Home, ".agents/skills/dup/SKILL.md")+`" is overriding the same skill from "`+filepath.Join(h.Home, ".gemini/skills/dup/SKILL.md")+`".`)
}

// A subagent is a call of the main agent: invoke_agent starts it with a
// prompt as its conversation's first message, it runs its own calls (our
// commands, under the same policy) and ends with complete_task, whose
// result comes back as the call's answer. Nothing names the finished
// subagent: invoke_agent takes an agent's name and a prompt, and a second
// call starts a new conversation that knows nothing of the first, so a
// fix round is a new subagent given everything it needs. Custom agents
// come from ~/.gemini/agents/*.md, their body the system prompt.
func TestSubagent(t *testing.T) {
	h := newRoundTrip(t)
	dir := h.installStub()
	h.Policy(commandRule(dir))
	h.write(".gemini/agents/sdd-implementer.md", "---\nname: sdd-implementer\ndescription: Implements one task of a plan.\n---\nYou implement one task.\n")
	const (
		prompt = "Run the plan."
		first  = "Implement task 1."
		fix    = "Fix task 1: the review found a missing test."
		custom = "Implement task 2."
	)
	h.ok(prompt, func(m *Turns) {
		sub := m.Invoke("generalist", first, func(m *Turns) {
			if r := m.Shell(cmd(dir, "sdd-ledger", "look", "plan.md")); r.Output != "sdd-ledger look plan.md" {
				m.Failf("look: %+v", r)
			}
			m.CompleteTask(map[string]any{"response": "DONE task 1"})
		})
		if sub != (Subagent{Name: "generalist", Reason: "GOAL", Result: "{\n  \"response\": \"DONE task 1\"\n}"}) {
			m.Failf("first: %+v", sub)
		}
		again := m.Invoke("generalist", fix, func(m *Turns) {
			m.CompleteTask(map[string]any{"response": "FIXED"})
		})
		if again.Reason != "GOAL" {
			m.Failf("fix: %+v", again)
		}
		own := m.Invoke("sdd-implementer", custom, func(m *Turns) {
			m.CompleteTask("DONE task 2")
		})
		if own != (Subagent{Name: "sdd-implementer", Reason: "GOAL", Result: "DONE task 2"}) {
			m.Failf("custom: %+v", own)
		}
		m.Say("Done.")
	})
	main := h.last(prompt)
	invoke, ok := main.Tool("invoke_agent")
	require.True(t, ok)
	var params struct{ Properties map[string]any }
	require.NoError(t, json.Unmarshal(invoke.Parameters, &params))
	assert.ElementsMatch(t, []string{"agent_name", "prompt", "wait_for_previous"}, slices.Collect(maps.Keys(params.Properties)),
		"no id of a subagent to write to")
	assert.Contains(t, main.System[0], "sdd-implementer")

	for _, p := range []string{first, fix, custom} {
		reqs := h.Server.Conversation(p)
		require.NotEmpty(t, reqs, p)
		assert.Equal(t, []scripted.Entry{{Role: "user", Text: p}}, reqs[0].Entries, "%s starts with its prompt alone", p)
		assert.Contains(t, reqs[0].ToolNames(), "complete_task")
		assert.Contains(t, reqs[0].ToolNames(), "run_shell_command", "the policy's tools are the subagent's")
		assert.NotContains(t, reqs[0].ToolNames(), "invoke_agent", "no subagent of a subagent")
	}
	assert.True(t, strings.HasPrefix(h.last(custom).System[0], "You implement one task."))
}

// read_file stops at 2,000 lines (and cuts a line at 2,000 characters),
// with a notice naming the start_line to go on from; under 2,000 lines a
// file comes whole, however large (no cut at 40,000 characters as for a
// command). It refuses a path outside the workspace, and a file git
// ignores (the skill's workspace, .superpowers/, is git-ignored) unless
// settings.json turns context.fileFiltering.respectGitIgnore off.
func TestReadFileInParts(t *testing.T) {
	h := newRoundTrip(t)
	var long, wide strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&long, "line %04d %s\n", i, strings.Repeat("a", 20))
	}
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&wide, "line %04d %s\n", i, strings.Repeat("b", 90))
	}
	longPath := h.repo.Write("long.txt", long.String())
	widePath := h.repo.Write("wide.txt", wide.String())
	h.repo.Write(".gitignore", "/.superpowers/\n")
	pkg := h.repo.Write(".superpowers/sdd/plan/review-1.md", "the package\n")
	outside := h.write("notes.txt", "outside\n")
	const prompt = "Read the files."
	run := h.run(prompt, func(m *Turns) {
		first := m.ReadFile(longPath, 0, 0)
		if first.From != 1 || first.To != 2000 || first.Total != 2501 || first.Next != 2001 {
			m.Failf("first part: %+v", first)
		}
		rest := m.ReadFile(longPath, first.Next, 0)
		if rest.From != 2001 || rest.Next != 0 || first.Content+"\n"+rest.Content != long.String() {
			m.Failf("second part: %d-%d next %d", rest.From, rest.To, rest.Next)
		}
		if r := m.ReadFile(widePath, 0, 0); r.Content != wide.String() || r.Next != 0 {
			m.Failf("wide: %d characters, next %d", len(r.Content), r.Next)
		}
		if r := m.ReadFile(pkg, 0, 0); !strings.HasSuffix(r.Error, "is ignored by configured ignore patterns.") {
			m.Failf("ignored: %+v", r)
		}
		if r := m.ReadFile(outside, 0, 0); !strings.HasPrefix(r.Error, "Path not in workspace") {
			m.Failf("outside: %+v", r)
		}
		m.Say("Done.")
	})
	assert.Len(t, Problems(run.Events), 2, "the two refused reads")
	assert.Less(t, 150_000, len(wide.String()))

	h.settings["context"] = map[string]any{"fileFiltering": map[string]any{"respectGitIgnore": false}}
	h.ok("Read the package.", func(m *Turns) {
		if r := m.ReadFile(pkg, 0, 0); r.Content != "the package\n" {
			m.Failf("package: %+v", r)
		}
		m.Say("Done.")
	})
}
