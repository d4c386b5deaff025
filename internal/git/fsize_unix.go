//go:build !windows

package git

import "syscall"

// fileSizeSignal kills a process that writes past its file size limit
// (ulimit -f).
const fileSizeSignal = syscall.SIGXFSZ
