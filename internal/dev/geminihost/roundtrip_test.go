package geminihost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The round trips the skill needs, each in a real session of the pinned
// CLI against the scripted model (roundtrips_test.go), on a host of
// their own: a HOME with a space and an é (the skill's commands are run
// by a path under it, which must be quoted), the session's settings
// written before each session (a test changes them), a stand-in skill,
// and no checks but the scripts', the events' and the process's: a
// round trip is made to see what the CLI refuses.

type roundTrip struct {
	*Host
	t        *testing.T
	repo     *testutil.Repo
	settings map[string]any
}

func newRoundTrip(t *testing.T) *roundTrip {
	t.Helper()
	repo := testutil.NewRepo(t)
	repo.Commit("start", "README.md", "a project\n")
	h := &roundTrip{Host: New(t, repo.Root), t: t, repo: repo, settings: sessionSettings()}
	require.NoError(t, h.RoundTripHome())
	return h
}

// write writes a file under HOME (rel a path from it).
func (h *roundTrip) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.Home, rel)
	require.NoError(h.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(h.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// run runs a session of prompt, script its model, with the CLI's extra
// arguments, and fails the test on a failed script, an unreadable output,
// a failed process or a request the scripted model has no method for.
// It leaves the session's problems (Problems) to the test.
func (h *roundTrip) run(prompt string, script Script, extra ...string) *Session {
	h.t.Helper()
	require.NoError(h.t, h.WriteSettings(h.settings))
	s := events.RoundTrip(h.t, h.Machine, prompt, script.Play(), h.Env(), h.Gemini, Args(prompt, extra...)...)
	require.NoError(h.t, s.Err, "stderr:\n%s", s.Stderr)
	for _, r := range h.Server.Requests() {
		require.NotNil(h.t, r.Answer, "request %d: %s %s is no method of the scripted model", r.Seq, r.Method, r.Path)
	}
	return s
}

// ok runs a session that must go without a problem: no failed call, no
// error event, a result, and every side request answered as the CLI
// wants it (a routing classifier that cannot read its answer says so on
// stderr and goes on).
func (h *roundTrip) ok(prompt string, script Script, extra ...string) *Session {
	h.t.Helper()
	s := h.run(prompt, script, extra...)
	require.Empty(h.t, Problems(s.Events), "stderr:\n%s", s.Stderr)
	require.NotContains(h.t, s.Stderr, "[Routing]")
	return s
}

// last is the last request of the conversation prompt.
func (h *roundTrip) last(prompt string) *scripted.Request {
	h.t.Helper()
	reqs := h.Server.Conversation(prompt)
	require.NotEmpty(h.t, reqs, "no request of %q", prompt)
	return &reqs[len(reqs)-1]
}

// side are the side requests, which got JSON of their schema.
func (h *roundTrip) side() []scripted.Request {
	var out []scripted.Request
	for _, r := range h.Server.Requests() {
		if len(r.Texts(scripted.GeminiSide)) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// stubSkill is the folder and name of the stand-in skill.
const stubSkill = "subagent-driven-development"

// commands are the four the skill runs.
var commands = []string{"sdd-workspace", "task-brief", "review-package", "sdd-ledger"}

// installStub puts a skill where an install would, under
// ~/.agents/skills/: SKILL.md, and in bin/ a stand-in for each command
// that prints its name and arguments (and exits 4 when one is "fail").
// It returns the skill's folder.
func (h *roundTrip) installStub() string {
	h.t.Helper()
	dir := filepath.Join(h.Home, ".agents", "skills", stubSkill)
	h.write(filepath.Join(".agents", "skills", stubSkill, "SKILL.md"),
		"---\nname: "+stubSkill+"\ndescription: Use when executing an implementation plan task by task.\n---\n# SDD\n\nRun the commands in bin/.\n")
	for _, c := range commands {
		p := h.write(filepath.Join(".agents", "skills", stubSkill, "bin", c),
			"#!/bin/sh\necho "+c+" \"$@\"\nfor a; do [ \"$a\" = fail ] && exit 4; done\nexit 0\n")
		require.NoError(h.t, os.Chmod(p, 0o755))
	}
	return dir
}

// commandRule is the user policy that allows run_shell_command for the
// four commands of the skill in dir, each written as its path in double
// quotes (a path may hold a space), then its arguments: the narrowest
// rule found for running them without asking.
func commandRule(dir string) string {
	var prefixes []string
	for _, c := range commands {
		prefixes = append(prefixes, strconv.Quote(`"`+filepath.Join(dir, "bin", c)+`"`))
	}
	return "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [" + strings.Join(prefixes, ", ") +
		"]\ndecision = \"allow\"\npriority = 100\n"
}

// skillRule is the user policy that allows activate_skill for the skill
// name alone.
func skillRule(name string) string {
	return "[[rule]]\ntoolName = \"activate_skill\"\nargsPattern = " + strconv.Quote(`"name":"`+name+`"`) +
		"\ndecision = \"allow\"\npriority = 100\n"
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
