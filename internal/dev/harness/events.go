package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/stretchr/testify/require"
)

// ReadEvents decodes each non-blank line of a session's JSON event
// stream as an E and hands it to take, with the line, as it comes (a line
// that is no E is passed over); it returns the stream's error but its
// end.
func ReadEvents[E any](r io.Reader, take func(e E, line json.RawMessage)) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if l := bytes.TrimSpace(line); len(l) > 0 {
			var e E
			if json.Unmarshal(l, &e) == nil {
				take(e, append(json.RawMessage(nil), l...))
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// Events is how the session of a CLI that prints its events as JSON
// lines on stdout (Pi's --mode json, Droid's and Gemini CLI's -o
// stream-json) reads: the host's description of its output, over which
// a session is played, logged and held to what every session must hold
// the same way for each (Play, Run).
type Events[E any] struct {
	CLI   string                       // the CLI's name, in a problem
	Read  func(io.Reader) ([]E, error) // the events of a session's stdout
	Line  func(E) string               // an event's line as printed
	Final func([]E) string             // the controller's last words
	// Problems are what in a session's events says it went wrong, and
	// Failed why a call's result marks it failed ("" when it does not):
	// what Run holds a session to.
	Problems func([]E) []string
	Failed   func(scripted.CallResult) string
}

// EventSession is what one session of such a CLI did: the process, the
// follower's steps and the controller's last words (Played), and its
// events.
type EventSession[E any] struct {
	*Played
	Events []E
	line   func(E) string
}

// Play runs one session of the CLI bin with args and env in m's
// repository, controller answering the conversation of prompt, and
// checks nothing: a failed script is among the problems (Played), the
// error is the reading of the events'.
func (ev Events[E]) Play(m *Machine, prompt string, controller scripted.Script, env []string, bin string, args ...string) (*EventSession[E], error) {
	m.T.Helper()
	s := &EventSession[E]{line: ev.Line}
	var readErr error
	s.Played = m.Play(prompt, controller, env, func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, bin, args...)
	}, func(r io.Reader) { s.Events, readErr = ev.Read(r) })
	s.Final = ev.Final(s.Events)
	return s, readErr
}

// Run is Play held to what every session of such a host must hold: the
// process ended well and its events were read (Played.Ended), nothing in
// them says the session went wrong (Problems), no conversation went
// unanswered by a script and no call of any conversation (the
// subagents' among them) came back failed (Machine.CallProblems, by
// Failed). Failures are the test's (t.Errorf), with the transcript
// logged.
func (ev Events[E]) Run(m *Machine, prompt string, controller scripted.Script, env []string, bin string, args ...string) *EventSession[E] {
	m.T.Helper()
	before := len(m.Server.Requests())
	s, readErr := ev.Play(m, prompt, controller, env, bin, args...)
	p := s.Played
	p.Ended(ev.CLI, readErr)
	p.Problems = append(p.Problems, ev.Problems(s.Events)...)
	p.Problems = append(p.Problems, m.CallProblems(before, ev.Failed)...)
	p.Report(m, s.Transcript)
	return s
}

// RoundTrip is Play for a round trip (a test of the CLI itself, its
// script written with the host's own calls): it logs the session's time
// and counts and fails the test on a failed script or an unreadable
// output; how the process ended and what the events say are the test's
// to read.
func (ev Events[E]) RoundTrip(t testing.TB, m *Machine, prompt string, script scripted.Script, env []string, bin string, args ...string) *EventSession[E] {
	t.Helper()
	s, err := ev.Play(m, prompt, script, env, bin, args...)
	t.Logf("session of %q: %v, %d events, %d requests", scripted.Clip(prompt, 40), s.Elapsed.Round(time.Millisecond), len(s.Events), len(m.Server.Requests()))
	require.Empty(t, s.Problems, "the scripts failed; stderr:\n%s", s.Stderr)
	require.NoError(t, err, "stderr:\n%s", s.Stderr)
	return s
}

// Transcript is the session's events, one line each as printed, its last
// words and its stderr, for a failure's log.
func (s *EventSession[E]) Transcript() string {
	var b strings.Builder
	for _, e := range s.Events {
		b.WriteString(scripted.Clip(s.line(e), 600) + "\n")
	}
	fmt.Fprintf(&b, "final: %q\nstderr: %s\n", scripted.Clip(s.Final, 400), scripted.Clip(s.Stderr, 2000))
	return b.String()
}
