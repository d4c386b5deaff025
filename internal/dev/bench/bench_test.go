package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/reference"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// scratch holds what the benchmarks build once (our binaries, the
// scenarios); TestMain removes it.
var scratch struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	for _, d := range []string{scratch.dir, built.dir} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
	os.Exit(code)
}

func scratchDir(b *testing.B) string {
	b.Helper()
	scratch.once.Do(func() { scratch.dir, scratch.err = os.MkdirTemp("", "sdd-gobench-") })
	require.NoError(b, scratch.err)
	return scratch.dir
}

var built struct {
	once sync.Once
	dir  string
	err  error
}

// FloorPackage is the floor program's package, built beside our binaries.
const floorPackage = "./internal/dev/bench/floor"

// binaries builds the three commands and the floor program once, as they
// ship, from the module this package is in.
func binaries(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "sdd-bench-bin-")
		if built.err != nil {
			return
		}
		gomod, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			built.err = err
			return
		}
		b := ship.Build{Root: filepath.Dir(strings.TrimSpace(string(gomod))), Out: built.dir, Only: ship.DropIns, Extra: []string{floorPackage}}
		built.err = b.Run(context.Background())
	})
	require.NoError(tb, built.err)
	return built.dir
}

// benchVariants runs each variant of c as a sub-benchmark: ours, the floor
// program, and the reference when one is found. Besides ns/op each reports
// the CPU time per run and, for large cases, the command's own peak RSS.
func benchVariants(b *testing.B, c Case) {
	variants := []Variant{}
	home, _ := os.UserHomeDir()
	if ref, err := reference.Find(os.Getenv, home); err == nil {
		v, _ := commandVariant(Reference, filepath.Join(ref, c.Command), nil, c)
		variants = append(variants, v)
	}
	bin := binaries(b)
	ours, _ := commandVariant(Ours, filepath.Join(bin, c.Command), nil, c)
	floor, _ := commandVariant(Floor, filepath.Join(bin, "floor"), []string{c.Command}, c)
	variants = append(variants, ours, floor)
	for _, v := range variants {
		b.Run(v.Name, func(b *testing.B) {
			if c.InputBytes > 0 {
				b.SetBytes(c.InputBytes)
			}
			var cpu time.Duration
			var own int64
			for b.Loop() {
				b.StopTimer()
				require.NoError(b, v.Prepare())
				b.StartTimer()
				s, err := v.Run(context.Background())
				require.NoError(b, err)
				cpu += s.CPU
				own = max(own, s.OwnRSS)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			if own > 0 {
				b.ReportMetric(float64(own)/MiB, "peak-own-MiB")
			}
		})
	}
}

var realistic struct {
	once sync.Once
	repo *Repo
	err  error
}

// BenchmarkRealistic times each command per invocation on the realistic
// repository (a 40-task plan, 5 commits × 2,000 changed lines), beside the
// git commands it must run.
func BenchmarkRealistic(b *testing.B) {
	dir := scratchDir(b)
	realistic.once.Do(func() {
		realistic.repo, realistic.err = BuildRealistic(context.Background(), mkdirAll(filepath.Join(dir, "realistic")), DefaultRealistic)
	})
	require.NoError(b, realistic.err)
	for _, c := range RealisticCases(realistic.repo) {
		b.Run(c.Name, func(b *testing.B) { benchVariants(b, c) })
	}
}

// BenchmarkLarge times task-brief on a 200 MiB plan and review-package on
// a ~300 MiB diff. Building them takes minutes, so it runs only with
// SDD_BENCH_LARGE=1.
func BenchmarkLarge(b *testing.B) {
	if os.Getenv("SDD_BENCH_LARGE") != "1" {
		b.Skip("set SDD_BENCH_LARGE=1 to build a 200 MiB plan and a ~300 MiB diff")
	}
	dir := scratchDir(b)
	ctx := context.Background()
	plan, err := BuildLargePlan(ctx, mkdirAll(filepath.Join(dir, "plan")), 200*MiB, 40)
	require.NoError(b, err)
	fi, err := os.Stat(plan.Plan)
	require.NoError(b, err)
	diff, err := BuildLargeDiff(ctx, mkdirAll(filepath.Join(dir, "diff")), 300*MiB, LargeDiffLines)
	require.NoError(b, err)
	for _, c := range LargeCases(plan, fi.Size(), diff) {
		b.Run(strings.ReplaceAll(c.Name, " ", ""), func(b *testing.B) { benchVariants(b, c) })
	}
}

func mkdirAll(dir string) string {
	_ = os.MkdirAll(dir, 0o777)
	return dir
}

func TestMedian(t *testing.T) {
	ms := func(ns ...int) []Sample {
		var s []Sample
		for _, n := range ns {
			s = append(s, Sample{Wall: time.Duration(n) * time.Millisecond, CPU: time.Duration(n)})
		}
		return s
	}
	assert.Equal(t, 3*time.Millisecond, Median(ms(9, 1, 3)))
	assert.Equal(t, 5*time.Millisecond, Median(ms(9, 1, 3, 7)))
	assert.Equal(t, time.Duration(0), Median(nil))
	assert.Equal(t, time.Duration(3), MedianCPU(ms(9, 1, 3)))
}

func TestMeasureInterleaves(t *testing.T) {
	var order []string
	mk := func(name string) Variant {
		return Variant{Name: name, Run: func(context.Context) (Sample, error) {
			order = append(order, name)
			return Sample{Wall: time.Millisecond}, nil
		}}
	}
	got, err := Measure(context.Background(), 1, 3, []Variant{mk("a"), mk("b"), mk("c")})
	require.NoError(t, err)
	assert.Equal(t, "a b c a b c b c a c a b", strings.Join(order, " "))
	assert.Len(t, got["a"], 3)
}

func TestWritePlan(t *testing.T) {
	var buf bytes.Buffer
	WritePlan(&buf, 4, 40)
	plan := buf.String()
	for n := 1; n <= 4; n++ {
		assert.Contains(t, plan, fmt.Sprintf("\n### Task %d: Component %d\n", n, n))
	}
	assert.Contains(t, plan, "```go\n## Task 2: a heading inside a fence")
	assert.True(t, strings.HasSuffix(plan, "\n"))
}

// TestFloorIsEachCommand runs the suite for one round on a small realistic
// repository: the floor program must print what ours prints, write the
// same bytes and start as many git processes, or its times mean nothing.
func TestFloorIsEachCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	repo, err := BuildRealistic(ctx, t.TempDir(), Realistic{Files: 6, FileLines: 60, Tasks: 4, Commits: 3, ChangedLines: 40})
	require.NoError(t, err)
	count, err := gitOutput(ctx, repo.Dir, repo.Env, "rev-list", "--count", repo.Base+".."+repo.Head)
	require.NoError(t, err)
	assert.Equal(t, "3", count)
	stat, err := gitOutput(ctx, repo.Dir, repo.Env, "diff", "--shortstat", repo.Base+".."+repo.Head)
	require.NoError(t, err)
	assert.Contains(t, stat, "120 insertions(+), 120 deletions(-)")
	assert.Equal(t, "2", repo.Task)

	// The large cases' shapes, small: a plan outside the repository, a
	// diff in its own repository.
	plan, err := BuildLargePlan(ctx, t.TempDir(), 64<<10, 4)
	require.NoError(t, err)
	fi, err := os.Stat(plan.Plan)
	require.NoError(t, err)
	diff, err := BuildLargeDiff(ctx, t.TempDir(), 256<<10, 1000)
	require.NoError(t, err)

	bin := binaries(t)
	cfg := Config{Ours: bin, Floor: filepath.Join(bin, "floor"), Work: t.TempDir(), Rounds: 1}
	for _, c := range append(RealisticCases(repo), LargeCases(plan, fi.Size(), diff)...) {
		res, err := Run(ctx, cfg, c)
		require.NoError(t, err, c.Name)
		assert.Equal(t, "yes", res.Same, c.Name)
		assert.Equal(t, len(res.Git[Ours]), len(res.Git[Floor]), c.Name)
		assert.Len(t, res.Samples[Floor], 1)
		if !c.Large {
			assert.Positive(t, res.PeakRSS[Ours], c.Name)
		}
	}
}

