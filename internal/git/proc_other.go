//go:build !linux

package git

import (
	"os"
	"syscall"
)

// proc is a started git. Outside Linux os.StartProcess costs nothing extra
// (there is no pidfd probe), so it is used as it is.
type proc struct{ p *os.Process }

// spawn starts path with args (args[0] included) and the three standard
// files; a nil file is the null device.
func spawn(path string, args []string, files [3]*os.File) (*proc, error) {
	var attr os.ProcAttr
	for _, f := range files {
		if f == nil {
			null, err := os.Open(os.DevNull)
			if err != nil {
				return nil, err
			}
			defer null.Close()
			f = null
		}
		attr.Files = append(attr.Files, f)
	}
	p, err := os.StartProcess(path, args, &attr)
	if err != nil {
		return nil, err
	}
	return &proc{p: p}, nil
}

// wait blocks until the child exits and returns its wait status.
func (p *proc) wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	st, err := p.p.Wait()
	if err != nil {
		return ws, err
	}
	ws, _ = st.Sys().(syscall.WaitStatus)
	return ws, nil
}

// signal sends sig to the child unless it has already exited.
func (p *proc) signal(sig os.Signal) error {
	err := p.p.Signal(sig)
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}
