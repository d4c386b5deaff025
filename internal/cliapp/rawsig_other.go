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
// wait status says "killed by sig", as it would for the script. A signal
// the Go runtime handles without ending the process (SIGUSR1) ends it with
// 128+N a second later.
func die(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second) // the signal is delivered long before this
		os.Exit(128 + int(s))
	}
	os.Exit(128 + 9)
}
