//go:build linux && !mips && !mipsle && !mips64 && !mips64le && sdd_inherited_signals

package cliapp

import (
	"os/signal"
	"syscall"
	_ "unsafe" // go:linkname
)

// runtimeFwdSig is the Go runtime's record of the action each signal had
// when the process started (runtime.fwdSig, filled by initsig before any
// package is initialised, and not changed after for a signal the runtime
// handles). It is the only place where an action a parent left (an empty
// trap, systemd's IgnoreSIGPIPE) survives: the runtime installs its own
// handler over it before any code of ours runs, and signal.Ignored knows
// the old action for SIGHUP and SIGINT only. Reading it needs the linker's
// -checklinkname=0, which the shipped build line passes with this file's
// tag (internal/dev/ship); a build without the tag (`go install`) uses
// inherited_other.go instead.
//
//go:linkname runtimeFwdSig runtime.fwdSig
var runtimeFwdSig [65]uintptr // [_NSIG]uintptr

const sigIgn = 1 // SIG_IGN

// ignoredAtStart reports whether s was ignored when the process started.
func ignoredAtStart(s syscall.Signal) bool {
	return int(s) < len(runtimeFwdSig) && runtimeFwdSig[s] == sigIgn || signal.Ignored(s)
}
