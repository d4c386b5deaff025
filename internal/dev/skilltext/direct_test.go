package skilltext

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/copilothost"
	"github.com/sdd-go/sdd-go/internal/dev/droidhost"
	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/geminihost"
	"github.com/sdd-go/sdd-go/internal/dev/opencodehost"
	"github.com/sdd-go/sdd-go/internal/dev/pihost"
	"github.com/sdd-go/sdd-go/internal/dev/plaincmd"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The direct executor runs the follower's scripts with no model and no
// host in between: each Tools call is done here, as the host's tool would
// do it, with the host's limits that the text plans for. Bash runs under
// `sh -u -c` (dash here: bashisms and unset variables fail) in the
// repository, with only PATH and HOME set (and GORACE for race-enabled
// commands), and first refuses a command that
// cds or reads a variable it does not set; Read refuses a file over 256 KB
// without offset and limit, in the host's words, returns at most 2000
// lines, and numbers them as the host does; Write refuses to overwrite a
// file the agent has not read; Agent runs the subagent the scenario
// routes the prompt to, with its own tools, as the agent type the host
// has (directHosts), and a call that continues a subagent goes on with
// that subagent's tools where the host can continue it, and fails
// where it cannot. Every call is logged.

// directCall is one logged tool call.
type directCall struct {
	Actor  string // "controller" or the subagent's id
	Tool   string // Bash, Read, Write, Skill, Agent, Say
	Input  string // the command, path, prompt, message or text
	Offset int
	Limit  int
	Model  string
	// Continued is, for an Agent call that went on with a subagent
	// (follower.AgentCall.Continue), that subagent's id.
	Continued string
	Output    string
	IsError   bool
	// Message is, for a controller's call, the message it was sent in:
	// several dispatches sent together share one (Agents).
	Message int
	// Ledgers holds, after each controller call, every progress.md
	// under .superpowers/sdd, by workspace name.
	Ledgers map[string]string
}

// directHost is what a run's actors share.
type directHost struct {
	t        *testing.T
	root     string // the repository: every Bash call's working directory
	env      []string
	skillDir string
	sc       follower.Scenario
	calls    []directCall
	host     string // the host whose file of the skill the controller reads
	ids      int
	agents   map[string]string // agent id → role and task of its first dispatch ("implementer 2")
	// subagents are the subagents by id, their tools (and so what they
	// have read) kept for a call that continues one.
	subagents map[string]*directActor
	keep      string // where the rm wrapper keeps what it deletes
	maxCalls  int    // controller calls before the run is cut; 0: no cut
	ctlCalls  int
	// rules are the user's allow rules (follower.UserRules); skillRules
	// the skill's allowed-tools, which the controller's calls get too
	// while the skill is active: from the Skill call to the end of that
	// turn, which a background dispatch ends (its answer comes in a new
	// turn), as in Claude Code 2.1.328.
	rules, skillRules []plaincmd.Rule
	skillActive       bool
	refuseIgnored     bool // directOptions.refuseIgnored
	// cwd is where the controller's last command left Claude Code's
	// shell ("" for the repository).
	cwd string
	// messages counts the controller's messages; together, the Agent
	// calls left of one sent with several (Agents).
	messages, together int
}

// PermissionRefusal starts what the executor answers for a command the
// host would not run without a person's approval.
const PermissionRefusal = "This command requires approval"

// directCut stops a run after maxCalls controller calls.
type directCut struct{}

// directActor is the controller or one subagent: its own tools.
type directActor struct {
	h          *directHost
	name       string
	seen       map[string]bool // files read or written (Write's rule)
	background bool            // dispatched in the background (a subagent)
}

// directHostFacts is what the direct executor does as a host does it.
type directHostFacts struct {
	// agentType is the type of the host's subagent with every tool (the
	// shell, files): the one each host suite dispatches.
	agentType string
	// continues says which subagents a call can continue, as the host's
	// tools can: Claude Code's SendMessage reaches one in the background
	// only; Codex's resume_agent, OpenCode's task_id, Copilot's
	// write_agent and Droid's Task resume any this session started;
	// Gemini's invoke_agent and Pi's subagent tool none.
	continues func(a *directActor) bool
	// noIDs: a dispatch's answer gives no agent id (Gemini's invoke_agent,
	// Pi's subagent tool), as harness.Facts.AgentIDs says of the host.
	noIDs bool
}

