//go:build !windows

package testutil

// UnderWine is false off Windows.
func UnderWine() bool { return false }
