package reviewpkg

import (
	"io"
	"sync"
)

// held is where a git call that runs ahead of its turn writes: its output
// is kept until its turn comes (release), then passed on, the kept part
// first. It keeps at most max bytes; a write past them waits for the turn,
// so git waits on its pipe and memory stays bounded however much it has to
// say. A call whose turn never comes (an earlier one failed) is dropped:
// what it wrote is thrown away, and so is whatever it still writes.
type held struct {
	mu      sync.Mutex
	turn    sync.Cond
	max     int
	buf     []byte
	to      io.Writer // set by release
	dropped bool
}

func newHeld(max int) *held {
	h := &held{max: max}
	h.turn.L = &h.mu
	return h
}

func (h *held) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for {
		switch {
		case h.dropped:
			return n + len(p), nil
		case h.to != nil:
			m, err := h.to.Write(p)
			return n + m, err
		}
		k := min(h.max-len(h.buf), len(p))
		h.buf = append(h.buf, p[:k]...)
		n, p = n+k, p[k:]
		if len(p) == 0 {
			return n, nil
		}
		h.turn.Wait()
	}
}

// release passes on what was kept, and from now on every write, to w.
func (h *held) release(w io.Writer) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.turn.Broadcast()
	h.to = w
	buf := h.buf
	h.buf = nil
	if len(buf) == 0 {
		return nil
	}
	_, err := w.Write(buf)
	return err
}

// drop throws away what was kept and whatever comes.
func (h *held) drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropped, h.buf = true, nil
	h.turn.Broadcast()
}
