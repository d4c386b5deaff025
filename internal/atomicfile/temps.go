package atomicfile

import (
	"errors"
	"os"
	"sync"
)

// The temporary names alive in this process, so that a signal that cuts a
// command short can still remove them before the process dies.
//
// A name is made and recorded under one lock, and renamed or removed and
// forgotten under it too, so RemoveTracked, which takes the same lock,
// never runs between a name's appearing and its recording, nor between a
// rename and its forgetting. RemoveTracked then keeps the set closed: the
// process is about to die, and a name made after it would outlive it.
var live = struct {
	sync.Mutex
	m      map[string]struct{}
	closed bool
}{m: map[string]struct{}{}}

// BeforeNamed is called before a temporary name is made, so that whoever
// must remove it on a signal can get ready first (cliapp catches the stop
// signals from then on, where it did not need to before): a signal that
// comes earlier finds no name to leave behind.
var BeforeNamed = func() {}

// errDying refuses a new name once RemoveTracked has run.
var errDying = errors.New("atomicfile: the process is ending")

// makeNamed runs mk, which gives a file the name p, and records p.
func makeNamed(p string, mk func() error) error {
	BeforeNamed()
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return errDying
	}
	if err := mk(); err != nil {
		return err
	}
	live.m[p] = struct{}{}
	return nil
}

// unname runs op, which takes the name p away (a rename, a removal), and
// forgets p when it succeeds.
func unname(p string, op func() error) error {
	live.Lock()
	defer live.Unlock()
	err := op()
	if err == nil {
		delete(live.m, p)
	}
	return err
}

// RemoveTracked removes every temporary name this process still has, and
// lets no new one be made. It is for a process about to die of a signal
// without unwinding.
func RemoveTracked() {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	for p := range live.m {
		_ = os.Remove(p)
		delete(live.m, p)
	}
}
