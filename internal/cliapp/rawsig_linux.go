//go:build linux && !mips && !mipsle && !mips64 && !mips64le

package cliapp

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// kernelCleansUp: on Linux git children get SIGTERM when the command dies
// (internal/git sets a parent-death signal) and outputs are unnamed files
// until published (internal/atomicfile), so dying of a signal leaves
// nothing running and nothing behind, until a temporary name is about to
// be made (atomicfile.BeforeNamed). Until then a signal's action is the
// kernel's, as it is for the script's bash.
const kernelCleansUp = true

// sigaction is the kernel's struct sigaction as rt_sigaction(2) reads and
// writes it, kept opaque: the handler comes first on every architecture
// this file builds for (SIG_DFL is 0, SIG_IGN 1), and 32 bytes hold the
// largest (handler, flags, restorer, an 8-byte mask).
type sigaction [4]uint64

// rtSigaction sets sig's action to act (unless nil), returning the old one
// in old (unless nil). It goes under the Go runtime, which keeps its own
// record of the signals it handles: that record stays as it was, so git,
// started after a fork that resets every signal the runtime handles, gets
// the default action whatever this process has.
func rtSigaction(sig syscall.Signal, act, old *sigaction) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), 8, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// takeDefault gives sig the kernel's default action, in place of the Go
// runtime's handler, which would ignore it or print a goroutine dump; it
// returns how to give the runtime its handler back (nil if nothing was
// changed).
func takeDefault(sig syscall.Signal) (restore func()) {
	var old sigaction
	if rtSigaction(sig, &sigaction{}, &old) != nil {
		return nil
	}
	return func() { _ = rtSigaction(sig, &old, nil) }
}

// takeIgnore makes the process ignore sig.
func takeIgnore(sig syscall.Signal) { _ = rtSigaction(sig, &sigaction{1}, nil) }

// die ends the process by sig with its default action, so the parent's
// wait status says "killed by sig", as it would for the script: the
// kernel's default is set first, since the Go runtime would ignore most
// signals (SIGUSR1, a sent SIGSEGV) or turn them into a dump.
func die(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		os.Exit(128 + 9)
	}
	_ = rtSigaction(s, &sigaction{}, nil)
	_ = syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second) // the signal is delivered long before this
	os.Exit(128 + int(s))
}
