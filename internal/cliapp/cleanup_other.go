//go:build !linux

package cliapp

// kernelCleansUp: elsewhere the command stops git and removes its
// temporary files itself, so it catches the stop signals from the start.
const kernelCleansUp = false
