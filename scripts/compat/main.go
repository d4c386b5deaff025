// Command compat is the differential compatibility checker: it runs the
// reference bash scripts and our binaries on the same generated scenarios
// and reports every difference docs/spec.md does not list as deliberate.
//
// Usage: compat [-seed N] [-n N] [-keep DIR [-keep-all]] [-ours DIR] [-j N] [-v] [-only ID,ID] [-work DIR]
//
// The reference is $SDD_REFERENCE, or the newest superpowers plugin found
// under ~/.claude/plugins. Exit status: 0 when no scenario failed, 1 when
// some did, 2 when the check could not run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/compat"
	"github.com/sdd-go/sdd-go/internal/dev/reference"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("compat", flag.ContinueOnError)
	seed := fs.Int64("seed", 1, "seed the scenarios are generated from")
	n := fs.Int("n", 500, "number of scenarios")
	keep := fs.String("keep", "", "keep a reproduction folder per failing scenario under `DIR`")
	keepAll := fs.Bool("keep-all", false, "with -keep, keep a folder for every scenario, passing or not")
	ours := fs.String("ours", "", "`DIR` holding our three binaries (default: build them into a temporary directory)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "parallel workers")
	verbose := fs.Bool("v", false, "list every scenario, and the deliberate differences seen")
	work := fs.String("work", compat.DefaultWorkDir(), "`DIR` to build and run scenarios in")
	only := fs.String("only", "", "run only these scenario `IDs` (comma-separated, as printed: s0042 or 42)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "compat: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	home, _ := os.UserHomeDir()
	ref, err := reference.Find(os.Getenv, home)
	switch {
	case errors.Is(err, reference.ErrNotFound):
		fmt.Fprintln(os.Stderr, "compat: no reference scripts found.\n"+reference.HowToGet+"\nthen run make compat again.")
		return 2
	case err != nil:
		fmt.Fprintln(os.Stderr, "compat:", err)
		return 2
	}
	cfg := compat.Config{Seed: *seed, N: *n, Ref: ref, Ours: *ours, Keep: *keep, KeepAll: *keepAll, Jobs: *jobs, Verbose: *verbose, Out: os.Stdout, WorkDir: *work}
	for _, f := range strings.FieldsFunc(*only, func(r rune) bool { return r == ',' || r == ' ' }) {
		id, err := strconv.Atoi(strings.TrimLeft(f, "s"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "compat: bad scenario id %q\n", f)
			return 2
		}
		cfg.Only = append(cfg.Only, id)
	}
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		cfg.Progress = os.Stderr
	}
	if cfg.Ours == "" {
		dir, err := os.MkdirTemp("", "sdd-compat-ours-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "compat:", err)
			return 2
		}
		defer os.RemoveAll(dir)
		root, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "compat:", err)
			return 2
		}
		b := ship.Build{Go: os.Getenv("GO"), Root: root, Out: dir, Only: ship.DropIns}
		if err := b.Run(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "compat: building our binaries (run from the sdd-go module root, or pass -ours DIR): %v\n", err)
			return 2
		}
		cfg.Ours = dir
	}
	fmt.Fprintf(os.Stderr, "compat: reference %s, ours %s\n", cfg.Ref, cfg.Ours)
	sum, err := compat.Run(ctx, cfg)
	var usage *compat.ErrUsage
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, usage.Msg)
		return 2
	case err != nil:
		fmt.Fprintln(os.Stderr, "compat:", err)
		return 2
	case sum.Failed > 0:
		return 1
	}
	return 0
}
