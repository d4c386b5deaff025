package ledger

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Every command links this
// package (through internal/commands), and a package's variables are
// initialised on every run: compiled at start-up, the ledger's expressions
// cost each run of sdd-workspace, which never reads a ledger, half a
// millisecond.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
