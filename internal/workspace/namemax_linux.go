package workspace

import "syscall"

// nameMax is the longest name, in bytes, the file system holding dir
// takes (statfs's f_namelen, what `getconf NAME_MAX dir` prints), 255
// when it cannot be asked.
func nameMax(dir string) int {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil || st.Namelen <= 0 {
		return 255
	}
	return int(st.Namelen)
}
