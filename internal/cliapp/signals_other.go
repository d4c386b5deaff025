//go:build !windows && !(linux && !mips && !mipsle && !mips64 && !mips64le)

package cliapp

import "syscall"

// osStopSignals: none beyond the common ones.
var osStopSignals []syscall.Signal

func osFault(syscall.Signal) bool { return false }
