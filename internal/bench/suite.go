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
	"slices"
	"strings"
	"sync"
	"time"
)

// The names of the variants a case is timed as.
const (
	Reference = "reference"
	Ours      = "ours"
	Floor     = "floor"
	// Startup is our binary run with --version: the cost of starting it,
	// parsing arguments and printing a line, with no git and no file.
	Startup = "ours-startup"
)

// Step is one git command of a floor: what a command cannot avoid running.
type Step struct {
	Args   []string
	ToFile bool // git's stdout is the output file (else it is captured)
	// Concurrent starts this step together with the one before it and
	// waits for both.
	Concurrent bool
}

// Case is one command invocation to time, with the git commands it must
// run (its floor) and other git sequences worth timing beside it.
type Case struct {
	Name    string // the row's label
	Command string // sdd-workspace, task-brief or review-package
	Args    []string
	Repo    *Repo
	Floor   []Step
	Extra   map[string][]Step // more floors, for the suggestions
	Large   bool              // flush dirty pages before each run; sample the command's own RSS
	// InputBytes, when set, is reported as a throughput.
	InputBytes int64
	// Targets, zero when none: reference time / ours at least MinSpeedup,
	// ours / floor at most MaxFloorRatio, ours' own peak RSS below MaxRSS.
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
	// Same says whether ours and the reference printed the same stdout and
	// wrote the same output bytes; "" when there is no reference.
	Same string
	// OutBytes is the size of the output file ours wrote.
	OutBytes int64
	// HarnessRSS is this process's own peak RSS after the run: the least
	// ru_maxrss a child of it can report.
	HarnessRSS int64
}

// Median of one variant's wall times.
func (r *Result) Median(variant string) time.Duration { return Median(r.Samples[variant]) }

// CPU is the median of one variant's CPU times.
func (r *Result) CPU(variant string) time.Duration { return MedianCPU(r.Samples[variant]) }

