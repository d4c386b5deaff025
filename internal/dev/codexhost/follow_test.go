package codexhost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/codexcli"
	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The follower (internal/dev/follower) in the real Codex CLI: the skill
// installed in $CODEX_HOME/skills, the controller and its subagents
// scripted by the follower, their calls the CLI's own tools (follow.go).

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// followHost is a host with the skill installed, and the scenario's skill
// named as Codex lists it (its front matter's name: no plugin prefix).
func followHost(t *testing.T, repo string) (*Host, string) {
	h := New(t, repo)
	h.Timeout = 4 * time.Minute
	return h, InstallSkill(t, h.CodexHome)
}

func codexScenario(sc follower.Scenario) follower.Scenario {
	sc.Skill = ship.SkillName
	return sc
}

const runPrompt = "Carry out the plan " + follower.WalkPlanPath + " with the " + ship.SkillName + " skill."

// fcall is one function call of a conversation and what came back.
type fcall struct {
	Name   string // exec_command, write_stdin, spawn_agent, wait_agent, …
	Args   map[string]any
	Output string
}

func (c fcall) str(k string) string { s, _ := c.Args[k].(string); return s }

// callsOf are the function calls of the conversation whose first prompt
// is prompt, from its last request, in order.
func callsOf(srv *Server, prompt string) []fcall {
	reqs := conversation(srv, prompt)
	if len(reqs) == 0 {
		return nil
	}
	var out []fcall
	idx := map[string]int{}
	for _, it := range reqs[len(reqs)-1].Input {
		switch it.Type {
		case "function_call":
			c := fcall{Name: it.Name}
			json.Unmarshal([]byte(it.Arguments), &c.Args)
			idx[it.CallID] = len(out)
			out = append(out, c)
		case "function_call_output":
			if i, ok := idx[it.CallID]; ok {
				out[i].Output = it.OutputText()
			}
		}
	}
	return out
}

// toolProblems are the tool results of every conversation that were an
// error or a refusal: a command that exited with a code but 0, an answer
// with neither a code nor a session, an agent call the CLI did not carry
// out.
func toolProblems(srv *Server) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		if seen[r.Prompt] {
			continue
		}
		seen[r.Prompt] = true
		for _, c := range callsOf(srv, r.Prompt) {
			switch c.Name {
			case "exec_command", "write_stdin":
				_, code, exited, running := parseExec(c.Output)
				if exited && code != 0 || !exited && running == 0 {
					out = append(out, fmt.Sprintf("%s %q: %s", c.Name, scripted.Clip(c.str("cmd"), 200), scripted.Clip(c.Output, 500)))
				}
			case "spawn_agent", "wait_agent", "close_agent":
				var v map[string]any
				if json.Unmarshal([]byte(c.Output), &v) != nil {
					out = append(out, fmt.Sprintf("%s: %s", c.Name, scripted.Clip(c.Output, 500)))
				}
			}
		}
	}
	return out
}

// followerCalls are a controller's calls as the follower made them: a
// Read (its parts after the output cap joined), the Read of the skill's
// SKILL.md as Skill, a spawn_agent and its waits as one Agent (with the
// model the follower asked for, which Agent recorded), each command of
// the skill by its bare name; the last words last, unless the run was
// cut.
func followerCalls(srv *Server, s *Session, skillDir string) []follower.Call {
	var out []follower.Call
	lastRead := ""
	for _, c := range callsOf(srv, s.Prompt) {
		switch c.Name {
		case "exec_command":
			cmd := c.str("cmd")
			if m := ReadCommandRe.FindStringSubmatch(cmd); m != nil {
				path := strings.ReplaceAll(strings.Trim(m[3], "'"), `'\''`, "'")
				key := path + "\x00" + m[2]
				if lastRead == key && m[1] != "1" {
					continue // the rest of a read the output cap cut
				}
				lastRead = key
				if path == skillDir+"/SKILL.md" {
					out = append(out, follower.Call{Tool: "Skill", Input: ship.SkillName})
				} else {
					out = append(out, follower.Call{Tool: "Read", Input: path})
				}
				continue
			}
			lastRead = ""
			out = append(out, follower.Call{Tool: "Bash", Input: follower.ByName(cmd)})
		case "spawn_agent":
			lastRead = ""
			out = append(out, follower.Call{Tool: "Agent", Input: c.str("message"), Model: srv.Records()[ModelRecord(agentID(c))]})
		}
	}
	if s.Final != CutText {
		out = append(out, follower.Call{Tool: "Say", Input: s.Final})
	}
	return out
}

