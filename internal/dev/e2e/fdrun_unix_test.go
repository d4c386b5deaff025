//go:build !windows

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// fdRun runs a command with the given files as its descriptors 1, 2, 3, …
// (a nil one is a pipe read into the result, as testutil.RunIn does).
func fdRun(t *testing.T, dir string, env []string, bin string, files []*os.File, args ...string) testutil.Result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if len(files) > 0 && files[0] != nil {
		cmd.Stdout = files[0]
	}
	if len(files) > 1 && files[1] != nil {
		cmd.Stderr = files[1]
	}
	if len(files) > 2 {
		cmd.ExtraFiles = files[2:]
	}
	err := cmd.Run()
	res := testutil.Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee)
		res.Code = ee.ExitCode()
	}
	return res
}
