//go:build linux

package cliapp

// kernelCleansUp: on Linux git children get SIGTERM when the command dies
// (internal/git sets a parent-death signal) and outputs are unnamed files
// until published (internal/atomicfile), so dying of a signal leaves
// nothing running and nothing behind, until a temporary name is about to
// be made (atomicfile.BeforeNamed).
const kernelCleansUp = true
