package cliapp

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals: Ctrl-C and Ctrl-Break arrive as SIGINT; closing the console,
// logging off and shutting down as SIGTERM.
var stopSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// start: every stop signal not ignored is caught at once.
func (h *handler) start() {
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			h.armed = append(h.armed, s)
		}
	}
}

func passedOver(os.Signal) bool { return false }

// brokenPipe: Windows has no SIGPIPE to die of.
func brokenPipe(err error) error { return err }
