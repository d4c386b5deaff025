//go:build !windows

package cliapp

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/git"
)

// A signal sent to the process group kills git too, and the command may
// see git's end before any thread of its own has taken the signal in (CI
// saw exit 130 for death by SIGINT). The command then waits for the signal
// git died of, and dies of it; here it is taken in 200 ms late.
func TestCaughtWaitsForTheSignalThatKilledGit(t *testing.T) {
	h := listeningHandler(t, syscall.SIGUSR1)
	late := time.AfterFunc(200*time.Millisecond, func() { _ = syscall.Kill(syscall.Getpid(), syscall.SIGUSR1) })
	t.Cleanup(func() { late.Stop() })

	gitDied := &git.Error{Args: []string{"diff"}, Status: 128 + int(syscall.SIGUSR1), Signal: syscall.SIGUSR1}
	assert.Equal(t, syscall.SIGUSR1, h.caught(gitDied))
}

// A git that died of a signal the command does not catch (its own closed
// pipe) is not waited for.
func TestCaughtDoesNotWaitForAnUncaughtSignal(t *testing.T) {
	h := listeningHandler(t, syscall.SIGUSR1)
	began := time.Now()
	assert.Nil(t, h.caught(&git.Error{Args: []string{"diff"}, Status: 141, Signal: syscall.SIGPIPE}))
	assert.Less(t, time.Since(began), lateSignal/2)
}

// listeningHandler is a handler that catches sigs, without the loop that
// would end the test process.
func listeningHandler(t *testing.T, sigs ...syscall.Signal) *handler {
	_, stop := context.WithCancelCause(context.Background())
	h := &handler{stop: stop, sigs: make(chan os.Signal, 2), seen: make(chan os.Signal, 8)}
	h.loopOnce.Do(func() {})
	h.listen(sigs...)
	t.Cleanup(func() { signal.Stop(h.sigs) })
	return h
}
