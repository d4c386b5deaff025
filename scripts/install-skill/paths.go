package main

import (
	"os"
	"path/filepath"
	"strings"
)

// under is the slash-separated rel inside dir, dir spelled as given: the
// kernel resolves it, where filepath.Join would clean it first, and
// link/.. is not where Clean puts it once link is a symlink.
func under(dir, rel string) string {
	if dir == filepath.VolumeName(dir) || os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + filepath.FromSlash(rel)
	}
	return dir + string(filepath.Separator) + filepath.FromSlash(rel)
}

// split is the folder of dir that holds rel, and rel's last name.
func split(dir, rel string) (parent, name string) {
	i := strings.LastIndex(rel, "/")
	if i < 0 {
		return dir, rel
	}
	return under(dir, rel[:i]), rel[i+1:]
}
