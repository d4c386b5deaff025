package scripted

import (
	"context"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sh(script string) func(context.Context) *exec.Cmd {
	return func(ctx context.Context) *exec.Cmd { return exec.CommandContext(ctx, "sh", "-c", script) }
}

func TestRunCLI(t *testing.T) {
	dir := t.TempDir()
	var out []byte
	read := func(r io.Reader) { out, _ = io.ReadAll(r) }

	run, err := RunCLI(sh(`pwd; echo "$X"; echo oops >&2`), dir, []string{"X=given"}, time.Minute, nil, read)
	require.NoError(t, err)
	assert.NoError(t, run.Err)
	assert.Equal(t, dir+"\ngiven\n", string(out), "stdout to read, in dir with env")
	assert.Equal(t, "oops\n", run.Stderr)

	run, err = RunCLI(sh(`exec sleep 30`), dir, nil, 200*time.Millisecond, nil, read)
	require.NoError(t, err)
	assert.ErrorContains(t, run.Err, "no end after 200ms")
	assert.Less(t, run.Elapsed, 10*time.Second)

	failed := make(chan struct{})
	time.AfterFunc(200*time.Millisecond, func() { close(failed) })
	run, err = RunCLI(sh(`exec sleep 30`), dir, nil, time.Minute, failed, read)
	require.NoError(t, err)
	assert.Error(t, run.Err, "ended at the first failure")
	assert.NotContains(t, run.Err.Error(), "no end after")
	assert.Less(t, run.Elapsed, 10*time.Second)
}