// agentID is the id a spawn_agent call answered with.
func agentID(c fcall) string {
	var out struct {
		AgentID string `json:"agent_id"`
	}
	json.Unmarshal([]byte(c.Output), &out)
	return out.AgentID
}

func toolNames(calls []follower.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Tool)
	}
	return out
}

// toolCallsPerFollowerCall are the function calls of the controller's
// conversation for each of its follower calls (as followerCalls groups
// them): the cost in model turns (a dispatch is a spawn_agent and a
// wait_agent, a long read several commands).
func toolCallsPerFollowerCall(srv *Server, s *Session) []int {
	var out []int
	lastRead := ""
	for _, c := range callsOf(srv, s.Prompt) {
		switch c.Name {
		case "exec_command":
			if m := ReadCommandRe.FindStringSubmatch(c.str("cmd")); m != nil {
				key := m[3] + "\x00" + m[2]
				if lastRead == key && m[1] != "1" {
					out[len(out)-1]++
					continue
				}
				lastRead = key
				out = append(out, 1)
				continue
			}
			lastRead = ""
			out = append(out, 1)
		case "spawn_agent":
			lastRead = ""
			out = append(out, 1)
		default: // wait_agent, close_agent, write_stdin: the call before goes on
			out[len(out)-1]++
		}
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// finished is the ledger as the run left it (follower.FinishedLedger).
func finished(t *testing.T, srv *Server, s *Session, skillDir, keep string) string {
	t.Helper()
	for _, c := range callsOf(srv, s.Prompt) {
		if c.Name == "exec_command" && strings.Contains(follower.ByName(c.str("cmd")), "sdd-ledger finish ") {
			out, code, _, _ := parseExec(c.Output)
			require.Equal(t, 0, code, "Finish: %s", out)
			return follower.FinishedLedger(readFile(t, filepath.Join(keep, "greet", "progress.md")), out)
		}
	}
	t.Fatalf("no call ran Finish")
	return ""
}

// requireDone fails unless the follower's last words end a run.
func requireDone(t *testing.T, s *Session) {
	t.Helper()
	require.True(t, strings.HasPrefix(s.Final, "Done: "), "the controller's last words: %s\ntranscript:\n%s", s.Final, s.Transcript())
}

// requireClean fails on any tool result that was an error or a refusal,
// and on any conversation no script answered.
func requireClean(t *testing.T, h *Host) {
	t.Helper()
	assert.Empty(t, toolProblems(h.Server), "tool results that were errors")
	for _, r := range h.Server.Unknown() {
		t.Errorf("request %d of a conversation no script answers: %q", r.Seq, scripted.Clip(r.Prompt, 200))
	}
}

// skillBytes are the bytes of the instructions that are there for the
// skill in the session's first request (its <skills_instructions> entry
// and its root's line: always sent, whether the skill is used or not),
// the bytes of the whole <skills_instructions> block, and the bytes the model got
// when it read SKILL.md (every part's whole output).
func skillBytes(t *testing.T, srv *Server, s *Session, skillDir string) (alwaysOn, instructions, onInvoke int) {
	reqs := conversation(srv, s.Prompt)
	require.NotEmpty(t, reqs)
	for _, it := range reqs[0].Input {
		for _, text := range it.Texts() {
			m := skillsRe.FindString(text)
			if m == "" {
				continue
			}
			instructions = len(m)
			// The skill's entry, and the root its path names when no
			// other entry names it (the root is there for the skill).
			lines := strings.SplitAfter(m, "\n")
			root := ""
			for _, l := range lines {
				if strings.Contains(l, ship.SkillName) {
					alwaysOn += len(l)
					if _, f, ok := strings.Cut(l, "(file: "); ok {
						root, _, _ = strings.Cut(f, "/")
					}
				}
			}
			if root != "" && strings.Count(m, "(file: "+root+"/") == 1 {
				for _, l := range lines {
					if strings.HasPrefix(l, "- `"+root+"` = ") {
						alwaysOn += len(l)
					}
				}
			}
		}
	}
	for _, c := range callsOf(srv, s.Prompt) {
		if m := ReadCommandRe.FindStringSubmatch(c.str("cmd")); m != nil && strings.Contains(m[3], skillDir+"/SKILL.md") {
			onInvoke += len(c.Output)
		}
	}
	return alwaysOn, instructions, onInvoke
}

// TestFollowWalkThrough: the follower carries out skill/example.md's run
// in the real Codex CLI, from the skill installed in $CODEX_HOME/skills,
// in a repository whose path has a space and an é: three tasks, a fix
// round, the final review, the workspace deleted. Each dispatch is a
// spawn_agent and a wait_agent; each task costs no more follower calls
// than the v6.2.0 text did, and the ledger, the workspace's files and the
// commits are the walk-through's.
func TestFollowWalkThrough(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h, skillDir := followHost(t, repo)
	sc := codexScenario(follower.WalkScenario())
	keep := testutil.RealTempDir(t)
	mainHead := testutil.Git(t, repo, "rev-parse", "main")
	s := h.Run(runPrompt, FollowKeeping(sc, repo, keep))
	requireDone(t, s)
	requireClean(t, h)

	calls := followerCalls(h.Server, s, skillDir)
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Read", "Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Agent",
		"Bash", "Agent", "Bash", "Say"}, toolNames(calls))
	// As the CLI's tools: each Bash or Read one exec_command (SKILL.md
	// in as many as its size needs under the output cap), each dispatch a
	// spawn_agent, a wait_agent that sees it end, and a close_agent.
	var raw, want []string
	skillParts := 0
	for _, c := range callsOf(h.Server, s.Prompt) {
		if m := ReadCommandRe.FindStringSubmatch(c.str("cmd")); m != nil && strings.Contains(m[3], "/SKILL.md") {
			skillParts++
		}
		if c.Name != "write_stdin" {
			raw = append(raw, c.Name)
		}
	}
	for _, c := range calls {
		switch c.Tool {
		case "Skill":
			for range skillParts {
				want = append(want, "exec_command")
			}
		case "Bash", "Read":
			want = append(want, "exec_command")
		case "Agent":
			want = append(want, "spawn_agent", "wait_agent", "close_agent")
		}
	}
	assert.Equal(t, want, raw)
	setup, each, final := harness.PerTask(calls, 3)
	turns := toolCallsPerFollowerCall(h.Server, s)
	tSetup, tEach, tFinal := splitLike(turns, setup, each, final)
	alwaysOn, instr, onInvoke := skillBytes(t, h.Server, s, skillDir)
	t.Logf("controller calls in the Codex CLI: setup %d, tasks %v, final %d (v6.2.0: tasks %v); as tool calls: setup %d, tasks %v, final %d; %d requests of the controller, %d in all, %v",
		setup, each, final, follower.WalkCeilings, tSetup, tEach, tFinal, len(conversation(h.Server, s.Prompt)), len(h.Server.Requests()), s.Elapsed)
	t.Logf("SKILL.md read in %d parts under the output cap", skillParts)
	t.Logf("instructions: the skill's <skills_instructions> entry and root %d bytes (the whole block %d), always sent; SKILL.md as read %d bytes (the file %d)",
		alwaysOn, instr, onInvoke, len(readFile(t, filepath.Join(skillDir, "SKILL.md"))))
	for i, n := range each {
		assert.LessOrEqual(t, n, follower.WalkCeilings[i], "Task %d's controller calls", i+1)
	}
	assert.LessOrEqual(t, setup, 4, "setup's calls")
	assert.LessOrEqual(t, final, 3, "the final review's calls")

	// No dispatch names a model: host-codex.md gives the tiers none
	// (spawn_agent takes only its catalog's names and refuses Claude's),
	// so every subagent runs on the session's model.
	var models []string
	for _, c := range callsOf(h.Server, s.Prompt) {
		if c.Name == "spawn_agent" {
			assert.NotContains(t, c.Args, "model")
			models = append(models, h.Server.Records()[ModelRecord(agentID(c))])
			for _, r := range conversation(h.Server, c.str("message")) {
				assert.Equal(t, codexcli.Model, r.Model, "request %d of a subagent", r.Seq)
			}
		}
	}
	assert.Equal(t, []string{"", "", "", "", "", "", "", "", ""}, models)

	// Every command of the skill ran from the skill's bin/: the session's
	// PATH holds no copy, so a bare name fails.
	for _, d := range h.Path {
		for _, name := range ship.Commands {
			assert.NoFileExists(t, filepath.Join(d, name))
		}
	}
	for _, c := range callsOf(h.Server, s.Prompt) {
		cmd := c.str("cmd")
		for _, name := range ship.Commands {
			if strings.Contains(cmd, name+" ") && !ReadCommandRe.MatchString(cmd) {
				assert.Contains(t, cmd, skillDir+"/bin/"+name+" ", "a command of the skill not run from its bin/")
			}
		}
	}

	// What the run left: five commits (the fix among them), the ledger
	// and the files of the workspace as they were before Finish, the
	// workspace deleted.
	c := testutil.BranchCommits(t, repo)
	require.Len(t, c, 5)
	assert.Equal(t, "bye\n", readFile(t, filepath.Join(repo, "bye.txt")))
	short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
	ledger := finished(t, h.Server, s, skillDir, keep)
	ids := follower.ImplementerIDs(ledger)
	require.Len(t, ids, 4)
	assert.Equal(t, follower.WalkLedger(mainHead, c, short, ids...), ledger)
	assert.Equal(t, harness.WalkFiles(mainHead, c, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
	assert.NoDirExists(t, filepath.Join(repo, ".superpowers", "sdd", "greet"))
	assert.DirExists(t, filepath.Join(repo, ".superpowers", "sdd"))
	// What the human must still decide is in the last message.
	assert.Contains(t, s.Final, "Task 1: minor (deferred): check1.sh repeats the file name")
	assert.Contains(t, s.Final, "verdict: Final: complete")
}

// splitLike splits per-call costs as perTask split the calls.
func splitLike(costs []int, setup int, each []int, final int) (int, []int, int) {
	i := 0
	take := func(n int) int {
		s := sum(costs[i:min(i+n, len(costs))])
		i += n
		return s
	}
	s := take(setup)
	var e []int
	for _, n := range each {
		e = append(e, take(n))
	}
	return s, e, take(final)
}

// TestFollowResume: for each state of follower.Resumes (one or more for
// each row of the text's state table), a run cut there, its files changed
// as the state says, and a new `codex exec` session in the same homes and
// repository, which finds the state with Look (Look names the state's
// row) and takes the row's steps: the same list the direct executor and
// the Claude Code suite resume from.
func TestFollowResume(t *testing.T) {
	for _, c := range follower.Resumes() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
			h, skillDir := followHost(t, repo)
			sc := codexScenario(c.Scenario())
			steps, err := follower.NewSteps(skillDir)
			require.NoError(t, err)
			cut := h.Run(runPrompt, FollowUntil(sc, c.Cut))
			require.Equal(t, CutText, cut.Final)
			requireClean(t, h)
			got := steps.Names(followerCalls(h.Server, cut, skillDir))
			require.Len(t, got, c.Cut)
			require.Equal(t, modelless(c.After), got[c.Cut-1], "the cut's last step")
			ws := filepath.Join(repo, ".superpowers", "sdd", "greet")
			if c.Edit != nil {
				require.NoError(t, c.Edit(repo, ws))
			}
			keep := testutil.RealTempDir(t)
			s := h.Run("Resume the plan "+follower.WalkPlanPath+" with the "+ship.SkillName+" skill.", FollowKeeping(sc, repo, keep))
			requireClean(t, h)
			got = steps.Names(followerCalls(h.Server, s, skillDir))
			require.GreaterOrEqual(t, len(got), 3)
			require.Equal(t, []string{"Skill " + ship.SkillName, "Read " + follower.HostFile("codex"), "Bash Look"}, got[:3])
			assert.Equal(t, c.Row, lookRow(t, h.Server, s, skillDir), "the row Look names")
			next := got[3:min(len(got), 3+len(c.Next))]
			var want []string
			for _, n := range c.Next {
				want = append(want, modelless(n))
			}
			require.Equal(t, want, next, "the steps after Look; all of them:\n%s", strings.Join(got, "\n"))
			if c.Stop != "" {
				assert.Contains(t, s.Final, c.Stop)
				return
			}
			requireDone(t, s)
			assert.NoDirExists(t, ws)
			ledger := finished(t, h.Server, s, skillDir, keep)
			if c.Walk {
				cs := testutil.BranchCommits(t, repo)
				require.Len(t, cs, 5)
				short := func(sha string) string { return testutil.Git(t, repo, "rev-parse", "--short", sha) }
				mainHead := testutil.Git(t, repo, "rev-parse", "main")
				want := follower.WalkLedger(mainHead, cs, short, "", "", "", "")
				assert.Equal(t, follower.WithoutImplementers(want), follower.WithoutImplementers(ledger))
				assert.Equal(t, harness.WalkFiles(mainHead, cs, short), testutil.DirNames(t, filepath.Join(keep, "greet")))
			}
			if c.Ends != nil {
				assert.NoError(t, c.Ends(ledger, testutil.BranchCommits(t, repo)))
			}
		})
	}
}

