package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// Played is what one session did, as every host's suite reads it: how
// the CLI's process went, the problems found so far (a failed script;
// the host adds its own), the controller's last words as the CLI showed
// them, and the follower's steps of every conversation of the session
// (the controller's under Conversation, each subagent's under its
// prompt).
type Played struct {
	scripted.Run
	Conversation string // the controller's conversation, as the server names it
	Final        string // the controller's last words, from the CLI's output
	Problems     []string
	Steps        map[string][]Step
}

// Step is one follower call a session made: the call in the text's names
// (the tool, its input: a command as the follower wrote it, a path, a
// prompt, a text; a dispatch's model), what came back as the follower
// read it, and the host's calls it took, by name. Follow records each
// step once it has come back, so the steps of a session are the calls
// the host answered.
type Step struct {
	follower.Call
	Offset, Limit int    // a Read's lines
	Next          int    // a Read the host stopped early: the line it goes on from
	Text          string // a Bash's output
	IsError       bool
	ID            string   // a dispatch's agent id, when the host gives one
	Continued     string   // the agent a dispatch went on (follower.AgentCall.Continue)
	Calls         []string // the host's calls, in order
	// Together: a dispatch sent with others (follower.OneMessage), the
	// host's calls of all of them on the first one's step.
	Together bool
}

// Controller are the controller's steps.
func (p *Played) Controller() []Step { return p.Steps[p.Conversation] }

// Calls are the controller's steps as follower calls: what
// follower.Steps names and PerTask counts.
func (p *Played) Calls() []follower.Call {
	var out []follower.Call
	for _, s := range p.Controller() {
		out = append(out, s.Call)
	}
	return out
}

// Ran is the output of the controller's first Bash step whose command,
// by name, contains what: Look's, Finish's.
func (p *Played) Ran(what string) (Step, bool) {
	for _, s := range p.Controller() {
		if s.Tool == "Bash" && strings.Contains(follower.ByName(s.Input), what) {
			return s, true
		}
	}
	return Step{}, false
}

const stepPrefix = "step "

func stepKey(conversation string, n int) string {
	return fmt.Sprintf("%s%06d %s", stepPrefix, n, conversation)
}

// readSteps reads the steps out of a session's records (Turns.Record).
func (p *Played) readSteps(records map[string]string) error {
	keys := make([]string, 0, len(records))
	for k := range records {
		if strings.HasPrefix(k, stepPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		var s Step
		if err := json.Unmarshal([]byte(records[k]), &s); err != nil {
			return fmt.Errorf("record %q: %v", k, err)
		}
		conv := k[len(stepPrefix)+7:]
		p.Steps[conv] = append(p.Steps[conv], s)
	}
	return nil
}

// Report holds the session to its problems: the test fails with each
// one, the transcript logged first.
func (p *Played) Report(m *Machine, transcript func() string) {
	m.T.Helper()
	if len(p.Problems) == 0 {
		return
	}
	m.T.Logf("transcript of the session (%v):\n%s", p.Elapsed.Round(time.Millisecond), transcript())
	for _, pr := range p.Problems {
		m.T.Errorf("%s", pr)
	}
}

// Ended puts first among p's problems how the CLI's process went wrong,
// if it did: its error, or readErr, the reading of its output's, with
// what it printed on stderr.
func (p *Played) Ended(cli string, readErr error) {
	if err := errors.Join(p.Err, readErr); err != nil {
		p.Problems = append([]string{fmt.Sprintf("%s: %v\nstderr: %s", cli, err, p.Stderr)}, p.Problems...)
	}
}

// Problem is a problem's line for a tool call and what came back.
func Problem(what string, c scripted.CallResult) string {
	return fmt.Sprintf("%s %s came back %s", c.Qualified(), scripted.Clip(string(c.Input), 300), scripted.Clip(what, 1000))
}