// directHosts are the hosts whose file of the skill the executor runs.
var directHosts = map[string]directHostFacts{
	"claude-code": {"general-purpose", func(a *directActor) bool { return a.background }, false},
	"codex":       {"", func(*directActor) bool { return true }, false}, // spawn_agent takes no type
	"opencode":    {opencodehost.SubagentType, func(*directActor) bool { return true }, false},
	"copilot":     {copilothost.AgentType, func(*directActor) bool { return true }, false},
	"gemini":      {geminihost.Agent, func(*directActor) bool { return false }, true},
	"pi":          {pihost.Agent, func(*directActor) bool { return false }, true},
	"droid":       {droidhost.SubagentType, func(*directActor) bool { return true }, false},
}

// directOptions set up a run.
type directOptions struct {
	skillDir string // default: the repository's skill/
	host     string // default: claude-code
	maxCalls int
	// after is an earlier run in the same session: its subagents can
	// still be reached (a controller resumed after a compaction).
	after *directRun
	// refuseIgnored: Read refuses a file git ignores, as Gemini CLI's
	// read_file does unless the user's settings turn that off.
	refuseIgnored bool
	// newSession: after is an earlier session's run, not this one's: its
	// subagents cannot be reached (the ids go on, as a host's new session
	// gives new ones), and the controller knows it is a new session.
	newSession bool
}

// directRun is what a run left.
type directRun struct {
	h     *directHost
	calls []directCall
	final string // the controller's last words
	cut   bool   // stopped after maxCalls controller calls
	keep  string // copies of the directories rm deleted
}

// runDirect runs the controller of sc in repo, to its end or its cut.
func runDirect(t *testing.T, repo *testutil.Repo, sc follower.Scenario, o directOptions) *directRun {
	t.Helper()
	requireBinaries(t)
	if o.skillDir == "" {
		o.skillDir = filepath.Join(moduleRoot, "skill")
	}
	if o.host == "" {
		o.host = "claude-code"
	}
	base := t.TempDir()
	path := []string{binDir, "/usr/local/bin", "/usr/bin", "/bin"}
	if o.host != "claude-code" {
		// The other hosts put no bin/ on PATH: their files have the
		// commands run from the skill's bin/, which the install fills.
		// Under a folder whose name has a space, as in a home folder
		// named so: every path the text gives a subagent holds it.
		o.skillDir = installedSkill(t, o.skillDir, filepath.Join(base, "the skill"))
		path = path[1:]
	}
	home, tools, keep := filepath.Join(base, "home"), filepath.Join(base, "tools"), filepath.Join(base, "kept")
	for _, d := range []string{home, tools, keep} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[user]\n\tname = SDD Follower\n\temail = follower@example.com\n"), 0o644))
	skillMD, err := os.ReadFile(filepath.Join(o.skillDir, "SKILL.md"))
	require.NoError(t, err)
	h := &directHost{
		t: t, root: repo.Root, skillDir: o.skillDir, sc: sc, agents: map[string]string{}, host: o.host,
		subagents: map[string]*directActor{},
		keep:      keep, maxCalls: o.maxCalls, refuseIgnored: o.refuseIgnored,
		rules: plaincmd.Rules(sc.UserRules()), skillRules: plaincmd.Rules(follower.AllowedTools(string(skillMD))),
		env: []string{"PATH=" + strings.Join(append([]string{tools}, path...), ":"), "HOME=" + home},
	}
	if g, ok := os.LookupEnv("GORACE"); ok {
		// The commands are race-enabled under go test -race: without
		// these options each one sleeps a second as it exits.
		h.env = append(h.env, "GORACE="+g)
	}
	if o.after != nil {
		h.agents, h.ids, h.subagents = o.after.h.agents, o.after.h.ids, o.after.h.subagents
		if o.newSession {
			h.subagents = map[string]*directActor{}
			sc.NewSession = true
		}
	}
	r := &directRun{h: h, keep: keep}
	func() {
		defer func() {
			if x := recover(); x != nil {
				if _, ok := x.(directCut); !ok {
					panic(x)
				}
				r.cut = true
			}
		}()
		r.final = follower.Controller(sc)(h.actor("controller"))
	}()
	r.calls = h.calls
	return r
}

