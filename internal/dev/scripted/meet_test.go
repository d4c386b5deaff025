package scripted

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Meet: the first request of each conversation met waits for the
// others' first; a request of no conversation met, and every request
// once all have begun, pass at once; a conversation alone waits the
// wait once.
func TestMeet(t *testing.T) {
	p := Players[0]
	ask := func(srv *Server, prompt string) time.Duration {
		start := time.Now()
		p.Ask(t, srv, p.Streams[0], Sent("user", prompt))
		return time.Since(start)
	}

	srv := NewServer(t, p.Wire)
	srv.Meet(time.Minute, "A ", "B ")
	held := make(chan time.Duration)
	go func() { held <- ask(srv, "A first") }()
	time.Sleep(300 * time.Millisecond)
	assert.Less(t, ask(srv, "C other"), 200*time.Millisecond, "a conversation not met")
	assert.Less(t, ask(srv, "B second"), 200*time.Millisecond, "the last to begin")
	assert.GreaterOrEqual(t, <-held, 300*time.Millisecond, "the first waited for the last")
	assert.Less(t, ask(srv, "A first"), 200*time.Millisecond, "once all have begun")

	srv = NewServer(t, p.Wire)
	srv.Meet(300*time.Millisecond, "A ", "B ")
	alone := ask(srv, "A alone")
	assert.GreaterOrEqual(t, alone, 300*time.Millisecond)
	assert.Less(t, alone, 10*time.Second, "the wait ends it")
	assert.Less(t, ask(srv, "A alone"), 200*time.Millisecond, "waited once")
}
