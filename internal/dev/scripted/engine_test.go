package scripted

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The engine, the same over every wire (players_test.go): each test runs
// once a player and a kind of answer its host asks for.
func forEachPlayer(t *testing.T, test func(t *testing.T, p Player, stream bool, srv *Server)) {
	for _, p := range Players {
		for _, stream := range p.Streams {
			t.Run(fmt.Sprintf("%s/stream=%v", p.Name, stream), func(t *testing.T) {
				srv := NewServer(t, p.Wire)
				srv.PromptOf = func(text string) string {
					if strings.HasPrefix(text, "<context>") {
						return ""
					}
					return text
				}
				test(t, p, stream, srv)
			})
		}
	}
}

// A script's call goes out with the wire's id for the conversation and
// the call's number, what came back for it reaches the script, its text
// ends the turn, and a script that has run out says DoneText. The prompt
// names the conversation; a text PromptOf leaves out does not.
func TestReplay(t *testing.T) {
	forEachPlayer(t, func(t *testing.T, p Player, stream bool, srv *Server) {
		srv.Handle("do it", func(a *Turns) {
			r := a.Call("shell", map[string]any{"command": "echo hi"})
			a.Say("it said " + r.Text)
		})
		prompt := []Entry{Sent("user", "<context>cwd</context>"), Sent("user", "do it")}
		first := p.Ask(t, srv, stream, prompt...)
		require.NotNil(t, first.Call)
		sum := sha256.Sum256([]byte("do it"))
		assert.Equal(t, p.Wire.CallID(hex.EncodeToString(sum[:6]), 1), first.Call.ID)
		assert.Equal(t, "shell", first.Call.Name)
		assert.JSONEq(t, `{"command": "echo hi"}`, string(first.Call.Input))

		transcript := append(prompt, Said(first), Returned(first.Call.ID, "hi", false))
		second := p.Ask(t, srv, stream, transcript...)
		assert.Equal(t, Turn{Text: "it said hi"}, second)
		third := p.Ask(t, srv, stream, append(transcript, Said(second), Sent("user", "more?"))...)
		assert.Equal(t, Turn{Text: DoneText}, third)

		assert.Empty(t, srv.Failures())
		for _, r := range srv.Requests() {
			assert.Equal(t, "do it", r.Prompt)
			assert.True(t, r.Scripted)
		}
	})
}

// The texts the host sends after a call's result (a reminder, a
// notification) are the result's notes; those it sends after a text (a
// continued subagent's new message) are what Say returns.
func TestNotes(t *testing.T) {
	forEachPlayer(t, func(t *testing.T, p Player, stream bool, srv *Server) {
		srv.Handle("sub", func(a *Turns) {
			if r := a.Call("shell", map[string]any{"command": "true"}); len(r.Notes) != 1 || r.Notes[0] != "<note/>" {
				a.Failf("the notes: %q", r.Notes)
			}
			more := a.Say("REPORT 1")
			a.Say("REPORT 2 after " + strings.Join(more, "|"))
		})
		call := p.Ask(t, srv, stream, Sent("user", "sub"))
		transcript := []Entry{Sent("user", "sub"), Said(call), Returned(call.Call.ID, "", false), Sent("user", "<note/>")}
		first := p.Ask(t, srv, stream, transcript...)
		assert.Equal(t, "REPORT 1", first.Text)
		second := p.Ask(t, srv, stream, append(transcript, Said(first), Sent("user", "Fix round."))...)
		assert.Equal(t, "REPORT 2 after Fix round.", second.Text)
		assert.Empty(t, srv.Failures())
	})
}

