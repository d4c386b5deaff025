package bench

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The names of the variants a case is timed as.
const (
	Reference = "reference"
	Ours      = "ours"
	// Floor is the floor program (internal/dev/bench/floor): the least a Go
	// program can do to be the command, with the same git processes.
	Floor = "floor"
	// Startup is our binary run with --version: the cost of starting it,
	// parsing arguments and printing a line, with no git and no file.
	Startup = "ours --version"
	// GoStart is the floor program doing nothing: the cost of starting a
	// Go program on this machine.
	GoStart = "go start"
)

// Case is one command invocation to time.
type Case struct {
	Name    string // the row's label
	Command string // sdd-workspace, task-brief or review-package
	Args    []string
	Repo    *Repo
	Large   bool // flush dirty pages before each run; sample the command's own RSS
	// InputBytes, when set, is reported as a throughput.
	InputBytes int64
	// Goals, zero when none: reference / ours at least MinSpeedup, ours /
	// floor at most MaxFloorRatio, ours' own peak RSS below MaxRSS.
	MinSpeedup    float64
	MaxFloorRatio float64
	MaxRSS        int64
}

// Result is what a case measured.
type Result struct {
	Case    Case
	Rounds  int
	Samples map[string][]Sample
	// Git is, per variant, the git command lines one run started.
	Git map[string][]string
	// Same says whether ours, the floor and the reference printed the same
	// stdout and wrote the same output bytes; "" when there is no
	// reference.
	Same string
	// OutBytes is the size of the output file ours wrote.
	OutBytes int64
	// PeakRSS is, per variant, the largest VmHWM of the command process
	// itself (git left out), sampled from /proc.
	PeakRSS map[string]int64
}

// Median of one variant's wall times.
func (r *Result) Median(variant string) time.Duration { return Median(r.Samples[variant]) }

// CPU is the median of one variant's CPU times.
func (r *Result) CPU(variant string) time.Duration { return MedianCPU(r.Samples[variant]) }

// Ratio is the median, over the rounds, of a's time divided by b's time in
// the same round: runs of the same round are next to each other in time,
// so drift on a noisy machine cancels out of each ratio. 0 when either is
// missing.
func (r *Result) Ratio(a, b string) float64 { return MedianRatio(r.Samples[a], r.Samples[b]) }

// Config is what a run of the suite needs.
type Config struct {
	Ours      string // directory holding our binaries (the three drop-ins, and sdd-ledger)
	Floor     string // the floor program
	Reference string // directory holding the three reference scripts; "" for none
	Work      string // scratch directory for the scenarios
	Warmup    int
	Rounds    int
	Progress  io.Writer // progress lines; nil for none
}

func (c *Config) logf(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format+"\n", args...)
	}
}

// The goals every case is held to: never slower than the script, and at
// most MaxFloorRatio times the floor's time.
const (
	MinSpeedup    = 1.0
	MaxFloorRatio = 1.35
)

// RealisticCases are the per-invocation cases on repo.
func RealisticCases(repo *Repo) []Case {
	return []Case{
		{Name: "sdd-workspace", Command: "sdd-workspace", Args: []string{repo.Plan}, Repo: repo, MinSpeedup: MinSpeedup, MaxFloorRatio: MaxFloorRatio},
		{Name: "task-brief", Command: "task-brief", Args: []string{repo.Plan, repo.Task}, Repo: repo, MinSpeedup: MinSpeedup, MaxFloorRatio: MaxFloorRatio},
		{Name: "review-package", Command: "review-package", Args: []string{repo.Plan, repo.Base, repo.Head}, Repo: repo, MinSpeedup: MinSpeedup, MaxFloorRatio: MaxFloorRatio},
	}
}

// rssRuns is how many extra, untimed runs of ours and of the floor sample
// their peak RSS in a per-invocation case (polling /proc as fast as it
// can, which would disturb a timed run).
const rssRuns = 5

