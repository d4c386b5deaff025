package testutil

import "syscall"

// UnderWine reports whether this Windows process runs under Wine (whose
// ntdll.dll exports wine_get_version), where make test-windows runs the
// suites: a testscript's [wine] condition marks what Wine cannot do that
// Windows does.
func UnderWine() bool {
	return syscall.NewLazyDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
