//go:build !linux

package git

import "syscall"

// sysProcAttr: there is no parent-death signal outside Linux; a command
// stopped by a signal stops git itself (see run).
func sysProcAttr() *syscall.SysProcAttr { return nil }
