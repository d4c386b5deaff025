// Command dist builds the release archives: the four binaries for every
// target a release ships, each packed with the skill text, README and
// LICENSE, the same as a Claude Code plugin, and one checksums file.
//
// Run it from the root of a clone (make dist does):
//
//	go run ./scripts/dist [-version v1.2.3] [-out dist] [-targets linux/amd64,windows/arm64] [-go go]
//
// It writes, for each target,
//
//	dist/sdd-go_<version>_<os>_<arch>.tar.gz   (.zip for windows)
//
// holding one folder sdd-go_<version>_<os>_<arch>/ with bin/ (the binaries,
// .exe on windows), skill/, README.md and LICENSE;
//
//	dist/sdd-go-plugin_<version>_<os>_<arch>.zip
//
// holding the plugin sdd-go at its root (.claude-plugin/plugin.json,
// skills/subagent-driven-development/, bin/, README.md, LICENSE: the layout
// install-skill installs), which `claude --plugin-dir` loads as it is; and
//
//	dist/sdd-go_<version>_checksums.txt
//
// in sha256sum format, so `sha256sum -c` checks a download.
//
// It is written in Go, not shell, so that a release can be cut on Windows too.
// The binaries are built with CGO_ENABLED=0 and -trimpath, so they depend on
// nothing but the OS and carry no path of the machine that built them; the
// archives list their entries in sorted order with fixed owners and one
// modification time (SOURCE_DATE_EPOCH, else the commit's time), so the same
// commit gives byte-identical archives when the Go toolchain gives identical
// binaries.
//
// The version defaults to the tag on HEAD (with -dirty when the tree is
// modified), else `git describe --tags --always --dirty`, else "dev".
//
// Exit status: 0 on success, 2 on bad usage, 1 on any other failure.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"io"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	status := Main(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(status)
}

// errUsage marks a command line Main refuses with status 2.
var errUsage = errors.New("usage")

// Main parses args, builds the archives and returns the exit status.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = Run(ctx, cfg)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "dist:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "dist:", err)
		return 1
	}
}

// parseArgs turns the command line into a Config, filling what is not given
// from the repository in the current directory.
func parseArgs(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "version stamped into the binaries and archive names (default: from git describe)")
	out := fs.String("out", "dist", "directory the archives and checksums are written to")
	targets := fs.String("targets", "", "comma-separated GOOS/GOARCH list (default: "+joinTargets(DefaultTargets)+")")
	goCmd := fs.String("go", "go", "the go command that builds the binaries")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, err
		}
		return Config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	cfg := Config{
		Root:    ".",
		Out:     *out,
		Version: *version,
		GoCmd:   *goCmd,
		Targets: DefaultTargets,
		Log:     stderr,
	}
	if *targets != "" {
		ts, err := parseTargets(*targets)
		if err != nil {
			return Config{}, fmt.Errorf("%w: %v", errUsage, err)
		}
		cfg.Targets = ts
	}
	if cfg.Version == "" {
		cfg.Version = ship.DefaultVersion(ship.GitIn(cfg.Root))
	}
	if err := checkVersion(cfg.Version); err != nil {
		return Config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	mtime, err := SourceDate(os.Getenv("SOURCE_DATE_EPOCH"), ship.GitIn(cfg.Root))
	if err != nil {
		return Config{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	cfg.ModTime = mtime
	return cfg, nil
}

func joinTargets(ts []Target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}
