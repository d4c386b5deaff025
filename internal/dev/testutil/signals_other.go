//go:build !unix

package testutil

// CommandsStartWithDefaultSignals: no signal is handed on ignored here.
func CommandsStartWithDefaultSignals() {}