// installedSkill is the skill in dir copied to dst with the binaries in
// its bin/, as the installer leaves it for a host with no bin/ on PATH.
func installedSkill(t *testing.T, dir, dst string) string {
	t.Helper()
	require.NoError(t, os.CopyFS(dst, os.DirFS(dir)))
	require.NoError(t, os.Mkdir(filepath.Join(dst, "bin"), 0o755))
	for _, name := range ship.Commands {
		require.NoError(t, os.Symlink(filepath.Join(binDir, name), filepath.Join(dst, "bin", name)))
	}
	return dst
}

func (h *directHost) actor(name string) *directActor {
	return &directActor{h: h, name: name, seen: map[string]bool{}}
}

// log records a call; a controller call counts toward the cut and
// snapshots the ledgers.
func (a *directActor) log(c directCall) {
	c.Actor = a.name
	if a.name == "controller" {
		c.Ledgers = a.h.ledgers()
		// A call in a message of its own, unless it is a dispatch of a
		// message begun with several.
		if c.Tool != "Agent" || a.h.together == 0 {
			a.h.together = 0
			a.h.messages++
		} else {
			a.h.together--
		}
		c.Message = a.h.messages
	}
	a.h.calls = append(a.h.calls, c)
}

// Agents dispatches calls in one message, as Claude Code runs several
// Agent calls of one message at once (follower.OneMessage). The executor
// runs them one after the other: their answers are what they would be,
// each subagent working alone in its own checkout.
func (a *directActor) Agents(calls []follower.AgentCall) []follower.AgentResult {
	a.h.messages++
	a.h.together = len(calls)
	out := make([]follower.AgentResult, len(calls))
	for i, c := range calls {
		out[i] = a.Agent(c)
	}
	return out
}

func (a *directActor) count() {
	if a.name != "controller" {
		return
	}
	a.h.ctlCalls++
	if a.h.maxCalls > 0 && a.h.ctlCalls > a.h.maxCalls {
		panic(directCut{})
	}
}

func (h *directHost) ledgers() map[string]string {
	out := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(h.root, ".superpowers", "sdd", "*", "progress.md"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			out[filepath.Base(filepath.Dir(p))] = string(b)
		}
	}
	return out
}

// bashOutputMax is where the host cuts a Bash output.
const bashOutputMax = 30000

func (a *directActor) Bash(command string) follower.Result {
	a.count()
	res := a.bash(command)
	a.log(directCall{Tool: "Bash", Input: command, Output: res.Text, IsError: res.IsError})
	return res
}

