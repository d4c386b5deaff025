package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// recorder is a test's T whose failures are kept, not reported.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }

// A session of a CLI that prints JSON lines: its events read, its last
// words, and what Run holds it to (the process's end, its events'
// problems), each a failure of the test, with the lines in the
// transcript.
func TestEventsRun(t *testing.T) {
	m := NewMachine(t, t.TempDir(), scripted.Chat{}, nil)
	rec := &recorder{TB: t}
	m.T = rec
	type event struct {
		Type string
		line string
	}
	ev := Events[event]{
		CLI: "cli",
		Read: func(r io.Reader) ([]event, error) {
			var out []event
			err := ReadEvents(r, func(e event, line json.RawMessage) {
				e.line = string(line)
				out = append(out, e)
			})
			return out, err
		},
		Line:  func(e event) string { return e.line },
		Final: func(es []event) string { return es[len(es)-1].Type },
		Problems: func(es []event) []string {
			var out []string
			for _, e := range es {
				if e.Type == "error" {
					out = append(out, "an error event")
				}
			}
			return out
		},
		Failed: func(scripted.CallResult) string { return "" },
	}
	s := ev.Run(m, "go", func(a *scripted.Turns) { a.Say("hi") }, nil,
		"sh", "-c", `echo '{"Type":"start"}'; echo 'not JSON'; echo '{"Type":"error"}'; echo '{"Type":"end"}'; echo oops >&2; exit 3`)
	assert.Equal(t, "end", s.Final)
	assert.Len(t, s.Events, 3)
	require.Len(t, rec.errors, 2, "%q", rec.errors)
	assert.Equal(t, "cli: exit status 3\nstderr: oops\n", rec.errors[0])
	assert.Equal(t, "an error event", rec.errors[1])
	assert.Equal(t, "{\"Type\":\"start\"}\n{\"Type\":\"error\"}\n{\"Type\":\"end\"}\nfinal: \"end\"\nstderr: oops\n\n", s.Transcript())
}

// A round trip's session is the test's to read, its process's end among
// it: only a failed script or an unreadable output fails the test.
func TestEventsRoundTrip(t *testing.T) {
	m := NewMachine(t, t.TempDir(), scripted.Chat{}, nil)
	ev := Events[map[string]any]{
		Read: func(r io.Reader) ([]map[string]any, error) {
			var out []map[string]any
			err := ReadEvents(r, func(e map[string]any, _ json.RawMessage) { out = append(out, e) })
			return out, err
		},
		Final: func([]map[string]any) string { return "" },
	}
	s := ev.RoundTrip(t, m, "go", func(a *scripted.Turns) { a.Say("hi") }, nil, "sh", "-c", `echo '{"type":"x"}'; exit 2`)
	assert.Error(t, s.Err)
	assert.Len(t, s.Events, 1)
}
