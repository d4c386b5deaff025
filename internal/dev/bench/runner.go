package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sample is one timed run of a variant.
type Sample struct {
	Wall time.Duration
	// CPU is user plus system time of the processes the variant started
	// (a command's rusage includes the git it ran). On a loaded machine it
	// moves much less than Wall.
	CPU time.Duration
	// TreeRSS is the largest ru_maxrss (bytes) of the processes the variant
	// started. On Linux a child's rusage covers its own waited-for children
	// too, so for a command this is the peak of the command or of any git
	// it ran, whichever was larger.
	TreeRSS int64
	// OwnRSS is the command process's own peak (VmHWM), sampled from /proc
	// while it runs; 0 when not sampled. It leaves git's memory out.
	OwnRSS int64
}

// Variant is one way of doing a case's work that the runner times.
type Variant struct {
	Name string
	// Prepare runs before every timed run, untimed.
	Prepare func() error
	Run     func(ctx context.Context) (Sample, error)
}

// Proc is one process to time.
type Proc struct {
	Path      string
	Args      []string
	Dir       string
	Env       []string
	Stdout    io.Writer // nil: captured and returned
	SampleRSS bool      // sample the process's own VmHWM while it runs
	// SampleEvery is the sampling period; 0 means 2 ms, which a run of
	// seconds does not feel.
	SampleEvery time.Duration
}

// RunProc runs p to completion and returns its sample and, when p.Stdout is
// nil, its stdout. A non-zero exit is an error carrying stderr.
func RunProc(ctx context.Context, p Proc) (Sample, []byte, error) {
	cmd := exec.CommandContext(ctx, p.Path, p.Args...)
	cmd.Dir = p.Dir
	cmd.Env = p.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = p.Stdout
	if p.Stdout == nil {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Sample{}, nil, err
	}
	var own int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	if p.SampleRSS {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own = sampleHWM(cmd.Process.Pid, cmp.Or(p.SampleEvery, 2*time.Millisecond), done)
		}()
	}
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	wg.Wait()
	s := Sample{Wall: wall, OwnRSS: own, CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	s.TreeRSS = maxRSS(cmd.ProcessState)
	if err != nil {
		return s, nil, fmt.Errorf("%s %s: %v: %s", p.Path, strings.Join(p.Args, " "), err, stderr.Bytes())
	}
	return s, stdout.Bytes(), nil
}

// sampleHWM polls /proc/pid/status for VmHWM until done is closed and
// returns the largest value seen, in bytes. The high-water mark only
// grows, so the last read before the process exits is close to its peak.
func sampleHWM(pid int, every time.Duration, done <-chan struct{}) int64 {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	var peak int64
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if v := readHWM(path); v > peak {
			peak = v
		}
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}

func readHWM(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// Measure runs every variant warmup times untimed, then rounds times
// timed, interleaved: round r runs each variant once, the order rotated by
// r so no variant always runs right after another. On a noisy machine this
// spreads drift over all variants alike.
func Measure(ctx context.Context, warmup, rounds int, variants []Variant) (map[string][]Sample, error) {
	out := make(map[string][]Sample, len(variants))
	for r := -warmup; r < rounds; r++ {
		for k := range variants {
			v := variants[(k+max(r, 0))%len(variants)]
			if v.Prepare != nil {
				if err := v.Prepare(); err != nil {
					return nil, fmt.Errorf("%s: prepare: %w", v.Name, err)
				}
			}
			s, err := v.Run(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v.Name, err)
			}
			if r >= 0 {
				out[v.Name] = append(out[v.Name], s)
			}
		}
	}
	return out, nil
}

// Median is the median wall time of samples (the mean of the middle two
// for an even count).
func Median(samples []Sample) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	w := make([]time.Duration, len(samples))
	for i, s := range samples {
		w[i] = s.Wall
	}
	slices.Sort(w)
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// MedianRatio is the median of a[i].Wall / b[i].Wall over the rounds both
// have; 0 when they have none.
func MedianRatio(a, b []Sample) float64 {
	var rs []float64
	for i := 0; i < len(a) && i < len(b); i++ {
		if b[i].Wall > 0 {
			rs = append(rs, float64(a[i].Wall)/float64(b[i].Wall))
		}
	}
	if len(rs) == 0 {
		return 0
	}
	slices.Sort(rs)
	n := len(rs)
	if n%2 == 1 {
		return rs[n/2]
	}
	return (rs[n/2-1] + rs[n/2]) / 2
}

// MedianCPU is the median CPU time of samples.
func MedianCPU(samples []Sample) time.Duration {
	c := make([]Sample, len(samples))
	for i, s := range samples {
		c[i] = Sample{Wall: s.CPU}
	}
	return Median(c)
}

// PeakRSS is the largest TreeRSS and OwnRSS over samples.
func PeakRSS(samples []Sample) (tree, own int64) {
	for _, s := range samples {
		tree = max(tree, s.TreeRSS)
		own = max(own, s.OwnRSS)
	}
	return tree, own
}

// GitCounter puts a logging git wrapper first on PATH so the git processes
// a command starts can be counted.
type GitCounter struct {
	dir string
	log string
}

// NewGitCounter writes the wrapper into dir, execing realGit.
func NewGitCounter(dir, realGit string) (*GitCounter, error) {
	c := &GitCounter{dir: dir, log: dir + "/git.log"}
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$SDD_BENCH_GITLOG\"\nexec '" + strings.ReplaceAll(realGit, "'", `'\''`) + "' \"$@\"\n"
	if err := os.WriteFile(dir+"/git", []byte(script), 0o755); err != nil {
		return nil, err
	}
	return c, nil
}

// Env returns env with the wrapper first on PATH and its log set.
func (c *GitCounter) Env(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + c.dir + string(os.PathListSeparator) + p
		}
		out = append(out, kv)
	}
	return append(out, "SDD_BENCH_GITLOG="+c.log)
}

// Count runs run (which must use Env) and returns the git command lines it
// started, in order.
func (c *GitCounter) Count(run func() error) ([]string, error) {
	if err := os.WriteFile(c.log, nil, 0o666); err != nil {
		return nil, err
	}
	if err := run(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(c.log)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}
