package scripted

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// meeting holds the first request of each of some conversations until
// all of them have begun (Server.Meet); begun is the server's meetMu's.
type meeting struct {
	prefixes []string
	wait     time.Duration
	begun    map[int]bool
	over     chan struct{} // closed once all have begun, or one waited wait
	end      sync.Once
}

// Meet holds the first request of each conversation whose prompt begins
// with one of prefixes until every one of them has sent its first, or
// until one has waited wait; later requests pass. Dispatches a host runs
// at once then overlap on the server however late one of them starts
// (on a loaded machine a process may start after the other's whole
// conversation has run), and a host that runs them one after the other
// is held up by wait once. Call it before the session.
func (s *Server) Meet(wait time.Duration, prefixes ...string) {
	s.meetMu.Lock()
	defer s.meetMu.Unlock()
	s.meeting = &meeting{prefixes: prefixes, wait: wait, begun: map[int]bool{}, over: make(chan struct{})}
}

// meet holds a request whose conversation is in the meeting, as Meet
// says.
func (s *Server) meet(prompt string) {
	s.meetMu.Lock()
	m := s.meeting
	i, all := -1, false
	if m != nil {
		i = slices.IndexFunc(m.prefixes, func(p string) bool { return strings.HasPrefix(prompt, p) })
	}
	if i >= 0 {
		m.begun[i] = true
		all = len(m.begun) == len(m.prefixes)
	}
	s.meetMu.Unlock()
	if i < 0 {
		return
	}
	if all {
		m.end.Do(func() { close(m.over) })
	}
	select {
	case <-m.over:
	case <-time.After(m.wait):
		m.end.Do(func() { close(m.over) })
	}
}
