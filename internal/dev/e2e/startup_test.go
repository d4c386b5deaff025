package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// maxInitBytes is what one of our packages may allocate while the program
// starts, before main: a few variables, never a compiled table.
const maxInitBytes = 4096

// Every command pays for the initialisation of every package it links,
// on every run, whether it uses the package or not: sdd-workspace links
// the ledger's package through internal/commands, and compiling its
// regular expressions at start-up cost each run 0.5 ms of a 4 ms run
// (docs/bench.md). Measured with the runtime's own init trace.
func TestStartupInitializesLittle(t *testing.T) {
	t.Parallel()
	for _, name := range ship.Commands {
		t.Run(name, func(t *testing.T) {
			res := testutil.RunIn(t.TempDir(), append(testutil.NewRepo(t).Env, "GODEBUG=inittrace=1"), testutil.Bin(t, name), "--version")
			require.Equal(t, 0, res.Code, res.Stderr)
			seen := 0
			for _, line := range strings.Split(res.Stderr, "\n") {
				// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
				f := strings.Fields(line)
				if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/sdd-go/") {
					continue
				}
				seen++
				require.Equal(t, "bytes,", f[8], line)
				n, err := strconv.Atoi(f[7])
				require.NoError(t, err, line)
				assert.LessOrEqual(t, n, maxInitBytes, "%s allocates at start-up: %s", f[1], line)
			}
			require.NotZero(t, seen, "no init trace of our packages in:\n%s", res.Stderr)
		})
	}
}