func TestBuildLargeSmall(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	plan, err := BuildLargePlan(ctx, t.TempDir(), 256<<10, 4)
	require.NoError(t, err)
	fi, err := os.Stat(plan.Plan)
	require.NoError(t, err)
	assert.InEpsilon(t, float64(256<<10), float64(fi.Size()), 0.1)

	diff, err := BuildLargeDiff(ctx, t.TempDir(), 1*MiB, 1000)
	require.NoError(t, err)
	out, err := gitOutput(ctx, diff.Dir, diff.Env, "diff", "-U10", diff.Base+".."+diff.Head)
	require.NoError(t, err)
	assert.InEpsilon(t, float64(MiB), float64(len(out)), 0.3)
}

func TestGitCounter(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	c, err := NewGitCounter(t.TempDir(), gitPath)
	require.NoError(t, err)
	calls, err := c.Count(func() error {
		for range 2 {
			cmd := exec.Command("git", "--version")
			cmd.Env = c.Env(os.Environ())
			// exec.Command looked git up in this process's PATH: run it
			// through the wrapper's PATH instead.
			cmd.Path = filepath.Join(c.dir, "git")
			if err := cmd.Run(); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"--version", "--version"}, calls)
}

// TestLedgerScaleIsARun: the scale scenario's ledger reads as a run of the
// skill: every task but the last done, the last at row fix, Look in well
// under a second even here (a small scale, under the race detector).
func TestLedgerScaleIsARun(t *testing.T) {
	r, err := BuildLedgerScale(context.Background(), t.TempDir(), LedgerScale{Tasks: 20, Rounds: 5})
	require.NoError(t, err)
	cmd := exec.Command(testutil.Bin(t, "sdd-ledger"), "look", r.Plan, "main")
	cmd.Dir, cmd.Env = r.Dir, r.Env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "Task 19: last=complete after=- review=in pass=re spec=- open=0 round=5 left=0 shas=ok plan=ok needs=- row=done\n")
	assert.Contains(t, string(out), "Task 20: last=reviewed_head after=0 review=in pass=first spec=❌ open=1 round=0 left=5 shas=ok plan=ok needs=- row=fix\n")
	assert.Contains(t, string(out), "next: Task 20 row=fix\n")
	assert.NotContains(t, string(out), "note:")
}