var stepModelRe = regexp.MustCompile(`\((?:haiku|sonnet|opus)\)$`)

// modelless is a step of follower.Resumes as it is in Codex: the list
// names each dispatch's model as in Claude Code, and host-codex.md gives
// the tiers no model, so a dispatch here names none ("()").
func modelless(step string) string { return stepModelRe.ReplaceAllString(step, "()") }

// lookRow is the row the session's first Look names on its next: line.
func lookRow(t *testing.T, srv *Server, s *Session, skillDir string) string {
	t.Helper()
	for _, c := range callsOf(srv, s.Prompt) {
		if c.Name == "exec_command" && strings.HasPrefix(follower.ByName(c.str("cmd")), "sdd-ledger look ") {
			out, _, _, _ := parseExec(c.Output)
			for _, l := range strings.Split(out, "\n") {
				if n, ok := strings.CutPrefix(l, "next: "); ok {
					_, row, _ := strings.Cut(n, "row=")
					return strings.TrimSpace(row)
				}
			}
		}
	}
	t.Fatalf("no Look printed a next: line")
	return ""
}

// TestFollowForeignLedger: the plan's workspace holds a one-line ledger
// of another plan (written there by hand, or by another tool); the
// controller stops and asks, and leaves it as it was.
func TestFollowForeignLedger(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.WalkPlanPath, follower.WalkPlan)
	h, skillDir := followHost(t, repo)
	r := testutil.RunIn(repo, gitenv.Hermetic(h.Home), filepath.Join(skillDir, "bin", "sdd-workspace"), follower.WalkPlanPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	ws := strings.TrimSpace(r.Stdout)
	const other = "# SDD ledger — plan: docs/plans/other.md\n"
	require.NoError(t, os.WriteFile(filepath.Join(ws, "progress.md"), []byte(other), 0o644))
	before := testutil.DirNames(t, ws)
	s := h.Run(runPrompt, Follow(codexScenario(follower.WalkScenario())))
	requireClean(t, h)
	assert.Contains(t, s.Final, "it is another run's only record")
	assert.Equal(t, other, readFile(t, filepath.Join(ws, "progress.md")))
	assert.Equal(t, before, testutil.DirNames(t, ws), "the workspace's files")
	assert.Empty(t, testutil.Git(t, repo, "log", "--format=%H", "main..HEAD"), "no task started")
	assert.Equal(t, []string{"Skill", "Read", "Bash", "Say"}, toolNames(followerCalls(h.Server, s, skillDir)))

	// A session's shell finds none of the commands by name: the CLI puts
	// no bin/ of a skill on PATH, and the host's PATH holds no copy.
	probe := h.Run("Look for the commands on PATH.", func(a *Turns) {
		a.Say(a.Exec("for c in " + strings.Join(ship.Commands, " ") + "; do command -v $c || echo \"no $c\"; done").Output)
	})
	for _, name := range ship.Commands {
		assert.Contains(t, probe.Final, "no "+name)
	}
}

