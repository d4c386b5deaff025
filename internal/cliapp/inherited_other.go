//go:build !windows && !(linux && !mips && !mipsle && !mips64 && !mips64le && sdd_inherited_signals)

package cliapp

import (
	"os/signal"
	"syscall"
)

// ignoredAtStart reports whether s was ignored when the process started,
// as far as the Go runtime lets it be known without its own record (see
// inherited_linux.go): for SIGHUP and SIGINT. Any other signal ignored at
// start is taken for one at its default.
func ignoredAtStart(s syscall.Signal) bool { return signal.Ignored(s) }
