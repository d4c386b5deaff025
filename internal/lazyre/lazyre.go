// Package lazyre holds regular expressions compiled on first use.
//
// Every command links the packages that hold them (through
// internal/commands), and a package's variables are initialised on every
// run: compiled at start-up, an expression that only one verb reads costs
// every run of every command (sdd-workspace reads none), which
// TestStartupInitializesLittle refuses.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp ever after.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
