// Command bench times sdd-go's three commands against their floor (the
// least a Go program can do with the same git calls, internal/dev/bench/floor)
// and the reference bash scripts, side by side in one run, and prints the
// results as markdown.
//
//	go run ./scripts/bench            per-invocation cases on a realistic repository (< 2 min)
//	go run ./scripts/bench -large     a 200 MiB plan and a ~300 MiB diff (minutes)
//
// The reference is the directory named by $SDD_REFERENCE, else the newest
// superpowers plugin under ~/.claude/plugins/; without one only our numbers
// and the floor are reported. Run from the module root: our binaries and the
// floor are built as they ship (internal/dev/ship) with $GO (default "go").
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/bench"
	"github.com/sdd-go/sdd-go/internal/dev/reference"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	large := flag.Bool("large", false, "run the large-input cases instead of the per-invocation ones")
	rounds := flag.Int("rounds", 0, "timed rounds per case (default 31, or 5 with -large)")
	warmup := flag.Int("warmup", -1, "untimed rounds per case (default 3, or 1 with -large)")
	planMB := flag.Int64("plan-mb", 200, "size of the large plan, MiB")
	diffMB := flag.Int64("diff-mb", 300, "approximate size of the large diff, MiB")
	keep := flag.Bool("keep", false, "keep the scratch directory")
	flag.Parse()
	if *rounds == 0 {
		*rounds = 31
		if *large {
			*rounds = 5
		}
	}
	if *warmup < 0 {
		*warmup = 3
		if *large {
			*warmup = 1
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	home, _ := os.UserHomeDir()
	ref, err := reference.Find(os.Getenv, home)
	if errors.Is(err, reference.ErrNotFound) {
		ref, err = "", nil // our numbers and the floor's only
	}
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "sdd-bench-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "bench: scratch directory", work)
	} else {
		defer os.RemoveAll(work)
	}
	goTool := os.Getenv("GO")
	if goTool == "" {
		goTool = "go"
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	bin := filepath.Join(work, "bin")
	build := ship.Build{Go: goTool, Root: root, Out: bin, Only: ship.Commands, Extra: []string{"./internal/dev/bench/floor"}}
	if err := build.Run(ctx); err != nil {
		return fmt.Errorf("%w (run from the module root)", err)
	}

	cfg := bench.Config{Ours: bin, Floor: filepath.Join(bin, "floor"), Reference: ref, Work: work, Warmup: *warmup, Rounds: *rounds, Progress: os.Stderr}
	var cases []bench.Case
	if *large {
		fmt.Fprintf(os.Stderr, "bench: building a %d MiB plan and a ~%d MiB diff\n", *planMB, *diffMB)
		planDir, diffDir := filepath.Join(work, "plan"), filepath.Join(work, "diff")
		planRepo, err := bench.BuildLargePlan(ctx, mkdir(planDir), *planMB*bench.MiB, 40)
		if err != nil {
			return err
		}
		fi, err := os.Stat(planRepo.Plan)
		if err != nil {
			return err
		}
		diffRepo, err := bench.BuildLargeDiff(ctx, mkdir(diffDir), *diffMB*bench.MiB, bench.LargeDiffLines)
		if err != nil {
			return err
		}
		cases = bench.LargeCases(planRepo, fi.Size(), diffRepo)
	} else {
		fmt.Fprintln(os.Stderr, "bench: building the realistic repository")
		repo, err := bench.BuildRealistic(ctx, mkdir(filepath.Join(work, "realistic")), bench.DefaultRealistic)
		if err != nil {
			return err
		}
		cases = bench.RealisticCases(repo)
	}

	var ledger *bench.LedgerResult
	if !*large {
		if ledger, err = runLedger(ctx, cfg, work); err != nil {
			return fmt.Errorf("sdd-ledger on a long run: %w", err)
		}
	}
	var results []*bench.Result
	for _, c := range cases {
		fmt.Fprintf(os.Stderr, "bench: %s\n", c.Name)
		r, err := bench.Run(ctx, cfg, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		results = append(results, r)
	}

	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	machine(w, goTool, ref, cfg)
	if *large {
		fmt.Fprintf(w, "### Large inputs (medians of %d interleaved runs)\n\n", *rounds)
		bench.WriteLarge(w, results)
	} else {
		s := bench.DefaultRealistic
		fmt.Fprintf(w, "### Per invocation (%d interleaved rounds; %d-task plan, %d commits × %d changed lines, %d files × %d lines)\n\n",
			*rounds, s.Tasks, s.Commits, s.ChangedLines, s.Files, s.FileLines)
		fmt.Fprintln(w, "Times are medians; ratios are medians of the per-round ratios.")
		fmt.Fprintln(w)
		bench.WriteRealistic(w, results)
	}
	fmt.Fprintln(w, "\nGit processes per run:")
	fmt.Fprintln(w)
	bench.WriteGitCalls(w, results)
	if ledger != nil {
		fmt.Fprintln(w)
		bench.WriteLedger(w, ledger)
	}
	return nil
}

// runLedger builds the ledger's long and short runs and times sdd-ledger
// on them.
func runLedger(ctx context.Context, cfg bench.Config, work string) (*bench.LedgerResult, error) {
	long, short := bench.DefaultLedgerScale, bench.LedgerScale{Tasks: 10, Rounds: 1}
	fmt.Fprintf(os.Stderr, "bench: building a ledger of %d tasks × %d rounds\n", long.Tasks, long.Rounds)
	longRepo, err := bench.BuildLedgerScale(ctx, mkdir(filepath.Join(work, "ledger-long")), long)
	if err != nil {
		return nil, err
	}
	shortRepo, err := bench.BuildLedgerScale(ctx, mkdir(filepath.Join(work, "ledger-short")), short)
	if err != nil {
		return nil, err
	}
	lines, files, err := bench.LedgerSize(longRepo)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "bench: sdd-ledger on a long run")
	return bench.RunLedger(ctx, cfg, longRepo, shortRepo, long, short, lines, files)
}

func mkdir(dir string) string {
	_ = os.MkdirAll(dir, 0o777)
	return dir
}

// machine writes what the numbers were measured on.
func machine(w *bufio.Writer, goTool, ref string, cfg bench.Config) {
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	out := func(name string, args ...string) string {
		b, err := exec.Command(name, args...).Output()
		if err != nil {
			return "unknown"
		}
		return strings.TrimSpace(string(b))
	}
	if ref == "" {
		ref = "none found (set SDD_REFERENCE): Go-only numbers"
	}
	fmt.Fprintf(w, "Machine: %d CPUs (nproc %s), %s; %s; %s; %s/%s\n\n", runtime.NumCPU(), out("nproc"), cpu,
		out("git", "--version"), out(goTool, "env", "GOVERSION"), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "Reference: %s\n\n", ref)
}