func (a *directActor) bash(command string) follower.Result {
	rules := a.h.rules
	if a.name == "controller" && (a.h.skillActive || a.h.host != "claude-code") {
		// Claude Code pre-approves the skill's commands in the turn that
		// loaded it; the other hosts by their install (Gemini's policy)
		// or run them unasked, as their suites do.
		rules = append(append([]plaincmd.Rule(nil), rules...), a.h.skillRules...)
	}
	if err := plaincmd.Check(a.byName(command), rules); err != nil {
		// As the host refuses a command no rule pre-approves, under
		// claude -p: no person is there to ask.
		return follower.Result{Text: PermissionRefusal + " (" + err.Error() + ")", IsError: true}
	}
	if a.name == "controller" && follower.RunsFinish(command) {
		// Finish deletes the workspace: the test reads its files from a
		// copy made just before.
		ws, _ := filepath.Glob(filepath.Join(a.h.root, ".superpowers", "sdd", "*", "progress.md"))
		for _, l := range ws {
			_ = exec.Command("cp", "-R", filepath.Dir(l), a.h.keep+"/").Run()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Claude Code's session keeps the working directory a command's cd
	// left it in, for its next command (a subagent's does not): the
	// shell says where it ended, on a descriptor of its own.
	keepsCd := a.name == "controller" && a.h.host == "claude-code"
	script := command
	var where, w *os.File
	if keepsCd {
		var err error
		if where, w, err = os.Pipe(); err != nil {
			return follower.Result{Text: err.Error(), IsError: true}
		}
		defer where.Close()
		script = command + "\n__rc=$?; pwd >&3; exit $__rc"
	}
	cmd := exec.CommandContext(ctx, "sh", "-u", "-c", script)
	cmd.Dir, cmd.Env = a.h.root, a.h.env
	if keepsCd {
		if a.h.cwd != "" {
			cmd.Dir = a.h.cwd
		}
		cmd.ExtraFiles = []*os.File{w}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if keepsCd {
		w.Close()
		b, _ := io.ReadAll(where)
		if d := strings.TrimSpace(string(b)); d != "" {
			a.h.cwd = d
		}
	}
	text := out.String()
	if len(text) > bashOutputMax {
		text = text[:2000] + fmt.Sprintf("\n... [output cut: %d bytes]", len(text))
	}
	if err != nil {
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return follower.Result{Text: fmt.Sprintf("Exit code %d\n%s", code, text), IsError: true}
	}
	if text == "" {
		text = directNoOutput
	}
	return follower.Result{Text: text}
}

// directNoOutput is what the host's Bash tool shows for a command that
// printed nothing.
const directNoOutput = "(Bash completed with no output)"

// The Read tool's limits (Claude Code 2.1.328).
const (
	readMaxBytes   = 256 * 1024
	readLines      = 2000
	readMaxTokens  = 25000
	bytesPerTokens = 4 // an estimate: the host counts real tokens
)

func (a *directActor) Read(path string, offset, limit int) follower.Result {
	a.count()
	res := a.read(path, offset, limit)
	a.log(directCall{Tool: "Read", Input: path, Offset: offset, Limit: limit, Output: res.Text, IsError: res.IsError})
	return res
}

func (a *directActor) read(path string, offset, limit int) follower.Result {
	if !filepath.IsAbs(path) {
		return follower.Result{Text: "file_path must be an absolute path", IsError: true}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return follower.Result{Text: "File does not exist.", IsError: true}
	}
	if a.h.refuseIgnored && exec.Command("git", "-C", a.h.root, "check-ignore", "-q", path).Run() == nil {
		// Gemini CLI's read_file under respectGitIgnore (its words).
		return follower.Result{Text: "File path '" + path + "' is ignored by configured ignore patterns.", IsError: true}
	}
	whole := offset == 0 && limit == 0
	if whole && len(b) > readMaxBytes {
		return follower.Result{Text: fmt.Sprintf("File content (%s) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", directKB(len(b))), IsError: true}
	}
	a.seen[path] = true
	// The host numbers the text split at its newlines: a file ending in
	// a newline shows a last, empty line (Claude Code 2.1.328).
	lines := strings.Split(string(b), "\n")
	if len(b) == 0 {
		lines = nil
	}
	from := 0
	if offset > 0 {
		from = offset - 1
	}
	if limit == 0 {
		limit = readLines
	}
	if from >= len(lines) {
		return follower.Result{Text: fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", offset, len(lines))}
	}
	to := min(from+limit, len(lines))
	tokens := func(to int) int {
		return (len(strings.Join(lines[from:to], "\n")) + bytesPerTokens - 1) / bytesPerTokens
	}
	note := ""
	if n := tokens(to); n > readMaxTokens {
		if !whole {
			return follower.Result{Text: fmt.Sprintf("File content (%d tokens) exceeds maximum allowed tokens (%d). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", n, readMaxTokens), IsError: true}
		}
		// A whole read over the cap comes back as its first page.
		for to > from+1 && tokens(to) > readMaxTokens {
			to--
		}
		note = fmt.Sprintf("\n[Truncated: PARTIAL view — lines %d-%d of %d; use offset and limit to read the rest]", from+1, to, len(lines))
	}
	var out strings.Builder
	for i, l := range lines[from:to] {
		if i > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "%d\t%s", from+i+1, l)
	}
	return follower.Result{Text: out.String() + note}
}

func directKB(n int) string {
	s := fmt.Sprintf("%.1f", float64(n)/1024)
	return strings.TrimSuffix(s, ".0") + "KB"
}

func (a *directActor) Write(path, content string) follower.Result {
	a.count()
	res := a.write(path, content)
	a.log(directCall{Tool: "Write", Input: path, Output: res.Text, IsError: res.IsError})
	return res
}

func (a *directActor) write(path, content string) follower.Result {
	if !filepath.IsAbs(path) {
		return follower.Result{Text: "file_path must be an absolute path", IsError: true}
	}
	if _, err := os.Stat(path); err == nil && !a.seen[path] {
		return follower.Result{Text: "File has not been read yet. Read it first before writing to it.", IsError: true}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return follower.Result{Text: err.Error(), IsError: true}
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return follower.Result{Text: err.Error(), IsError: true}
	}
	a.seen[path] = true
	return follower.Result{Text: "File created successfully at: " + path}
}

func (a *directActor) Skill(name string) follower.Result {
	a.count()
	res := a.skill(name)
	if !res.IsError {
		a.h.skillActive = true
	}
	a.log(directCall{Tool: "Skill", Input: name, Output: res.Text, IsError: res.IsError})
	return res
}

func (a *directActor) skill(name string) follower.Result {
	if name != follower.DefaultSkill {
		return follower.Result{Text: "Unknown skill: " + name, IsError: true}
	}
	b, err := os.ReadFile(filepath.Join(a.h.skillDir, "SKILL.md"))
	if err != nil {
		return follower.Result{Text: err.Error(), IsError: true}
	}
	body := string(b)
	if rest, ok := strings.CutPrefix(body, "---\n"); ok {
		_, body, ok = strings.Cut(rest, "\n---\n")
		if !ok {
			return follower.Result{Text: "SKILL.md's front matter never ends", IsError: true}
		}
	}
	return follower.Result{Text: follower.BaseDirPrefix + a.h.skillDir + "\n\n" + strings.TrimLeft(body, "\n")}
}

// byName is a command line with each command the skill's bin/ holds by
// its name, as the rules name it: a command by another path stays so.
func (a *directActor) byName(command string) string {
	for _, name := range ship.Commands {
		command = strings.ReplaceAll(command, "'"+a.h.skillDir+"/bin/"+name+"'", name)
	}
	return command
}

func (a *directActor) Agent(call follower.AgentCall) follower.AgentResult {
	a.count()
	if call.Background && a.name == "controller" && a.h.host == "claude-code" {
		a.h.skillActive = false // the answer comes in a new turn
	}
	facts := directHosts[a.h.host]
	a.log(directCall{Tool: "Agent", Input: call.Prompt, Model: call.Model, Continued: call.Continue})
	i := len(a.h.calls) - 1
	fail := func(format string, args ...any) follower.AgentResult {
		a.h.calls[i].Output, a.h.calls[i].IsError = fmt.Sprintf(format, args...), true
		return follower.AgentResult{Reply: a.h.calls[i].Output}
	}
	if call.Continue != "" {
		sub, ok := a.h.subagents[call.Continue]
		switch {
		case !ok:
			return fail("no subagent %q to continue", call.Continue)
		case !facts.continues(sub):
			return fail("%s cannot continue subagent %s", a.h.host, call.Continue)
		}
		script, ok := a.h.sc.Subagent(call.Prompt)
		if !ok {
			return fail("(nothing answers this prompt)")
		}
		// The same subagent goes on: its id, and its tools with what it
		// has read.
		a.h.calls[i].Output = script(sub)
		return follower.AgentResult{ID: call.Continue, Reply: a.h.calls[i].Output}
	}
	if call.Type != facts.agentType {
		return fail("%s has no agent of type %q with every tool (%q is)", a.h.host, call.Type, facts.agentType)
	}
	a.h.ids++
	id := fmt.Sprintf("agent-%d", a.h.ids)
	script, ok := a.h.sc.Subagent(call.Prompt)
	reply := "(nothing answers this prompt)"
	if ok {
		d, _ := follower.ParseDispatch(call.Prompt)
		a.h.agents[id] = fmt.Sprintf("%s %d", d.Role, d.N)
		sub := a.h.actor(id)
		sub.background = call.Background
		a.h.subagents[id] = sub
		reply = script(sub)
	}
	a.h.calls[i].Output = reply
	if facts.noIDs {
		id = ""
	}
	return follower.AgentResult{ID: id, Reply: reply}
}

func (a *directActor) Say(text string) {
	a.log(directCall{Tool: "Say", Input: text})
}

// TestDirectTools: the host's limits the executor keeps.
func TestDirectTools(t *testing.T) {
	t.Parallel()
	repo := testutil.NewRepo(t)
	h := &directHost{t: t, root: repo.Root, host: "claude-code", agents: map[string]string{}, env: []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}}
	a := h.actor("x")
	big := filepath.Join(repo.Root, "big.txt")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("0123456789abcdefghijklmnopqrstu\n", 10000)), 0o644))

	r := a.Read(big, 0, 0)
	assert.True(t, r.IsError)
	assert.Equal(t, "File content (312.5KB) exceeds maximum allowed size (256KB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", r.Text)
	r = a.Read(big, 2001, 2000)
	require.False(t, r.IsError, r.Text)
	assert.True(t, strings.HasPrefix(r.Text, "2001\t0123"), r.Text[:20])
	assert.Equal(t, 2000, strings.Count(r.Text, "\n")+1)
	r = a.Read(big, 1, 5000)
	assert.True(t, r.IsError, "a part over 25000 tokens is refused")
	assert.Contains(t, r.Text, "exceeds maximum allowed tokens (25000)")
	assert.True(t, a.Read("big.txt", 0, 0).IsError, "a relative path")

	small := filepath.Join(repo.Root, "small.txt")
	require.NoError(t, os.WriteFile(small, []byte(strings.Repeat("x\n", 2500)), 0o644))
	r = a.Read(small, 0, 0)
	assert.Equal(t, 2000, strings.Count(r.Text, "\n")+1, "one Read returns 2000 lines")

	w := h.actor("y")
	assert.True(t, w.Write(small, "y\n").IsError, "a file it has not read")
	w.Read(small, 0, 0)
	assert.False(t, w.Write(small, "y\n").IsError)

	h.rules = plaincmd.Rules([]string{"Bash(pwd)", "Bash(git rev-parse:*)"})
	for _, cmd := range []string{"echo $HOME >/dev/null; cd /", "[[ 1 == 1 ]]", `x=1; echo "$x"`, "git log", "pwd && echo x"} {
		res := a.Bash(cmd)
		assert.True(t, res.IsError, cmd)
		assert.True(t, strings.HasPrefix(res.Text, PermissionRefusal), res.Text)
	}
	res := a.Bash("pwd && git rev-parse --is-inside-work-tree")
	assert.Equal(t, repo.Root+"\ntrue\n", res.Text)

}

