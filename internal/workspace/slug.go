package workspace

// Slug is the workspace name the bash script derives with
// `slug=$(basename "$plan" .md)`; ok is false for a name no directory can
// have. On Windows both separators split the path.
func Slug(plan string) (slug string, ok bool) { return host.slug(plan) }
