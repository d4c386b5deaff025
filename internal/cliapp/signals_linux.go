//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package cliapp

import "syscall"

// osStopSignals are Linux's own stop signals.
var osStopSignals = []syscall.Signal{syscall.SIGPWR, syscall.SIGSTKFLT}

// osFault: SIGSTKFLT is one of the runtime's crash signals.
func osFault(s syscall.Signal) bool { return s == syscall.SIGSTKFLT }
