//go:build linux

package git

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// On Linux git is started with syscall.ForkExec rather than os.StartProcess:
// the first os.StartProcess of a process probes pidfd support, which costs
// an extra short-lived child (clone, exit, waitid) on every run of every
// command, about a tenth of sdd-workspace's whole time. Without a pidfd the
// usual race of signalling a pid that was reaped and reused is closed as
// os.Process closes it: wait without reaping (WNOWAIT), mark the child
// done under a lock, then reap; a signal takes the lock and is sent only
// to a child not yet marked done, whose pid is still held by its zombie.

// proc is a started git.
type proc struct {
	pid  int
	mu   sync.Mutex
	done bool
}

// closedFD asks ForkExec to leave a descriptor closed in the child.
const closedFD = ^uintptr(0)

// spawn starts path with args (args[0] included) and the three standard
// files; a nil file is closed in the child (git then opens /dev/null
// there itself).
func spawn(path string, args []string, files [3]*os.File) (*proc, error) {
	var fds [3]uintptr
	for i, f := range files {
		fds[i] = closedFD
		if f != nil {
			fds[i] = f.Fd()
		}
	}
	// Pdeathsig: if the command dies (of a signal it does not catch, or
	// SIGKILL), git gets SIGTERM and stops with it. (Go never ends the
	// thread that forked, which is what the kernel watches.)
	pid, err := syscall.ForkExec(path, args, &syscall.ProcAttr{Env: os.Environ(), Files: fds[:],
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}})
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return &proc{pid: pid}, nil
}

// pWaitNoReap are waitid's P_PID and WEXITED|WNOWAIT.
const (
	pPID      = 1
	waitFlags = syscall.WEXITED | syscall.WNOWAIT
)

// wait blocks until the child exits and returns its wait status.
func (p *proc) wait() (syscall.WaitStatus, error) {
	var info [128]byte // siginfo_t; its contents are not needed
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(p.pid), uintptr(unsafe.Pointer(&info)), waitFlags, 0, 0)
		if e != syscall.EINTR {
			break // ENOSYS and the like: wait4 below still reaps
		}
	}
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// signal sends sig to the child unless it has already exited.
func (p *proc) signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		s = syscall.SIGKILL
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	return syscall.Kill(p.pid, s)
}
