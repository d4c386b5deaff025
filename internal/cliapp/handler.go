package cliapp

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

// handler sets the signals' actions at start (start, per system) and
// catches the stop signals for a command that must clean up itself before
// it dies of one.
//
// Where the kernel does the cleaning (kernelCleansUp: git children carry
// a parent-death signal, outputs are unnamed files until published), the
// kernel's default actions are already the contract: death by the same
// signal, as for the script's bash. Catching them costs two threads at
// start-up, a tenth of a short command's time, so there it is done only
// once a temporary name is about to be made (atomicfile.BeforeNamed),
// before it exists.
type handler struct {
	armOnce, loopOnce sync.Once
	stop              context.CancelCauseFunc
	sigs              chan os.Signal   // for loop
	seen              chan os.Signal   // the same signals, kept for caught
	armed             []syscall.Signal // the stop signals arm catches
	restore           []func()         // give the runtime its handlers back (takeDefault)
	mu                sync.Mutex
	listening         map[os.Signal]bool // what listen has caught (caught's wait)
}

// listen catches sigs from now on.
func (h *handler) listen(sigs ...syscall.Signal) {
	h.loopOnce.Do(func() { go h.loop() })
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.listening == nil {
		h.listening = map[os.Signal]bool{}
	}
	for _, s := range sigs {
		h.listening[s] = true
		signal.Notify(h.sigs, s)
		signal.Notify(h.seen, s)
	}
}

// caught returns the first caught signal the command acts on, nil if none
// came. The process may have got one while the command was ending anyway:
// sent to the process group, a signal also kills git, and the command
// then sees git's end (128+N) before loop has seen the signal. The kernel
// made it pending for the command before git could end, but the thread it
// woke to take it in may not have run yet (a loaded machine): so when git
// died of a signal the command catches (err), it is waited for, a moment
// at most (lateSignal). Stopping the delivery to seen then waits until
// every signal the runtime has taken in is in it.
func (h *handler) caught(err error) os.Signal {
	if h.catches(diedOf(err)) {
		late := time.After(lateSignal)
	wait:
		for {
			select {
			case s := <-h.seen:
				if !passedOver(s) {
					signal.Stop(h.seen)
					return s
				}
			case <-late:
				break wait
			}
		}
	}
	signal.Stop(h.seen)
	for {
		select {
		case s := <-h.seen:
			if !passedOver(s) {
				return s
			}
		default:
			return nil
		}
	}
}

// lateSignal bounds the wait for a signal that killed git too. Sent to the
// group it comes within a scheduling delay; the wait is whole only when
// someone signalled git alone.
const lateSignal = time.Second

// diedOf is the signal that killed the git err reports, nil if none did.
func diedOf(err error) os.Signal {
	var ge *git.Error
	if errors.As(err, &ge) && ge.Signal != 0 {
		return ge.Signal
	}
	return nil
}

// catches reports whether s is caught and acted on.
func (h *handler) catches(s os.Signal) bool {
	if s == nil || passedOver(s) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.listening[s]
}

// arm catches the stop signals from now on.
func (h *handler) arm() {
	h.armOnce.Do(func() {
		h.listen(h.armed...)
		// Caught first, then handed back to the runtime's handler, which
		// delivers them: until then the kernel's default still applies,
		// and no name exists yet.
		for _, restore := range h.restore {
			restore()
		}
	})
}

// loop waits for a stop signal, stops the command (git gets the same
// signal), lets it unwind, and dies of the signal.
func (h *handler) loop() {
	sig := h.next(nil)
	h.stop(&exit.Signaled{Signal: sig})
	// Give the command time to unwind; a blocked open (a FIFO with no
	// reader) cannot be interrupted, so then leave anyway, tidily. A
	// second signal means now.
	h.next(time.After(gracePeriod))
	atomicfile.RemoveTracked()
	die(sig)
}

// next waits for a caught signal the command acts on, or for timeout.
func (h *handler) next(timeout <-chan time.Time) os.Signal {
	for {
		select {
		case s := <-h.sigs:
			if !passedOver(s) {
				return s
			}
		case <-timeout:
			return nil
		}
	}
}
