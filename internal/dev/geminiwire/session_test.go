package geminiwire_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/geminicli"
	"github.com/sdd-go/sdd-go/internal/dev/geminiwire"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/stretchr/testify/require"
)

// host is a machine for sessions of the real CLI against the scripted
// model: an isolated HOME with the session's settings, TMPDIR, a PATH of
// node, git, sh and bash, and a git repository to run in.
type host struct {
	t        *testing.T
	bin      string
	srv      *geminiwire.Server
	home     string
	tmp      string
	repo     *testutil.Repo
	path     []string
	settings map[string]any
}

func newHost(t *testing.T) *host {
	t.Helper()
	bin := geminicli.Binary(t)
	path, err := geminicli.SessionPath()
	require.NoError(t, err)
	base := testutil.RealTempDir(t)
	// A HOME with a space and an é: the skill's commands are run by a
	// path under it, which must be quoted.
	h := &host{t: t, bin: bin, srv: geminiwire.NewServer(t), home: filepath.Join(base, "home é x"),
		tmp: filepath.Join(base, "tmp"), repo: testutil.NewRepo(t), path: path, settings: geminicli.Settings()}
	require.NoError(t, os.MkdirAll(h.home, 0o755))
	require.NoError(t, os.MkdirAll(h.tmp, 0o755))
	h.repo.Commit("start", "README.md", "a project\n")
	return h
}

// write writes a file under HOME (rel a path from it).
func (h *host) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.home, rel)
	require.NoError(h.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(h.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// session is how one gemini -p session went.
type session struct {
	events []geminicli.Event
	run    scripted.Run
}

// tools are the tool_use events of the session, by name.
func (s session) tools() []string {
	var out []string
	for _, e := range s.events {
		if e.Type == "tool_use" {
			out = append(out, e.ToolName)
		}
	}
	return out
}

// run runs a session of prompt, script its model, with the CLI's extra
// arguments, in the repository, and fails the test on a failed script or
// an unreadable output. It leaves the session's problems
// (geminicli.Problems) to the test.
func (h *host) run(prompt string, script geminiwire.Script, extra ...string) session {
	h.t.Helper()
	require.NoError(h.t, geminicli.WriteSettings(h.home, h.settings))
	if script != nil {
		h.srv.Play(prompt, script)
	}
	var events []geminicli.Event
	var readErr error
	run, err := scripted.RunCLI(func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, h.bin, geminicli.Args(prompt, extra...)...)
	}, h.repo.Root, geminicli.Env(h.home, h.tmp, h.srv.URL, h.path), 3*time.Minute, h.srv.Failed(),
		func(r io.Reader) { events, readErr = geminicli.ReadEvents(r) })
	require.NoError(h.t, err)
	h.t.Logf("session of %q: %v, %d events, %d requests", scripted.Clip(prompt, 40), run.Elapsed.Round(time.Millisecond), len(events), len(h.srv.Requests()))
	require.Empty(h.t, h.srv.Failures(), "the scripts failed; stderr:\n%s", run.Stderr)
	require.NoError(h.t, readErr, "stderr:\n%s", run.Stderr)
	require.NoError(h.t, run.Err, "stderr:\n%s", run.Stderr)
	return session{events: events, run: run}
}

// ok runs a session that must go without a problem: no failed call, no
// error event, a result, and every side request answered as the CLI
// wants it (a routing classifier that cannot read its answer says so on
// stderr and goes on).
func (h *host) ok(prompt string, script geminiwire.Script, extra ...string) session {
	h.t.Helper()
	s := h.run(prompt, script, extra...)
	require.Empty(h.t, geminicli.Problems(s.events), "stderr:\n%s", s.run.Stderr)
	require.NotContains(h.t, s.run.Stderr, "[Routing]")
	return s
}

// last is the last request of the conversation prompt.
func (h *host) last(prompt string) geminiwire.Request {
	h.t.Helper()
	var last *geminiwire.Request
	for _, r := range h.srv.Turns() {
		if r.Prompt == prompt {
			last = &r
		}
	}
	require.NotNil(h.t, last, "no request of %q", prompt)
	return *last
}

// skillName is the folder and name of the skill as an install would put
// it in ~/.agents/skills/.
const skillName = "subagent-driven-development"

// commands are the four the skill runs.
var commands = []string{"sdd-workspace", "task-brief", "review-package", "sdd-ledger"}

// installSkill puts a skill where an install would, under
// ~/.agents/skills/: SKILL.md, and in bin/ a stand-in for each command
// that prints its name and arguments (and exits 4 when one is "fail").
// It returns the skill's folder.
func (h *host) installSkill() string {
	h.t.Helper()
	dir := filepath.Join(h.home, ".agents", "skills", skillName)
	h.write(filepath.Join(".agents", "skills", skillName, "SKILL.md"),
		"---\nname: "+skillName+"\ndescription: Use when executing an implementation plan task by task.\n---\n# SDD\n\nRun the commands in bin/.\n")
	for _, c := range commands {
		p := h.write(filepath.Join(".agents", "skills", skillName, "bin", c),
			"#!/bin/sh\necho "+c+" \"$@\"\nfor a; do [ \"$a\" = fail ] && exit 4; done\nexit 0\n")
		require.NoError(h.t, os.Chmod(p, 0o755))
	}
	return dir
}

// toml is s as a TOML basic string (Go's quoting is TOML's for printable
// text).
func toml(s string) string { return strconv.Quote(s) }

// commandRule is the user policy that allows run_shell_command for the
// four commands of the skill in dir, each written as its path in double
// quotes (a path may hold a space), then its arguments: the narrowest
// rule found for running them without asking.
func commandRule(dir string) string {
	var prefixes []string
	for _, c := range commands {
		prefixes = append(prefixes, toml(`"`+filepath.Join(dir, "bin", c)+`"`))
	}
	return "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [" + strings.Join(prefixes, ", ") +
		"]\ndecision = \"allow\"\npriority = 100\n"
}

// skillRule is the user policy that allows activate_skill for the skill
// name alone.
func skillRule(name string) string {
	return "[[rule]]\ntoolName = \"activate_skill\"\nargsPattern = " + toml(`"name":"`+name+`"`) +
		"\ndecision = \"allow\"\npriority = 100\n"
}

// policy writes rules as the user policy ~/.gemini/policies/sdd-go.toml.
func (h *host) policy(rules ...string) {
	h.t.Helper()
	h.write(filepath.Join(".gemini", "policies", "sdd-go.toml"), strings.Join(rules, "\n"))
}

// cmd is the command line of the skill's command c in dir with args, as
// the host's file would have the model write it.
func cmd(dir, c string, args ...string) string {
	return strings.Join(append([]string{`"` + filepath.Join(dir, "bin", c) + `"`}, args...), " ")
}

// What comes back for a command the policy does not allow, and for one
// it would ask about (a redirection: the rule's allowRedirection is not
// set).
const (
	denied            = "Tool execution denied by policy."
	needsConfirmation = `Tool execution for "Shell" requires user confirmation, which is not supported in non-interactive mode.`
)
