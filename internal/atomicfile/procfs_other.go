//go:build !linux

package atomicfile

// onProcfs: only Linux leads /dev/stdout and /dev/fd/N to procfs links.
func onProcfs(string) bool { return false }
