//go:build !windows && !darwin

package workspace

// sameIdentity compares plan identities byte for byte, as the file system
// compares names.
func sameIdentity(a, b string) bool { return a == b }
