package atomicfile

import (
	"os"
	"sync"
)

// The temporary files alive in this process, so that a signal that cuts a
// command short can still remove them before the process dies.
var live = struct {
	sync.Mutex
	m map[string]struct{}
}{m: map[string]struct{}{}}

// Track records a temporary file for RemoveTracked; Untrack forgets it once
// it is renamed into place or removed. Other packages' short-lived files (a
// workspace marker being published) are tracked here too.
func Track(p string)   { live.Lock(); live.m[p] = struct{}{}; live.Unlock() }
func Untrack(p string) { live.Lock(); delete(live.m, p); live.Unlock() }

// RemoveTracked removes every temporary file this process still has. It is
// for a process about to die of a signal without unwinding.
func RemoveTracked() {
	live.Lock()
	defer live.Unlock()
	for p := range live.m {
		_ = os.Remove(p)
		delete(live.m, p)
	}
}