// TestFollowLargePackage: a task whose package is over the 256 KB the
// role files read whole; its reviewer and the final reviewer read it in
// parts of 2000 lines, as in Claude Code. In Codex each part is more than
// one command's output may be (about 10,000 bytes), so each part takes
// several reads, each from the first line the cap cut off; no read fails.
func TestFollowLargePackage(t *testing.T) {
	repo := testutil.PlanRepo(t, follower.BigPlanPath, follower.BigPlan)
	h, _ := followHost(t, repo)
	sc := codexScenario(follower.BigScenario(7500))
	s := h.Run("Carry out the plan "+follower.BigPlanPath+" with the "+ship.SkillName+" skill.", Follow(sc))
	requireDone(t, s)
	requireClean(t, h)
	var parts []string
	commands, bytes := 0, 0
	seen := map[string]bool{}
	for _, r := range h.Server.Requests() {
		if r.Prompt == s.Prompt || seen[r.Prompt] {
			continue
		}
		seen[r.Prompt] = true
		last := ""
		for _, c := range callsOf(h.Server, r.Prompt) {
			m := ReadCommandRe.FindStringSubmatch(c.str("cmd"))
			if m == nil || !strings.HasSuffix(m[3], ".diff'") {
				last = ""
				continue
			}
			commands++
			bytes += len(c.Output)
			if key := m[3] + m[2]; key != last || m[2] == "$" {
				last = key
				from, _ := strconv.Atoi(m[1])
				to, _ := strconv.Atoi(m[2])
				parts = append(parts, fmt.Sprintf("%d/%d", from, to-from+1))
			}
		}
	}
	t.Logf("the packages' reads: %d parts, %d commands, %d bytes of output; %d requests in all, %v", len(parts), commands, bytes, len(h.Server.Requests()), s.Elapsed)
	// Task 1's package (4 parts), Task 2's (1), the final one (4).
	assert.Equal(t, []string{"1/2000", "2001/2000", "4001/2000", "6001/2000", "1/2000",
		"1/2000", "2001/2000", "4001/2000", "6001/2000"}, parts)
}
