package workspace

import (
	"path/filepath"
	"strings"
)

// Identity names plan for its workspace marker: its path with symlinks
// resolved, relative to the repository root when inside it (forward slashes
// on every OS), absolute otherwise. Every spelling of one plan — relative,
// absolute, through "..", through a symlinked directory — gives the same
// identity. parent is the name of the plan's real parent directory, used to
// tell same-basename plans apart.
func Identity(root, plan string) (id, parent string, err error) {
	abs, err := filepath.Abs(plan)
	if err != nil {
		return "", "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", err
	}
	realRoot, err := filepath.EvalSymlinks(filepath.FromSlash(root))
	if err != nil {
		return "", "", err
	}
	id = filepath.ToSlash(real)
	if rel, ok := within(realRoot, real); ok {
		id = filepath.ToSlash(rel)
	}
	return id, parentName(real), nil
}

// within reports path relative to root when path is inside root.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// parentName is the last element of path's directory, or "" when that is
// the file system root or a volume, which cannot be part of a name.
func parentName(path string) string {
	dir := filepath.Dir(path)
	name := filepath.Base(dir)
	if name == "." || name == string(filepath.Separator) || name == "" || strings.HasSuffix(name, ":") || dir == filepath.VolumeName(dir)+string(filepath.Separator) {
		return ""
	}
	return name
}
