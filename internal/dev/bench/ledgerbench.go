package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// The ledger's goal (issue 28, item 10): on a long run's ledger, Look and
// an append each well under a second; their cost grows with the ledger's
// lines and the workspace's files, not their product, which the ratio to
// the same commands on a short ledger of the same shape shows.
const LedgerGoal = time.Second / 2

// The variants of the ledger's case.
const (
	LookScale   = "look, long run"
	AppendScale = "finding (an append), long run"
	LookShort   = "look, short run"
)

// LedgerResult is what the ledger's case measured.
type LedgerResult struct {
	Scale, Short LedgerScale
	Lines, Files int
	Rounds       int
	Samples      map[string][]Sample
}

// RunLedger times sdd-ledger (in dir ours) on long and short, interleaved:
// Look on both, and an append on long (a finding of its last task, which
// is at row fix; each run adds one line, a few dozen in all).
func RunLedger(ctx context.Context, cfg Config, long, short *Repo, scale, shortScale LedgerScale, lines, files int) (*LedgerResult, error) {
	bin := filepath.Join(cfg.Ours, "sdd-ledger")
	variant := func(name string, repo *Repo, args ...string) Variant {
		return Variant{Name: name, Run: func(ctx context.Context) (Sample, error) {
			s, _, err := RunProc(ctx, Proc{Path: bin, Args: args, Dir: repo.Dir, Env: repo.Env, Stdout: io.Discard})
			return s, err
		}}
	}
	samples, err := Measure(ctx, cfg.Warmup, cfg.Rounds, []Variant{
		variant(LookScale, long, "look", long.Plan, "main"),
		variant(AppendScale, long, "finding", long.Plan, long.Task, "a check failed"),
		variant(LookShort, short, "look", short.Plan, "main"),
		{Name: Startup, Run: func(ctx context.Context) (Sample, error) {
			s, _, err := RunProc(ctx, Proc{Path: bin, Args: []string{"--version"}, Dir: short.Dir, Env: short.Env, Stdout: io.Discard})
			return s, err
		}},
	})
	if err != nil {
		return nil, err
	}
	return &LedgerResult{Scale: scale, Short: shortScale, Lines: lines, Files: files, Rounds: cfg.Rounds, Samples: samples}, nil
}

// WriteLedger writes the ledger's table: the medians, the ratio of the
// long run's to the short run's Look, and the goal.
func WriteLedger(w io.Writer, r *LedgerResult) {
	fmt.Fprintf(w, "### sdd-ledger on a long run (%d interleaved rounds; %d tasks × %d fix rounds: %d ledger lines, %d workspace files; short: %d tasks)\n\n",
		r.Rounds, r.Scale.Tasks, r.Scale.Rounds, r.Lines, r.Files, r.Short.Tasks)
	fmt.Fprintln(w, "| run | median | CPU | × look on the short run | goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, name := range []string{LookScale, AppendScale, LookShort, Startup} {
		s := r.Samples[name]
		ratio, g := "", ""
		if name == LookScale || name == AppendScale {
			ratio = fmt.Sprintf("%.2f×", MedianRatio(s, r.Samples[LookShort]))
			g = fmt.Sprintf("under %s: %s", FormatDuration(LedgerGoal), verdict(Median(s) < LedgerGoal))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, FormatDuration(Median(s)), FormatDuration(MedianCPU(s)), ratio, g)
	}
	fmt.Fprintln(w)
}
