package git

import "syscall"

// sysProcAttr gives git a parent-death signal: if the command dies (of a
// signal it does not catch, or SIGKILL), git gets SIGTERM and stops with
// it. The kernel sends it when the thread that started git ends, not the
// process (go.dev/issue/27505): run keeps its goroutine on that thread
// until git has been reaped, so no other goroutine can end the thread.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
