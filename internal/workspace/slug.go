package workspace

import "strings"

// Slug is the workspace name the bash script derives with
// `slug=$(basename "$plan" .md)`: POSIX basename with the suffix removed only
// when something is left, then trailing newlines dropped as command
// substitution drops them. ok is false for a slug that cannot name a
// directory ("", "." or "..").
func Slug(plan string) (slug string, ok bool) {
	slug = strings.TrimRight(posixBasename(plan, ".md"), "\n")
	return slug, slug != "" && slug != "." && slug != ".."
}

// posixBasename follows POSIX basename(1): only '/' separates, trailing
// slashes go, "/" stays "/", and suffix is removed unless it is the whole
// name. It is deliberately not filepath.Base: the slug must not depend on
// the OS the binary runs on.
func posixBasename(s, suffix string) string {
	if s == "" {
		return ""
	}
	t := strings.TrimRight(s, "/")
	if t == "" {
		return "/"
	}
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		t = t[i+1:]
	}
	if suffix != "" && t != suffix && strings.HasSuffix(t, suffix) {
		t = t[:len(t)-len(suffix)]
	}
	return t
}
