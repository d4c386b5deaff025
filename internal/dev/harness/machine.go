// Package harness is what every host suite shares (make test-host): a
// machine for sessions of a real host CLI against the scripted model
// (internal/dev/scripted), the project's installer run into it, and the
// follower (internal/dev/follower) over the host's tools. A host is a
// row of internal/dev/hostcli's table (its CLI: npm packages, version,
// binary) and a host package (claudehost, codexhost, opencodehost,
// copilothost, geminihost, pihost, droidhost): its session's environment, the wire format
// its server speaks (a scripted.Wire), how its session's events are
// read, and how the follower's tools map onto its own (Adapter). The
// server, the book, the replay, the session's process, the cut, the copy
// before Finish and the follower exist once.
package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Machine is one machine for sessions of a host CLI: an isolated HOME
// with a git identity, an isolated TMPDIR beside it, a PATH of system
// directories only, the scripted model, and the repository the sessions
// run in. Sessions run one after another in the same HOME and
// repository, so a later one resumes where an earlier one stopped.
type Machine struct {
	T       testing.TB
	Home    string   // HOME
	Tmp     string   // TMPDIR, beside HOME (Codex refuses a CODEX_HOME under it)
	Repo    string   // the sessions' working directory
	Path    []string // the sessions' PATH
	Server  *scripted.Server
	Timeout time.Duration // of one session; 3 minutes unless changed
}

// NewMachine makes a machine for sessions in repo, its model speaking
// wire, its PATH path.
func NewMachine(t testing.TB, repo string, wire scripted.Wire, path []string) *Machine {
	t.Helper()
	base := testutil.RealTempDir(t)
	m := &Machine{T: t, Repo: repo, Home: filepath.Join(base, "home"), Tmp: filepath.Join(base, "tmp"),
		Path: path, Server: scripted.NewServer(t, wire), Timeout: 3 * time.Minute}
	for _, d := range []string{m.Home, m.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeGitconfig(m.Home); err != nil {
		t.Fatal(err)
	}
	return m
}

// writeGitconfig writes the machine's git identity in home.
func writeGitconfig(home string) error {
	gitconfig := "[user]\n\tname = SDD Host Test\n\temail = host@example.com\n[init]\n\tdefaultBranch = main\n"
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644)
}

// RoundTripHome moves m's HOME to a new folder beside it whose name holds
// a space and an é ("home é x"), with the machine's git identity: the
// HOME of a round trip (a test of the CLI itself), where a path of the
// skill's under HOME must be quoted, as a user's may need. What the host
// wrote in the old HOME (its configuration) it writes again.
func (m *Machine) RoundTripHome() error {
	m.Home = filepath.Join(filepath.Dir(m.Home), "home é x")
	if err := os.MkdirAll(m.Home, 0o755); err != nil {
		return err
	}
	return writeGitconfig(m.Home)
}

// ShellCase is a command of a shell round trip (a test of a CLI's shell
// tool) and what it gives: its output, stdout and stderr together ("" for
// none), and its exit code.
type ShellCase struct {
	Command, Output string
	Code            int
}

// ShellCases are the commands a host's shell round trip runs in a session
// in repo, each with what it gives, the same on every host: an output, a
// failure's stderr and exit code, no output, and a cd and an export that
// do not carry over to the next command (each is a shell of its own, in
// the session's folder).
func ShellCases(repo string) []ShellCase {
	return []ShellCase{
		{Command: "echo hi", Output: "hi\n"},
		{Command: "echo oops >&2; exit 3", Output: "oops\n", Code: 3},
		{Command: "true"},
		{Command: "cd /; export SDD_X=1"},
		{Command: `pwd; echo "[$SDD_X]"`, Output: repo + "\n[]\n"},
	}
}

// WriteJSON writes v to path as indented JSON with a final newline, its
// folder made, with perm: a host's configuration file in a machine's
// HOME (settings.json, models.json, opencode.json), as a user writes it.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), perm)
}

// Play runs one session: script answers the conversation whose prompt is
// prompt (as the server names it: Server.PromptOf), and the process cmd
// makes runs in the repository with env, its stdout handed to read. It
// returns how the process went, the failures of the scripts during the
// session, each as a problem, and the follower's steps the session made.
func (m *Machine) Play(prompt string, script scripted.Script, env []string, cmd func(context.Context) *exec.Cmd, read func(io.Reader)) *Played {
	m.T.Helper()
	m.Server.Handle(prompt, script)
	m.Server.ClearRecords()
	before := len(m.Server.Failures())
	run, err := scripted.RunCLI(cmd, m.Repo, env, m.Timeout, m.Server.Failed(), read)
	if err != nil {
		m.T.Fatal(err)
	}
	p := &Played{Run: run, Conversation: prompt, Steps: map[string][]Step{}}
	for _, f := range m.Server.Failures()[before:] {
		p.Problems = append(p.Problems, "script failed: "+f)
	}
	if err := p.readSteps(m.Server.Records()); err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	for conv, steps := range p.Steps {
		for _, st := range steps {
			if st.IsError {
				p.Problems = append(p.Problems, fmt.Sprintf("%s %q of the conversation %q came back an error: %s",
					st.Tool, scripted.Clip(st.Input, 200), scripted.Clip(conv, 60), scripted.Clip(st.Text, 1000)))
			}
		}
	}
	return p
}

// CallProblems are the problems of the requests m's server got from
// request before on: each request of a conversation no script answers,
// and each call of a conversation (as its last request holds them) that
// came back failed, failed saying why ("" for a call that did not). A
// failed call ends neither the script nor the session: a host whose
// model is shown no error mark (Chat Completions) goes on after it, and
// the test fails here.
func (m *Machine) CallProblems(before int, failed func(scripted.CallResult) string) []string {
	var out []string
	last := map[string]scripted.Request{}
	for _, r := range m.Server.Requests()[before:] {
		if r.Answer != nil && !r.Scripted {
			out = append(out, fmt.Sprintf("request %d of a conversation no script answers: %q", r.Seq, scripted.Clip(r.Prompt, 200)))
		}
		last[r.Prompt] = r
	}
	for _, r := range last {
		for _, c := range r.Calls() {
			if why := failed(c); c.Done && why != "" {
				out = append(out, Problem(why, c))
			}
		}
	}
	return out
}

// Command runs bin with args in the repository with env, for a command
// of the CLI that asks no model (Claude Code's plugin details,
// OpenCode's export), for at most a minute, and returns its stdout; its
// error carries what the command printed on stderr.
func (m *Machine) Command(env []string, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = m.Repo, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %v: %v\n%s", filepath.Base(bin), args, err, stderr.Bytes())
	}
	return out, nil
}