// A transcript that does not follow the script fails the test (the turn
// says why, Failed is closed), and so do a script's panic and a call
// whose result did not come back.
func TestFailures(t *testing.T) {
	forEachPlayer(t, func(t *testing.T, p Player, stream bool, srv *Server) {
		srv.Handle("do it", func(a *Turns) { a.Call("shell", map[string]any{"command": "echo hi"}) })
		other := Turn{Call: &Call{ID: "call_other", Name: "shell", Input: []byte(`{"command":"echo ho"}`)}}
		got := p.Ask(t, srv, stream, Sent("user", "do it"), Said(other), Returned("call_other", "ho", false))
		assert.Contains(t, got.Text, "SCRIPT FAILED")
		select {
		case <-srv.Failed():
		default:
			t.Error("Failed() is not closed after a failure")
		}

		srv.Handle("buggy", func(a *Turns) {
			var m map[string]int
			//lint:ignore SA5000 the script panics on purpose: a script's panic fails its conversation
			m["x"] = 1
		})
		p.Ask(t, srv, stream, Sent("user", "buggy"))
		srv.Handle("lost", func(a *Turns) { a.Call("shell", map[string]any{"command": "echo hi"}); a.Say("end") })
		call := p.Ask(t, srv, stream, Sent("user", "lost"))
		p.Ask(t, srv, stream, Sent("user", "lost"), Said(call), Sent("user", "no result"), Said(Turn{Text: "x"}))

		f := srv.Failures()
		require.Len(t, f, 3)
		assert.Contains(t, f[0], "the transcript does not follow the script")
		assert.Contains(t, f[1], "script panicked")
		assert.Contains(t, f[2], "no result came back for shell")
	})
}

// A conversation without a script (a host's title request) gets
// UnknownAnswer and is recorded as unknown; any other method or path is
// recorded and gets 404.
func TestUnknownAndOtherPaths(t *testing.T) {
	forEachPlayer(t, func(t *testing.T, p Player, stream bool, srv *Server) {
		got := p.Ask(t, srv, stream, Sent("user", "<context>cwd</context>"), Sent("user", "Generate a title"))
		assert.Equal(t, Turn{Text: UnknownAnswer}, got)
		resp, err := http.Post(srv.URL+"/v1/other", "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		resp, err = http.Get(srv.URL + p.path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)

		reqs := srv.Requests()
		require.Len(t, reqs, 3)
		assert.Equal(t, "Generate a title", reqs[0].Prompt)
		assert.Equal(t, "/v1/other", reqs[1].Path)
		unknown := srv.Unknown()
		require.Len(t, unknown, 1)
		assert.Equal(t, 1, unknown[0].Seq)
	})
}

// A read's optional counts left at 0 are left out of its input.
func TestDropUnset(t *testing.T) {
	assert.Equal(t, map[string]any{"path": "/f", "limit": 5}, DropUnset(map[string]any{"path": "/f", "offset": 0, "limit": 5}))
	assert.Equal(t, map[string]any{"path": "/f", "offset": 2}, DropUnset(map[string]any{"path": "/f", "offset": 2, "limit": -1}))
}

// Answer answers each call with the next result until the turn ends.
func TestAnswer(t *testing.T) {
	srv, ask := PlayerOf(Chat{}).Fake(t, nil, false)
	srv.Handle("go", func(a *Turns) {
		first := a.Call("x", map[string]any{"n": 1}).Text
		second := a.Call("x", map[string]any{"n": 2}).Text
		a.Say(first + " " + second)
	})
	calls, said := Answer(t, ask, []Entry{Sent("user", "go")}, "a", "b")
	assert.Equal(t, "a b", said)
	require.Len(t, calls, 2)
	assert.JSONEq(t, `{"n":2}`, string(calls[1].Input))
}

// A script handled trimmed answers the prompt with or without the white
// space around it.
func TestHandleTrimmed(t *testing.T) {
	srv, ask := PlayerOf(Chat{}).Fake(t, nil, false)
	srv.Handle("go", func(a *Turns) {
		a.HandleTrimmed("sub\n", func(a *Turns) { a.Say("sub here") })
		a.Say("handled")
	})
	assert.Equal(t, "handled", ask(Sent("user", "go")).Text)
	assert.Equal(t, "sub here", ask(Sent("user", "sub")).Text)
	assert.Equal(t, "sub here", ask(Sent("user", "sub\n")).Text)
}

// view is a host's view of a conversation, its calls as methods.
type view struct{ *Turns }

func (v *view) greet() { v.Say("hi from " + v.Prompt()) }

// A host's script over its view plays as a Script, and a Script is one
// over the view.
func TestForAndAs(t *testing.T) {
	srv, ask := PlayerOf(Chat{}).Fake(t, nil, false)
	srv.Handle("go", For[view](func(v *view) { v.greet() }).Play())
	srv.Handle("plain", As[view](func(a *Turns) { a.Say("plain") }).Play())
	assert.Equal(t, "hi from go", ask(Sent("user", "go")).Text)
	assert.Equal(t, "plain", ask(Sent("user", "plain")).Text)
}
