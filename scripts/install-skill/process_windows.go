//go:build windows

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// alive reports whether a process pid exists and has not ended.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED) // another user's
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) != nil || code == 259 // STILL_ACTIVE
}

// die exits with STATUS_CONTROL_C_EXIT, the status Windows gives a console
// program that Ctrl-C ended: there is no death by a signal to re-raise.
func die(os.Signal) { os.Exit(0xC000013A) }
