// Package wintest holds the Windows-only end-to-end tests (wintest_test.go,
// built for windows) and, in its subpackages, what lets them run under Wine
// on Linux: the relay that runs the Linux git for a Windows stand-in
// git.exe. scripts/wintest (make test-windows) builds and runs them.
package wintest
