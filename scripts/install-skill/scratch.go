package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The installer's temporaries: each file is written beside its place under
// a name of its own and renamed into it, so no one ever sees half a file;
// binaries are built into a temporary folder. None of them may outlive the
// run.
//
// A run stopped by a signal (Ctrl-C, SIGTERM, a closed terminal) removes
// them before it dies of the signal (stopOnSignals). A run killed outright
// (SIGKILL, a crash, a power cut) cannot, so every run first removes, in
// each folder of the install, the temporaries of runs that have ended
// (sweep): the name carries the pid of the run that made it, so two runs
// at once never remove each other's. An unnamed file (Linux's O_TMPFILE)
// would leave nothing even then, but exists on Linux alone, and the
// installer works the same everywhere.

// tempMark names a temporary file: .<name>.sdd-go-new-<pid>-<n> beside
// <name>, hidden, and run by no shell.
const tempMark = ".sdd-go-new-"

// scratchSet is what the run has made that must not outlive it.
type scratchSet struct {
	mu     sync.Mutex
	files  map[string]*os.File // temporary files, by path
	dirs   map[string]bool     // temporary folders
	child  chan struct{}       // closed when the child writing into one (the build) ends
	ending bool                // a signal came: nothing new begins
	n      int                 // the last <n> of a name
}

var scratch = scratchSet{files: map[string]*os.File{}, dirs: map[string]bool{}}

// enter locks s, or, once a signal came, blocks for good: the process is
// about to die, and must begin nothing new.
func (s *scratchSet) enter() {
	s.mu.Lock()
	if s.ending {
		s.mu.Unlock()
		select {}
	}
}

// wait returns at once, unless a signal came (see enter).
func (s *scratchSet) wait() {
	s.enter()
	s.mu.Unlock()
}

// create makes a new temporary file for name in the folder parent.
func (s *scratchSet) create(parent, name string) (*os.File, string, error) {
	s.enter()
	defer s.mu.Unlock()
	for {
		s.n++
		p := under(parent, fmt.Sprintf(".%s%s%d-%d", name, tempMark, os.Getpid(), s.n))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		s.files[p] = f
		return f, p, nil
	}
}

// settle ends the temporary file tmp: if err is nil, put gives it its
// place; if either failed, it is removed.
func (s *scratchSet) settle(tmp string, err error, put func() error) error {
	s.enter()
	defer s.mu.Unlock()
	delete(s.files, tmp)
	if err == nil {
		err = put()
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// mkdirTemp makes a temporary folder in the system's temporary directory.
func (s *scratchSet) mkdirTemp(pattern string) (string, error) {
	s.enter()
	defer s.mu.Unlock()
	d, err := os.MkdirTemp("", pattern)
	if err == nil {
		s.dirs[d] = true
	}
	return d, err
}

func (s *scratchSet) removeDir(d string) {
	s.enter()
	defer s.mu.Unlock()
	_ = os.RemoveAll(d)
	delete(s.dirs, d)
}

// runChild runs f, which runs a child process writing into a temporary
// folder (the build): a stop lets it end before removing the folder, which
// it would otherwise write on into.
func (s *scratchSet) runChild(f func() error) error {
	s.enter()
	done := make(chan struct{})
	s.child = done
	s.mu.Unlock()
	err := f()
	s.mu.Lock()
	s.child = nil
	close(done)
	s.mu.Unlock()
	return err
}

// stop ends the run's work: nothing new begins, a running child is let
// end (or not, on a second signal in again), and the temporaries are
// removed. s stays locked: the process dies next.
func (s *scratchSet) stop(again <-chan os.Signal) {
	s.mu.Lock()
	s.ending = true
	child := s.child
	s.mu.Unlock()
	if child != nil {
		select {
		case <-child:
		case <-again:
		}
	}
	s.mu.Lock()
	for p, f := range s.files {
		_ = f.Close() // Windows removes no open file
		_ = os.Remove(p)
	}
	for d := range s.dirs {
		_ = os.RemoveAll(d)
	}
}

// stopOnSignals makes SIGINT (Ctrl-C), SIGTERM and SIGHUP (a closed
// terminal) end the run tidily, then the process by the same signal, so a
// shell or make running it sees a run interrupted, not one that failed.
// From a terminal the build got the signal too and ends at once; sent to
// the installer alone, the build is let finish, unless a second signal
// comes. It returns what main calls before it exits: a signal that came
// as the run ended is acted on all the same.
func stopOnSignals() (finish func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ended, finished := make(chan struct{}), make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-ended:
			signal.Stop(sigs) // every signal the process got is in sigs now
			select {
			case sig = <-sigs:
			default:
				close(finished)
				return
			}
		}
		scratch.stop(sigs)
		die(sig)
	}()
	return func() {
		close(ended)
		<-finished
	}
}

// writeBeside writes data with mode to a temporary file beside name in
// the folder parent, then gives it its place with put(tmp, path), so a
// reader never sees half a file; the temporary file is removed if that
// fails.
func writeBeside(parent, name string, data []byte, mode fs.FileMode, put func(tmp, path string) error) error {
	f, tmp, err := scratch.create(parent, name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return scratch.settle(tmp, err, func() error { return put(tmp, under(parent, name)) })
}

// sweep removes what earlier runs left in the folders of dir holding the
// install's paths rels (slash-separated): files moved aside (aside.go),
// where they can be removed now, temporaries of runs that have ended, and
// those of the installer before this one, .<name>.tmp-<digits> beside
// <name> (it wrote no pid, and no later run removed them).
func sweep(dir string, rels []string) {
	own := map[string]map[string]bool{} // folder → the install's names in it
	for _, rel := range rels {
		parent, name := split(dir, rel)
		if own[parent] == nil {
			own[parent] = map[string]bool{}
		}
		own[parent][name] = true
	}
	for parent, names := range own {
		ents, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.Type().IsRegular() && left(e.Name(), names) {
				_ = os.Remove(under(parent, e.Name()))
			}
		}
	}
}

// left reports whether a file called name, in a folder holding the
// install's names, is one an earlier run left there.
func left(name string, names map[string]bool) bool {
	hidden, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false
	}
	if strings.Contains(hidden, asideMark) {
		return true
	}
	if i := strings.LastIndex(hidden, tempMark); i > 0 {
		pid, _, _ := strings.Cut(hidden[i+len(tempMark):], "-")
		n, err := strconv.Atoi(pid)
		return err == nil && n != os.Getpid() && !alive(n)
	}
	if i := strings.LastIndex(hidden, ".tmp-"); i > 0 && names[hidden[:i]] {
		digits := hidden[i+len(".tmp-"):]
		return digits != "" && strings.Trim(digits, "0123456789") == ""
	}
	return false
}