// Run times c: the reference (when cfg has one), ours, the floor program
// and two start-up costs, interleaved. Before timing it runs the
// reference, ours and the floor once each through a git-counting wrapper
// and compares what they printed and wrote.
func Run(ctx context.Context, cfg Config, c Case) (*Result, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	res := &Result{Case: c, Rounds: cfg.Rounds, Git: map[string][]string{}, PeakRSS: map[string]int64{}}

	counterDir, err := os.MkdirTemp(cfg.Work, "gitcount")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(counterDir)
	counter, err := NewGitCounter(counterDir, gitPath)
	if err != nil {
		return nil, err
	}

	type command struct {
		name string
		v    Variant
		out  *commandOutput
	}
	var commands []command
	if cfg.Reference != "" {
		v, out := commandVariant(Reference, filepath.Join(cfg.Reference, c.Command), nil, c)
		commands = append(commands, command{Reference, v, out})
	}
	v, out := commandVariant(Ours, filepath.Join(cfg.Ours, c.Command), nil, c)
	commands = append(commands, command{Ours, v, out})
	v, out = commandVariant(Floor, cfg.Floor, []string{c.Command}, c)
	commands = append(commands, command{Floor, v, out})

	// One counted, checked run of each command.
	stdouts := map[string]string{}
	sums := map[string][32]byte{}
	for _, cmd := range commands {
		cfg.logf("  %s: %s: counting git calls", c.Name, cmd.name)
		var stdout []byte
		calls, err := counter.Count(func() error {
			if err := cmd.out.remove(); err != nil {
				return err
			}
			_, out, err := RunProc(ctx, Proc{Path: cmd.out.path, Args: append(append([]string{}, cmd.out.pre...), c.Args...), Dir: c.Repo.Dir, Env: counter.Env(c.Repo.Env)})
			stdout = out
			return err
		})
		if err != nil {
			return nil, err
		}
		res.Git[cmd.name] = calls
		stdouts[cmd.name] = string(stdout)
		cmd.out.record(stdout)
		if cmd.out.file != "" {
			sum, n, err := hashFile(cmd.out.file)
			if err != nil {
				return nil, err
			}
			sums[cmd.name] = sum
			if cmd.name == Ours {
				res.OutBytes = n
			}
		}
	}
	res.Same = "yes"
	for _, cmd := range commands {
		switch {
		case stdouts[cmd.name] != stdouts[Ours]:
			res.Same = fmt.Sprintf("no: %s printed %q, ours %q", cmd.name, stdouts[cmd.name], stdouts[Ours])
		case sums[cmd.name] != sums[Ours]:
			res.Same = "no: " + cmd.name + "'s output file differs from ours"
		}
	}
	if res.Same == "yes" && len(res.Git[Floor]) != len(res.Git[Ours]) {
		return nil, fmt.Errorf("the floor ran %d git processes, ours %d: the floor is not this command's", len(res.Git[Floor]), len(res.Git[Ours]))
	}

	var variants []Variant
	for _, cmd := range commands {
		variants = append(variants, cmd.v)
	}
	if !c.Large {
		variants = append(variants,
			startupVariant(Startup, filepath.Join(cfg.Ours, c.Command), []string{"--version"}, c),
			startupVariant(GoStart, cfg.Floor, nil, c))
	}
	cfg.logf("  %s: timing %d variants, %d+%d rounds", c.Name, len(variants), cfg.Warmup, cfg.Rounds)
	res.Samples, err = Measure(ctx, cfg.Warmup, cfg.Rounds, variants)
	if err != nil {
		return nil, err
	}
	for _, cmd := range commands {
		_, own := PeakRSS(res.Samples[cmd.name])
		res.PeakRSS[cmd.name] = own
	}
	if !c.Large {
		// Peak RSS from separate runs, sampled as closely as the harness
		// can; the reference is a tree of processes, so it is left out.
		for _, cmd := range commands[len(commands)-2:] {
			for range rssRuns {
				if err := cmd.out.remove(); err != nil {
					return nil, err
				}
				s, _, err := RunProc(ctx, Proc{Path: cmd.out.path, Args: append(append([]string{}, cmd.out.pre...), c.Args...), Dir: c.Repo.Dir, Env: c.Repo.Env, SampleRSS: true, SampleEvery: 100 * time.Microsecond})
				if err != nil {
					return nil, err
				}
				res.PeakRSS[cmd.name] = max(res.PeakRSS[cmd.name], s.OwnRSS)
			}
		}
	}
	for _, cmd := range commands {
		_ = cmd.out.remove()
	}
	return res, nil
}

// commandOutput tracks the file a command said it wrote ("wrote <path>:
// …"), so the next run starts without it, as a fresh range or task does.
type commandOutput struct {
	path string   // the command's binary
	pre  []string // arguments before the case's (the floor's command name)
	dir  string
	file string
}

func (o *commandOutput) record(stdout []byte) {
	rest, ok := strings.CutPrefix(string(stdout), "wrote ")
	if !ok {
		return
	}
	i := strings.LastIndex(rest, ": ")
	if i < 0 {
		return
	}
	f := rest[:i]
	if !filepath.IsAbs(f) {
		f = filepath.Join(o.dir, f)
	}
	o.file = f
}

func (o *commandOutput) remove() error {
	if o.file == "" {
		return nil
	}
	if err := os.Remove(o.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func commandVariant(name, path string, pre []string, c Case) (Variant, *commandOutput) {
	out := &commandOutput{path: path, pre: pre, dir: c.Repo.Dir}
	args := append(append([]string{}, pre...), c.Args...)
	return Variant{
		Name: name,
		Prepare: func() error {
			if c.Large {
				flushDirty()
			}
			return out.remove()
		},
		Run: func(ctx context.Context) (Sample, error) {
			s, stdout, err := RunProc(ctx, Proc{Path: path, Args: args, Dir: c.Repo.Dir, Env: c.Repo.Env, SampleRSS: c.Large})
			out.record(stdout)
			return s, err
		},
	}, out
}

func startupVariant(name, path string, args []string, c Case) Variant {
	return Variant{Name: name, Run: func(ctx context.Context) (Sample, error) {
		s, _, err := RunProc(ctx, Proc{Path: path, Args: args, Dir: c.Repo.Dir, Env: c.Repo.Env})
		return s, err
	}}
}

func hashFile(path string) ([32]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n, err
}

// MiB is a mebibyte.
const MiB = 1 << 20

// LargeCases are the large-input cases: task-brief over plan's big plan
// (planBytes long) and review-package over diff's large range.
func LargeCases(plan *Repo, planBytes int64, diff *Repo) []Case {
	return []Case{
		{Name: "task-brief, large plan", Command: "task-brief", Args: []string{plan.Plan, plan.Task}, Repo: plan,
			Large: true, InputBytes: planBytes, MinSpeedup: 3, MaxFloorRatio: MaxFloorRatio, MaxRSS: 32 * MiB},
		// Its stat and diff run side by side (the repository is no
		// partial clone), so it beats the script by about the stat's
		// time; in a partial clone they run in turn, and it must still
		// never lose to the script.
		{Name: "review-package, large diff", Command: "review-package", Args: []string{diff.Plan, diff.Base, diff.Head}, Repo: diff,
			Large: true, MinSpeedup: MinSpeedup, MaxFloorRatio: MaxFloorRatio, MaxRSS: 32 * MiB},
	}
}
