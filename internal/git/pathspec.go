package git

// AllBut is the pathspec, after "--", of the whole repository but path
// (from the repository's top, taken literally, whatever the caller's
// folder); "" for the whole repository: just "--".
func AllBut(path string) []string {
	if path == "" {
		return []string{"--"}
	}
	return []string{"--", ":/", ":(top,exclude,literal)" + path}
}