// Config is what a run of the suite needs.
type Config struct {
	Ours      string // directory holding our three binaries
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

// ReviewFloor is the git sequence of review-package with the default
// OUTFILE, as the script runs it.
func ReviewFloor(base, head string) []Step {
	rng := base + ".." + head
	return []Step{
		{Args: []string{"rev-parse", "--verify", "--quiet", base}},
		{Args: []string{"rev-parse", "--verify", "--quiet", head}},
		{Args: []string{"rev-parse", "--show-toplevel"}},
		{Args: []string{"rev-parse", "--short", base}},
		{Args: []string{"rev-parse", "--short", head}},
		{Args: []string{"log", "--oneline", rng}, ToFile: true},
		{Args: []string{"diff", "--stat", rng}, ToFile: true},
		{Args: []string{"diff", "-U10", rng}, ToFile: true},
		{Args: []string{"rev-list", "--count", rng}},
	}
}

// ReviewSuggestions are shorter git sequences for review-package with the
// default OUTFILE (see docs/readme-bench.md):
//
//   - floor-7: `rev-parse --verify --short REV` verifies REV and prints the
//     short name `rev-parse --short REV` would, so one process does both,
//     for BASE and for HEAD;
//   - floor-6: as floor-7, the top level printed by HEAD's call too;
//   - floor-5: as floor-6, the stat and the patch from one
//     `git diff --stat -p -U10` (git separates them with an empty line);
//   - floor-6-par: floor-6 with rev-list run beside the diff.
func ReviewSuggestions(base, head string) map[string][]Step {
	rng := base + ".." + head
	tail := []Step{
		{Args: []string{"log", "--oneline", rng}, ToFile: true},
		{Args: []string{"diff", "--stat", rng}, ToFile: true},
		{Args: []string{"diff", "-U10", rng}, ToFile: true},
		{Args: []string{"rev-list", "--count", rng}},
	}
	seven := append([]Step{
		{Args: []string{"rev-parse", "--verify", "--short", base}},
		{Args: []string{"rev-parse", "--verify", "--short", head}},
		{Args: []string{"rev-parse", "--show-toplevel"}},
	}, tail...)
	six := append([]Step{
		{Args: []string{"rev-parse", "--verify", "--short", base}},
		{Args: []string{"rev-parse", "--show-toplevel", "--verify", "--short", head}},
	}, tail...)
	five := append(append([]Step{}, six[:3]...),
		Step{Args: []string{"diff", "--stat", "-p", "-U10", rng}, ToFile: true},
		six[5])
	par := append([]Step{}, six...)
	par[5].Concurrent = true
	return map[string][]Step{"floor-7": seven, "floor-6": six, "floor-5": five, "floor-6-par": par}
}

// RealisticCases are the per-invocation cases on repo.
func RealisticCases(repo *Repo) []Case {
	top := []Step{{Args: []string{"rev-parse", "--show-toplevel"}}}
	return []Case{
		{Name: "sdd-workspace", Command: "sdd-workspace", Args: []string{repo.Plan}, Repo: repo, Floor: top,
			MinSpeedup: 3, MaxFloorRatio: 1.3},
		{Name: "task-brief", Command: "task-brief", Args: []string{repo.Plan, repo.Task}, Repo: repo, Floor: top,
			MinSpeedup: 5, MaxFloorRatio: 1.3},
		{Name: "review-package", Command: "review-package", Args: []string{repo.Plan, repo.Base, repo.Head}, Repo: repo,
			Floor: ReviewFloor(repo.Base, repo.Head), Extra: ReviewSuggestions(repo.Base, repo.Head),
			MinSpeedup: 2, MaxFloorRatio: 1.3},
	}
}

// Run times c: the reference (when cfg has one), ours, the floor and c's
// extra floors, interleaved. Before timing it runs the reference and ours
// once each through a git-counting wrapper and compares what they printed
// and wrote.
func Run(ctx context.Context, cfg Config, c Case) (*Result, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	res := &Result{Case: c, Rounds: cfg.Rounds, Git: map[string][]string{}}

	counterDir, err := os.MkdirTemp(cfg.Work, "gitcount")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(counterDir)
	counter, err := NewGitCounter(counterDir, gitPath)
	if err != nil {
		return nil, err
	}

	var variants []Variant
	var refOut, oursOut *commandOutput
	if cfg.Reference != "" {
		v, out := commandVariant(Reference, filepath.Join(cfg.Reference, c.Command), c)
		variants, refOut = append(variants, v), out
	}
	v, oursOut := commandVariant(Ours, filepath.Join(cfg.Ours, c.Command), c)
	variants = append(variants, v)
	if !c.Large {
		variants = append(variants, startupVariant(filepath.Join(cfg.Ours, c.Command), c))
	}
	variants = append(variants, floorVariant(Floor, gitPath, c.Floor, c, false))
	if c.Large && len(c.Floor) > 1 {
		variants = append(variants, floorVariant(Floor+"-pipe", gitPath, c.Floor, c, true))
	}
	for _, name := range sortedKeys(c.Extra) {
		variants = append(variants, floorVariant(name, gitPath, c.Extra[name], c, false))
	}

	// One counted, checked run of each command.
	var stdouts [2]string
	var sums [2][32]byte
	for i, pair := range []struct {
		name string
		out  *commandOutput
	}{{Reference, refOut}, {Ours, oursOut}} {
		if pair.out == nil {
			continue
		}
		cfg.logf("  %s: %s: counting git calls", c.Name, pair.name)
		var stdout []byte
		calls, err := counter.Count(func() error {
			if err := pair.out.remove(); err != nil {
				return err
			}
			_, out, err := RunProc(ctx, Proc{Path: pair.out.path, Args: c.Args, Dir: c.Repo.Dir, Env: counter.Env(c.Repo.Env)})
			stdout = out
			return err
		})
		if err != nil {
			return nil, err
		}
		res.Git[pair.name] = calls
		stdouts[i] = string(stdout)
		pair.out.record(stdout)
		if pair.out.file != "" {
			sum, n, err := hashFile(pair.out.file)
			if err != nil {
				return nil, err
			}
			sums[i] = sum
			if pair.name == Ours {
				res.OutBytes = n
			}
		}
	}
	res.Git[Floor] = stepLines(c.Floor)
	for name, steps := range c.Extra {
		res.Git[name] = stepLines(steps)
	}
	if refOut != nil {
		switch {
		case stdouts[0] != stdouts[1]:
			res.Same = fmt.Sprintf("no: stdout %q vs %q", stdouts[0], stdouts[1])
		case sums[0] != sums[1]:
			res.Same = "no: output files differ"
		default:
			res.Same = "yes"
		}
	}

	cfg.logf("  %s: timing %d variants, %d+%d rounds", c.Name, len(variants), cfg.Warmup, cfg.Rounds)
	res.Samples, err = Measure(ctx, cfg.Warmup, cfg.Rounds, variants)
	if err != nil {
		return nil, err
	}
	for _, o := range []*commandOutput{refOut, oursOut} {
		if o != nil {
			_ = o.remove()
		}
	}
	res.HarnessRSS = selfMaxRSS()
	return res, nil
}

// commandOutput tracks the file a command said it wrote ("wrote <path>:
// …"), so the next run starts without it, as a fresh range or task does.
type commandOutput struct {
	path string // the command's binary
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

func commandVariant(name, path string, c Case) (Variant, *commandOutput) {
	out := &commandOutput{path: path, dir: c.Repo.Dir}
	return Variant{
		Name: name,
		Prepare: func() error {
			if c.Large {
				flushDirty()
			}
			return out.remove()
		},
		Run: func(ctx context.Context) (Sample, error) {
			s, stdout, err := RunProc(ctx, Proc{Path: path, Args: c.Args, Dir: c.Repo.Dir, Env: c.Repo.Env, SampleRSS: c.Large})
			out.record(stdout)
			return s, err
		},
	}, out
}

func startupVariant(path string, c Case) Variant {
	return Variant{Name: Startup, Run: func(ctx context.Context) (Sample, error) {
		s, _, err := RunProc(ctx, Proc{Path: path, Args: []string{"--version"}, Dir: c.Repo.Dir, Env: c.Repo.Env})
		return s, err
	}}
}

// floorVariant runs steps back to back from this process, each git's
// stdout going straight into one output file (pipe false) or copied into
// it through a pipe, as ours does (pipe true).
func floorVariant(name, gitPath string, steps []Step, c Case, pipe bool) Variant {
	outFile := filepath.Join(c.Repo.Dir, ".superpowers", "floor-"+name+".out")
	return Variant{
		Name: name,
		Prepare: func() error {
			if c.Large {
				flushDirty()
			}
			if err := os.MkdirAll(filepath.Dir(outFile), 0o777); err != nil {
				return err
			}
			if err := os.Remove(outFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		},
		Run: func(ctx context.Context) (Sample, error) {
			start := time.Now()
			f, err := os.Create(outFile)
			if err != nil {
				return Sample{}, err
			}
			defer f.Close()
			var total Sample
			one := func(st Step) (Sample, error) {
				p := Proc{Path: gitPath, Args: st.Args, Dir: c.Repo.Dir, Env: c.Repo.Env, SampleRSS: c.Large}
				if st.ToFile && !pipe {
					p.Stdout = f
				}
				if st.ToFile && pipe {
					return runPiped(ctx, p, f)
				}
				s, _, err := RunProc(ctx, p)
				return s, err
			}
			for i := 0; i < len(steps); i++ {
				var wg sync.WaitGroup
				var cs Sample
				var cerr error
				if i+1 < len(steps) && steps[i+1].Concurrent {
					wg.Go(func() { cs, cerr = one(steps[i+1]) })
				}
				s, err := one(steps[i])
				wg.Wait()
				if err == nil {
					err = cerr
				}
				if err != nil {
					return Sample{}, err
				}
				total.CPU += s.CPU + cs.CPU
				total.TreeRSS = max(total.TreeRSS, s.TreeRSS, cs.TreeRSS)
				total.OwnRSS = max(total.OwnRSS, s.OwnRSS, cs.OwnRSS)
				if i+1 < len(steps) && steps[i+1].Concurrent {
					i++
				}
			}
			if err := f.Close(); err != nil {
				return Sample{}, err
			}
			total.Wall = time.Since(start)
			return total, nil
		},
	}
}

// runPiped runs p with its stdout copied into f through a pipe by this
// process, the way internal/git's Stream does.
func runPiped(ctx context.Context, p Proc, f *os.File) (Sample, error) {
	cmd := exec.CommandContext(ctx, p.Path, p.Args...)
	cmd.Dir = p.Dir
	cmd.Env = p.Env
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return Sample{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Sample{}, err
	}
	if _, err := io.Copy(f, pipe); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return Sample{}, err
	}
	err = cmd.Wait()
	s := Sample{Wall: time.Since(start), CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	s.TreeRSS = maxRSS(cmd.ProcessState)
	return s, err
}

func stepLines(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = strings.Join(s.Args, " ")
	}
	return out
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MiB is a mebibyte.
const MiB = 1 << 20

// LargeCases are the large-input cases: task-brief over plan's big plan
// (planBytes long) and review-package over diff's large range.
func LargeCases(plan *Repo, planBytes int64, diff *Repo) []Case {
	top := []Step{{Args: []string{"rev-parse", "--show-toplevel"}}}
	return []Case{
		{Name: "task-brief, large plan", Command: "task-brief", Args: []string{plan.Plan, plan.Task}, Repo: plan,
			Floor: top, Large: true, InputBytes: planBytes, MinSpeedup: 2, MaxRSS: 32 * MiB},
		{Name: "review-package, large diff", Command: "review-package", Args: []string{diff.Plan, diff.Base, diff.Head}, Repo: diff,
			Floor: ReviewFloor(diff.Base, diff.Head), Large: true, MinSpeedup: 1 / 1.05, MaxFloorRatio: 1.05, MaxRSS: 32 * MiB},
	}
}
