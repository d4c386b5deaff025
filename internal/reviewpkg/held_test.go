package reviewpkg

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A held writer keeps up to its bound, then makes the writer wait for its
// turn; released, it passes on what it kept, then everything else.
func TestHeldWaitsForItsTurnPastItsBound(t *testing.T) {
	h := newHeld(4)
	n, err := h.Write([]byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	done := make(chan int)
	go func() {
		n, _ := h.Write([]byte("defgh"))
		done <- n
	}()
	select {
	case <-done:
		t.Fatal("a write past the bound did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	var out bytes.Buffer
	require.NoError(t, h.release(&out))
	assert.Equal(t, 5, <-done)
	_, err = h.Write([]byte("!"))
	require.NoError(t, err)
	assert.Equal(t, "abcdefgh!", out.String())
}

// Dropped, it frees a waiting writer and throws everything away.
func TestHeldDropped(t *testing.T) {
	h := newHeld(2)
	done := make(chan int)
	go func() {
		n, _ := h.Write([]byte("abcdef"))
		done <- n
	}()
	time.Sleep(10 * time.Millisecond)
	h.drop()
	assert.Equal(t, 6, <-done)
	n, err := h.Write([]byte("more"))
	require.NoError(t, err)
	assert.Equal(t, 4, n)
	assert.Empty(t, h.buf)
}