// Host is the host the run's options named (Claude Code by default).
func (a *directActor) Host() string { return a.h.host }

// TestDirectContinue: a call that continues a subagent the executor does
// not know, or one the host cannot continue (Claude Code's in the
// foreground, any of Gemini CLI's or Pi's), fails as a failed tool call, and
// starts no subagent; one it can goes on as that subagent.
func TestDirectContinue(t *testing.T) {
	t.Parallel()
	h := &directHost{t: t, host: "codex", agents: map[string]string{}, subagents: map[string]*directActor{}}
	ctl := h.actor("controller")
	last := func() directCall { return h.calls[len(h.calls)-1] }

	ctl.Agent(follower.AgentCall{Prompt: "Fix round 1", Continue: "agent-9"})
	assert.True(t, last().IsError)
	assert.Equal(t, `no subagent "agent-9" to continue`, last().Output)

	h.subagents["agent-1"] = h.actor("agent-1")
	for host, can := range map[string]bool{"claude-code": false, "gemini": false, "pi": false, "codex": true, "opencode": true, "copilot": true, "droid": true} {
		h.host = host
		ctl.Agent(follower.AgentCall{Prompt: "Fix round 1", Continue: "agent-1"})
		if can {
			// Past the host's check: the scenario has no script for the
			// prompt.
			assert.Equal(t, "(nothing answers this prompt)", last().Output, host)
		} else {
			assert.Equal(t, host+" cannot continue subagent agent-1", last().Output, host)
		}
		assert.True(t, last().IsError, host)
	}
	h.host = "claude-code"
	h.subagents["agent-1"].background = true
	ctl.Agent(follower.AgentCall{Prompt: "Fix round 1", Continue: "agent-1"})
	assert.Equal(t, "(nothing answers this prompt)", last().Output, "Claude Code continues a subagent in the background")
	assert.Zero(t, h.ids, "a continued call started a subagent")

	ctl.Agent(follower.AgentCall{Prompt: "x", Type: "Explore"})
	assert.Equal(t, `claude-code has no agent of type "Explore" with every tool ("general-purpose" is)`, last().Output)
	assert.True(t, last().IsError)
}
