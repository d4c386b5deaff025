//go:build !windows && !(linux && !mips && !mipsle && !mips64 && !mips64le && sdd_inherited_signals)

package cliapp

import "syscall"

// killQuietly: without the runtime's table (quietfaults_linux.go), a sent
// fault signal is caught from the start instead.
func killQuietly(syscall.Signal) bool { return false }
