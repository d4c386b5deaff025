package atomicfile

import "syscall"

// procSuperMagic is procfs's f_type in statfs(2) (PROC_SUPER_MAGIC).
const procSuperMagic = 0x9fa0

// onProcfs reports whether dir (a directory part as dirOf returns it) is
// on procfs: the links there (/proc/<pid>/fd/N, which /dev/stdout,
// /dev/stderr and /dev/fd/N lead to) are the kernel's own, standing for a
// file the process has open (a pipe, a deleted file), and no file can be
// made there. The file system's type is what the kernel says of the
// directory itself; a link's text ("pipe:[N]", "/x (deleted)") is no
// evidence, since an ordinary link may hold any text.
func onProcfs(dir string) bool {
	if dir == "" {
		dir = "."
	}
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Type == procSuperMagic
}
