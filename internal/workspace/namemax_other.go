//go:build !linux

package workspace

// nameMax is the longest name, in bytes, a workspace may have: 255, the
// limit of macOS's and the BSDs' file systems (NAME_MAX); on Windows a
// name of 255 bytes is at most 255 UTF-16 units, NTFS's limit.
func nameMax(string) int { return 255 }
