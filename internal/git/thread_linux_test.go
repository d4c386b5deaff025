package git

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Git's parent-death signal fires when the thread that started it ends,
// not the process (go.dev/issue/27505). A goroutine that locks itself to
// its thread and returns ends that thread: were the thread that started a
// git among them, that git would get SIGTERM while the command still waits
// for it. Here goroutines retire threads as fast as they can while gits
// run, the goroutine that started each git giving up its thread for a
// moment (as the scheduler may make it do); every git must run to its end.
func TestGitOutlivesRetiredThreads(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Chdir(t.TempDir())
	defer func(f func()) { afterStart = f }(afterStart)
	afterStart = func() { time.Sleep(time.Millisecond) }

	stop := make(chan struct{})
	var retiring sync.WaitGroup
	retiring.Add(1)
	go func() {
		defer retiring.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				}()
			}
			wg.Wait()
		}
	}()
	defer func() { close(stop); retiring.Wait() }()

	var stderr bytes.Buffer
	r := New(&stderr)
	for range 5 {
		_, err := r.Output(context.Background(), "-c", "alias.nap=!sleep 0.05", "nap")
		require.NoError(t, err, "git got a signal: %s", stderr.String())
	}
}
