//go:build !windows

package cliapp

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// die ends the process by sig with its default action, so the parent's
// wait status says "killed by sig", as it would for the script.
func die(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second) // the signal is delivered long before this
		os.Exit(128 + int(s))
	}
	os.Exit(128 + 9)
}
