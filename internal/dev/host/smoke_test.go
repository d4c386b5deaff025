package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// newRepo makes a git repository under a path with a space and non-ASCII
// letters, holding the bundled example plan as docs/plan.md on a
// feature branch; it returns the root and the plan's text.
func newRepo(t *testing.T) (string, string) {
	t.Helper()
	root := filepath.Join(testutil.RealTempDir(t), "my repo é", "shop")
	plan, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "examples", "plan.md"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "plan.md"), plan, 0o644))
	env := gitenv.Hermetic(filepath.Join(root, "..", "git-home"))
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"commit", "-q", "-m", "plan: greeting service"},
		{"checkout", "-q", "-b", "feature/greet"},
	} {
		r := testutil.RunIn(root, env, "git", args...)
		require.Equal(t, 0, r.Code, "git %v: %s", args, r.Stderr)
	}
	return root, string(plan)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := testutil.RunIn(dir, gitenv.Hermetic(t.TempDir()), "git", args...)
	require.Equal(t, 0, r.Code, "git %v: %s", args, r.Stderr)
	return strings.TrimSpace(r.Stdout)
}

// wrotePath takes the file out of a "wrote <file>: …" line.
func wrotePath(a *Turns, out string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(out), "wrote ")
	i := strings.LastIndex(rest, ": ")
	if !ok || i < 0 {
		a.Failf("not a wrote line: %q", out)
	}
	return rest[:i]
}

const greetGo = `package greet

// Hello greets name, or the world when name is empty.
func Hello(name string) string {
	if name == "" {
		name = "world"
	}
	return "Hello, " + name + "!"
}
`

// TestSmoke runs the start of the SDD loop in the real CLI: the
// controller loads the skill through the Skill tool, runs the text's
// workspace, BASE and brief blocks, dispatches an implementer in the
// background (which reads the brief, writes a file, commits and returns
// DONE), waits for its notification and builds the review package as the
// text writes it.
func TestSmoke(t *testing.T) {
	repo, plan := newRepo(t)
	h := New(t, repo)
	base := git(t, repo, "rev-parse", "HEAD")
	const prompt = "Carry out the plan docs/plan.md with the sdd-go:subagent-driven-development skill."
	const commitMsg = "greet: Hello greets by name"

	implementer := func(brief, report string) Script {
		return func(a *Turns) {
			if b := a.Read(brief); !strings.Contains(b, "Task 1: Greeting function") {
				a.Failf("the brief does not hold Task 1: %q", b)
			}
			a.Write(filepath.Join(repo, "greet", "greet.go"), greetGo)
			a.Bash("git add greet/greet.go && git commit -q -m '" + commitMsg + "'")
			a.Write(report, "# Task 1 report\n\nStatus: DONE\nCreated greet/greet.go.\n")
			a.Say("DONE")
		}
	}
	controller := func(a *Turns) {
		sk := a.Skill(SkillName)
		a.Bash("command -v sdd-workspace task-brief review-package")
		v := Values{"plan file": "docs/plan.md", "N": "1"}
		v["workspace"] = strings.TrimSpace(a.Step(sk, StepWorkspace, v))
		v["base sha"] = strings.TrimSpace(a.Step(sk, StepBase, v))
		brief := wrotePath(a, a.Step(sk, StepBrief, v))
		report := v["workspace"] + "/task-1-report.md"
		implementerPrompt := "You implement Task 1 of a plan. Your requirements are in " + brief +
			"; read it first. Commit your work, write your report to " + report +
			" and answer with your status alone: DONE, DONE_WITH_CONCERNS, NEEDS_CONTEXT or BLOCKED."
		ag := a.Agent(Dispatch{Description: "Implement Task 1", Prompt: implementerPrompt, SubagentType: "general-purpose", Model: "sonnet"}, implementer(brief, report))
		if n := a.Wait(ag); n.Status != "completed" || strings.TrimSpace(n.Result) != "DONE" {
			a.Failf("the implementer ended %s with %q", n.Status, n.Result)
		}
		v["head sha"] = strings.TrimSpace(a.Step(sk, StepHead, v))
		a.Step(sk, StepPackage, v)
		a.Say("Task 1 is implemented and its review package is built.")
	}
	s := h.Run(prompt, controller)
	t.Logf("session: %v, %d requests, %d tool calls", s.Elapsed, len(h.Server.Requests()), len(s.Uses))

	// The commands came from the plugin's bin/, and each step ran the
	// text's block as written.
	cmds := s.Commands()
	require.Len(t, cmds, 6, "the controller's Bash commands: %q", cmds)
	probe, ok := s.ResultOf(bashUse(t, s, 0).ID)
	require.True(t, ok)
	var want []string
	for _, c := range ship.Commands {
		want = append(want, filepath.Join(h.Plugin, "bin", c))
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.TrimSpace(probe.Text), "command -v: the plugin's bin/")
	ws := filepath.Join(repo, ".superpowers", "sdd", "plan")
	head := git(t, repo, "rev-parse", "HEAD")
	assert.Equal(t, []string{
		"sdd-workspace 'docs/plan.md'",
		"git rev-parse HEAD",
		"task-brief 'docs/plan.md' 1",
		"git rev-parse HEAD",
		"review-package 'docs/plan.md' '" + base + "' '" + head + "'",
	}, cmds[1:])

	// What the commands and the implementer made.
	brief, err := os.ReadFile(filepath.Join(ws, "task-1-brief.md"))
	require.NoError(t, err)
	task1 := plan[strings.Index(plan, "## Task 1:"):strings.Index(plan, "## Task 2:")]
	assert.Equal(t, task1, string(brief))
	assert.FileExists(t, filepath.Join(ws, "task-1-report.md"))
	assert.Equal(t, commitMsg, git(t, repo, "log", "-1", "--format=%s"))
	assert.Equal(t, base, git(t, repo, "rev-parse", "HEAD~1"), "one commit on top of BASE")
	assert.Equal(t, strings.TrimSuffix(greetGo, "\n"), git(t, repo, "show", "HEAD:greet/greet.go"))
	pkg := filepath.Join(ws, "review-"+git(t, repo, "rev-parse", "--short", base)+".."+git(t, repo, "rev-parse", "--short", head)+".diff")
	b, err := os.ReadFile(pkg)
	require.NoError(t, err, "the review package")
	assert.Contains(t, string(b), "+func Hello(name string) string {")
	assert.Contains(t, string(b), commitMsg)

	// What the host showed the model.
	agents := usesOf(s, "Agent")
	require.Len(t, agents, 1)
	var dispatch Dispatch
	require.NoError(t, json.Unmarshal(agents[0].Input, &dispatch))
	implementerPrompt := dispatch.Prompt
	var listed, sonnet bool
	for _, r := range h.Server.Requests() {
		if r.Prompt == prompt && !r.IsSubagent() && r.HasText("- "+SkillName+": ") {
			listed = true
		}
		if r.Prompt == implementerPrompt && r.IsSubagent() && strings.Contains(r.Model, "sonnet") {
			sonnet = true
		}
	}
	assert.True(t, listed, "the main session's requests list the skill %s", SkillName)
	assert.True(t, sonnet, "the implementer ran on the model its dispatch named")
	for _, r := range h.Server.Unknown() {
		t.Logf("a request no script answered: %s model=%s prompt=%q", r.Path, r.Model, clip(r.Prompt, 80))
	}
}

