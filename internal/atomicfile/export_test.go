package atomicfile

// reopenTracked undoes RemoveTracked's closing of the set, for the tests
// that run after one that called it (a real process dies instead).
func reopenTracked() {
	live.Lock()
	live.closed = false
	live.Unlock()
}
