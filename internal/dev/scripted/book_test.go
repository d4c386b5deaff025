package scripted

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

type req struct{ N int }

func TestBook(t *testing.T) {
	var b Book[string, req]
	_, ok := b.Script("p")
	assert.False(t, ok)
	b.Handle("p", "one")
	b.Handle("p", "two")
	s, ok := b.Script("p")
	assert.True(t, ok)
	assert.Equal(t, "two", s, "Handle replaces")

	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &req{}
			n := b.Record(r)
			b.Locked(func() { r.N = n })
		}()
	}
	wg.Wait()
	got := b.Requests()
	assert.Len(t, got, 50)
	for i, r := range got {
		assert.Equal(t, i+1, r.N, "numbered in the order recorded")
	}
	got[0].N = 99
	assert.Equal(t, 1, b.Requests()[0].N, "Requests copies")

	failed := b.Failed()
	select {
	case <-failed:
		t.Fatal("closed before a failure")
	default:
	}
	b.Fail("a")
	b.Fail("b")
	<-failed
	assert.Equal(t, []string{"a", "b"}, b.Failures())
	assert.Equal(t, failed, b.Failed(), "one channel")
}

func TestClip(t *testing.T) {
	assert.Equal(t, "abc", Clip("abc", 3))
	assert.Equal(t, "éé…", Clip("ééé", 2))
	assert.Equal(t, "", Clip("", 0))
}
