//go:build !windows

package cliapp

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/sdd-go/sdd-go/internal/exit"
)

// stopSignals are the signals whose default action ends a process: each
// ends the script's bash, and so ends the command by the same signal, git
// stopped and temporary files removed (docs/spec.md every-signals has the
// table of every signal, measured against the script). The others keep
// their default: SIGCHLD, SIGURG and SIGWINCH are ignored, SIGCONT
// continues, SIGTSTP, SIGTTIN and SIGTTOU stop; SIGQUIT, which bash
// ignores, is quitSignal. With osStopSignals, the system's own, they are
// two lists laid out by the compiler, not one built at every start.
var stopSignals = []syscall.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGPROF,
	syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGPIPE, syscall.SIGABRT,
	syscall.SIGILL, syscall.SIGTRAP, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGSYS,
}

// quitSignal is ignored by the command itself, as bash ignores it, while
// git keeps its default: sent to the process group (Ctrl-\), git dies of
// it and the command exits 131 as the script does (git's 128+N); sent to
// the command alone, it runs to its end, as the script does.
const quitSignal = syscall.SIGQUIT

// runtimeEnds reports a signal the Go runtime already ends the process by,
// with its own death by that signal: until a temporary name is about to be
// made, the runtime's default is the contract (and it keeps SIGHUP and
// SIGINT ignored when they were ignored at start).
func runtimeEnds(s syscall.Signal) bool {
	return s == syscall.SIGHUP || s == syscall.SIGINT || s == syscall.SIGTERM
}

// fault reports a signal the kernel raises for a fault of the process's
// own (a bad address, a bad instruction, a seccomp filter), which the Go
// runtime must keep handling: it turns a real one into a panic or a crash
// report. A sent one (kill) must end the command by that signal from the
// start: where the runtime's table can say so (killQuietly) it does, and
// the signal is caught only once a temporary name is about to be made;
// elsewhere it is caught from the start, which starts the goroutine that
// receives signals, and a thread for it.
func fault(s syscall.Signal) bool {
	switch s {
	case syscall.SIGILL, syscall.SIGTRAP, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGSYS:
		return true
	}
	return osFault(s)
}

// ownWrites reports a signal the kernel raises for a write of the
// process's own that it then fails: SIGXFSZ under a file size limit. There
// the write's EFBIG is the failure reported (file too large, exit 1, no
// output left), so the signal is left to the runtime, which ignores it.
// With no limit the kernel never raises it, and a SIGXFSZ is sent.
func ownWrites(s syscall.Signal) bool {
	if s != syscall.SIGXFSZ {
		return false
	}
	var rl syscall.Rlimit
	return syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl) != nil || rl.Cur != ^uint64(0) // RLIM_INFINITY
}

// start sets each signal's action before the command runs.
//
// A signal ignored at start stays ignored, for git too (signal.Ignore: git
// inherits the ignored action, as under the script). Where the kernel
// cleans up (kernelCleansUp), nothing is caught yet but the faults: the
// runtime ends the process by SIGHUP, SIGINT and SIGTERM, the other stop
// signals get the kernel's default action (the runtime would ignore them,
// or print a goroutine dump and exit 2), and SIGQUIT is ignored; arm
// catches the stop signals once a temporary name is about to be made.
// Elsewhere every stop signal is caught at once.
func (h *handler) start() {
	for _, s := range stopSignals {
		h.set(s)
	}
	for _, s := range osStopSignals {
		h.set(s)
	}
	switch {
	case ignoredAtStart(quitSignal):
		signal.Ignore(quitSignal)
	case kernelCleansUp:
		// The runtime's handler stays recorded, so git, started after a
		// fork that resets the handled signals, gets the default.
		takeIgnore(quitSignal)
	default:
		h.listen(quitSignal) // caught and passed over (passedOver)
	}
}

// set sets the action of s, a stop signal, at start.
func (h *handler) set(s syscall.Signal) {
	switch {
	case ignoredAtStart(s):
		signal.Ignore(s)
	case ownWrites(s):
	case fault(s):
		if killQuietly(s) {
			// Sent, it ends the process by itself until a temporary name
			// is about to be made; from then on it is caught, so that the
			// name is removed first.
			h.armed = append(h.armed, s)
		} else {
			h.listen(s)
		}
	case s == syscall.SIGPROF:
		// The runtime keeps SIGPROF for its profiler: signal.Notify
		// cannot catch it. Where the kernel's default can be set, it
		// ends the command for the whole run, as it ends the script,
		// but leaves a temporary name that exists at that moment.
		if kernelCleansUp {
			takeDefault(s)
		}
	default:
		h.armed = append(h.armed, s)
		if kernelCleansUp && !runtimeEnds(s) {
			if restore := takeDefault(s); restore != nil {
				h.restore = append(h.restore, restore)
			}
		}
	}
}

// passedOver reports a caught signal the command does not act on.
func passedOver(s os.Signal) bool { return s == quitSignal }

// brokenPipe turns a write into a pipe nobody reads (EPIPE: the success
// line on a stdout whose reader is gone, an OUTFILE that is such a pipe or
// FIFO) into death by SIGPIPE, as the script dies of it, unless SIGPIPE
// was ignored at start: then it is the write error it is, exit 1, as the
// script's echo reports it.
func brokenPipe(err error) error {
	if err != nil && errors.Is(err, syscall.EPIPE) && !signal.Ignored(syscall.SIGPIPE) {
		return &exit.Signaled{Signal: syscall.SIGPIPE}
	}
	return err
}
