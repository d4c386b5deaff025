package scripted

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// Run is how a host CLI's session process went.
type Run struct {
	Err     error // the process's; "no end after …" wraps it on a timeout
	Stderr  string
	Elapsed time.Duration
}

// RunCLI runs a host CLI's session: the command cmd makes (bound to the
// context it is given) in dir with env, its stdout handed to read as it
// comes. It ends the process when timeout passes, or as soon as failed is
// closed (a script failed: waiting on would only run into the timeout).
func RunCLI(cmd func(context.Context) *exec.Cmd, dir string, env []string, timeout time.Duration, failed <-chan struct{}, read func(io.Reader)) (Run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case <-failed:
			cancel()
		case <-ctx.Done():
		}
	}()
	c := cmd(ctx)
	c.Dir, c.Env = dir, env
	c.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	c.Stderr = &stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		return Run{}, err
	}
	read(stdout)
	r := Run{Err: c.Wait(), Elapsed: time.Since(start), Stderr: stderr.String()}
	if ctx.Err() == context.DeadlineExceeded {
		r.Err = fmt.Errorf("no end after %v: %w", timeout, r.Err)
	}
	return r, nil
}
