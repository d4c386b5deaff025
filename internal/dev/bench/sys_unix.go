//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is ru_maxrss of a finished child, in bytes; it covers the
// child's own waited-for children.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // kilobytes elsewhere
}

// flushDirty writes dirty pages out, so one large run's writeback does not
// land in the next one's time.
func flushDirty() { syscall.Sync() }
