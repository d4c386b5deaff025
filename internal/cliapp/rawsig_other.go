//go:build !windows && !(linux && !mips && !mipsle && !mips64 && !mips64le)

package cliapp

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// kernelCleansUp: elsewhere the command stops git and removes its
// temporary files itself, so it catches the stop signals from the start.
const kernelCleansUp = false

// takeDefault and takeIgnore are for kernelCleansUp only.
func takeDefault(syscall.Signal) func() { return nil }
func takeIgnore(syscall.Signal)         {}

// die ends the process by sig with its default action, so the parent's
// wait status says "killed by sig", as it would for the script, where the
// Go runtime's own default does that (SIGHUP, SIGINT, SIGTERM). Any other
// signal it would ignore or turn into a goroutine dump: the command exits
// with the status a shell shows for death by it, 128+N.
func die(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		os.Exit(128 + 9)
	}
	if runtimeEnds(s) {
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second) // the signal is delivered long before this
	}
	os.Exit(128 + int(s))
}
