package testutil

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes this test binary the helper of
// TestCommandsStartWithDefaultSignals: it undoes its ignored signals
// when told, and prints what a process it starts has ignored.
const helperEnv = "SDD_TESTUTIL_SIGNALS_HELPER"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(helperEnv); ok {
		if mode == "undo" {
			CommandsStartWithDefaultSignals()
		}
		out, err := exec.Command("grep", "^SigIgn:", "/proc/self/status").Output()
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.Write(out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A test run started with SIGHUP and SIGINT ignored (nohup, a job sh
// puts in the background) starts its commands with neither ignored;
// without CommandsStartWithDefaultSignals both would be. (The runtime
// takes SIGQUIT over, ignored or not, so no command gets it ignored.)
func TestCommandsStartWithDefaultSignals(t *testing.T) {
	ignoredBy := func(mode string) uint64 {
		cmd := exec.Command("sh", "-c", `trap '' HUP INT; exec "$0"`, os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+mode)
		out, err := cmd.Output()
		require.NoError(t, err)
		m := regexp.MustCompile(`^SigIgn:\s*([0-9a-f]+)\n$`).FindStringSubmatch(string(out))
		require.NotNil(t, m, "%q", out)
		mask, err := strconv.ParseUint(m[1], 16, 64)
		require.NoError(t, err)
		return mask
	}
	const hupInt = 1<<0 | 1<<1 // bit N-1 is signal N: SIGHUP 1, SIGINT 2
	assert.Equal(t, uint64(hupInt), ignoredBy("keep")&hupInt, "handed on as ignored when nothing is undone")
	assert.Zero(t, ignoredBy("undo")&hupInt, "undone")
}
