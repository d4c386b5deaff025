//go:build unix

package main

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// alive reports whether a process pid exists (signal 0 checks without
// sending; EPERM is another user's process).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// die ends the process by sig, with the default action the Go runtime
// takes for SIGINT, SIGTERM and SIGHUP once no one catches them: the
// parent's wait status then says "killed by sig".
func die(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		os.Exit(1)
	}
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second) // delivered long before this
	os.Exit(128 + int(s))
}
