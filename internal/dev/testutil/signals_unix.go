//go:build unix

package testutil

import (
	"os"
	"os/signal"
	"syscall"
)

// CommandsStartWithDefaultSignals undoes, for the processes the tests
// start, a signal this test process was started with ignored. nohup
// starts a run with SIGHUP ignored, and sh a job it puts in the
// background with SIGINT ignored; exec hands an ignored signal on as
// ignored, and a command started with one keeps it ignored by rule
// (docs/spec.md), so every test of death by that signal would fail. A
// handler that drops the signal leaves this process as deaf to it as it
// was started, and exec gives the commands the default.
func CommandsStartWithDefaultSignals() {
	var ignored []os.Signal
	for s := syscall.Signal(1); s < 32; s++ {
		if s != syscall.SIGKILL && s != syscall.SIGSTOP && signal.Ignored(s) {
			ignored = append(ignored, s)
		}
	}
	if len(ignored) == 0 {
		return
	}
	dropped := make(chan os.Signal, 1)
	signal.Notify(dropped, ignored...)
	go func() {
		for range dropped {
		}
	}()
}