// usesOf are the main session's calls of tool.
func usesOf(s *Session, tool string) []ToolUse {
	var out []ToolUse
	for _, u := range s.Uses {
		if u.Agent == "" && u.Name == tool {
			out = append(out, u)
		}
	}
	return out
}

// bashUse is the main session's i-th Bash call.
func bashUse(t *testing.T, s *Session, i int) ToolUse {
	t.Helper()
	for _, u := range s.Uses {
		if u.Agent == "" && u.Name == "Bash" {
			if i == 0 {
				return u
			}
			i--
		}
	}
	t.Fatalf("no Bash call %d", i)
	return ToolUse{}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// TestNewSessionResumes runs two `claude -p` sessions on one host, as a
// resume does: the first creates the workspace and the ledger with the
// text's blocks, the second, a new session in the same HOME and
// repository, finds that ledger with the text's ledger check.
func TestNewSessionResumes(t *testing.T) {
	repo, _ := newRepo(t)
	h := New(t, repo)
	const identity = "# SDD ledger — plan: docs/plan.md"
	start := func(a *Turns) (SkillText, Values) {
		sk := a.Skill(SkillName)
		v := Values{"plan file": "docs/plan.md"}
		v["workspace"] = strings.TrimSpace(a.Step(sk, StepWorkspace, v))
		return sk, v
	}
	first := h.Run("Start the plan docs/plan.md with the sdd-go skill.", func(a *Turns) {
		sk, v := start(a)
		if got := a.Step(sk, StepLedgerCheck, v); strings.TrimSpace(got) != "no ledger" {
			a.Failf("a new workspace has a ledger: %q", got)
		}
		a.Step(sk, StepLedgerCreate, v)
		a.Say("Ledger created; stopping here.")
	})
	second := h.Run("Resume the plan docs/plan.md with the sdd-go skill.", func(a *Turns) {
		sk, v := start(a)
		if got := a.Step(sk, StepLedgerCheck, v); strings.TrimSpace(got) != identity {
			a.Failf("the ledger check printed %q", got)
		}
		a.Say("Resumed.")
	})
	ws := filepath.Join(repo, ".superpowers", "sdd", "plan")
	assert.Equal(t, identity+"\n", readFile(t, filepath.Join(ws, "progress.md")))
	require.NotNil(t, first.Final)
	require.NotNil(t, second.Final)
	assert.Equal(t, "Resumed.", second.Final.Result)
	assert.Equal(t, first.Commands()[0], second.Commands()[0], "the same workspace block")
}
