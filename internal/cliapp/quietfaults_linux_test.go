package cliapp_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestFaultSignals: a fault signal sent to a command ends it by that
// signal, printing nothing, and a real fault of the command is still the
// Go panic it was, in the shipped build (killQuietly: the runtime's table
// says so, nothing is caught at start) and in a plain build (caught from
// the start) alike.
func TestFaultSignals(t *testing.T) {
	root, dir := testutil.ModuleRoot(), t.TempDir()
	shipped := ship.Build{Root: root, Out: filepath.Join(dir, "shipped"), Only: []string{}, Extra: []string{"./internal/cliapp/testdata/faults"}}
	require.NoError(t, shipped.Run(context.Background()))
	plain := filepath.Join(dir, "plain", "faults")
	out, err := exec.Command("go", "build", "-C", root, "-o", plain, "./internal/cliapp/testdata/faults").CombinedOutput()
	require.NoError(t, err, string(out))

	for name, bin := range map[string]string{"shipped": filepath.Join(dir, "shipped", "faults"), "plain": plain} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "nil")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), stderr.String())
			assert.Equal(t, "recovered: runtime error: invalid memory address or nil pointer dereference\n", stdout.String())

			stdout.Reset()
			cmd = exec.Command(bin, "sent")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			ws := ee.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGSEGV, "killed by SIGSEGV, not %v", ws)
			assert.Empty(t, stderr.String(), "no runtime dump")
			assert.Empty(t, stdout.String())
		})
	}
}
