//go:build windows

package cliapp

import "os"

// kernelCleansUp: on Windows the command stops git and removes its
// temporary files itself, so it catches the stop signals from the start.
const kernelCleansUp = false

// statusControlCExit is what a Windows console program exits with when
// Ctrl-C (or a close event) ends it by the default handler:
// STATUS_CONTROL_C_EXIT.
const statusControlCExit = 0xC000013A

// die ends the process as Windows ends a console program on Ctrl-C: there
// is no death by signal to re-raise.
func die(os.Signal) { os.Exit(statusControlCExit) }
