//go:build linux && !mips && !mipsle && !mips64 && !mips64le && sdd_inherited_signals

package cliapp

import (
	"syscall"
	_ "unsafe" // go:linkname
)

// runtimeSigtable is the Go runtime's table of what it does with each
// signal it handles (runtime.sigtable: sigTabT{flags int32, name string}
// in runtime/signal_unix.go, _NSIG entries). Reached as runtimeFwdSig is,
// with the linker's -checklinkname=0 that the shipped build passes with
// this file's tag.
//
//go:linkname runtimeSigtable runtime.sigtable
var runtimeSigtable [65]struct {
	flags int32
	name  string
}

// sigKill is the runtime's _SigKill flag: a signal that no signal.Notify
// takes ends the process quietly, by that same signal.
const sigKill = 1 << 1

// killQuietly makes a fault signal sent to the process (kill) end it by
// that signal from the runtime's own handler, as the kernel's default
// would, and reports that it did. Without this the runtime prints a
// goroutine dump and exits 2; the other way to keep that from happening,
// catching the signal from the start, starts the goroutine that receives
// signals, and with it a thread, on every run. A real fault of the
// process is not sent: a bad address or arithmetic (SIGSEGV, SIGBUS,
// SIGFPE) still becomes a Go panic, and the runtime's own abort still a
// crash report, both decided before the flag is looked at; a real SIGILL,
// SIGTRAP, SIGSYS or SIGSTKFLT, which it would report with a dump, now
// ends the process by that signal, as the kernel ends a C program.
func killQuietly(s syscall.Signal) bool {
	runtimeSigtable[s].flags |= sigKill
	return true
}
