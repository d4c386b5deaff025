//go:build windows

package git

import "syscall"

// fileSizeSignal: Windows has no file size limit signal.
const fileSizeSignal = syscall.Signal(-1)
