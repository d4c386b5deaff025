//go:build windows || darwin

package workspace

import "strings"

// sameIdentity compares plan identities as the file system compares names:
// case-insensitively on Windows and on macOS's default volumes, where
// Docs/Plan.md and docs/plan.md are one file.
func sameIdentity(a, b string) bool { return strings.EqualFold(a, b) }
