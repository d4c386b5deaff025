package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Target is one GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// DefaultTargets are what a release ships: the three OSes the tools are
// tested for, on both architectures their machines come in.
var DefaultTargets = []Target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// parseTargets reads "linux/amd64,windows/arm64".
func parseTargets(s string) ([]Target, error) {
	var ts []Target
	for _, f := range strings.Split(s, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
			return nil, fmt.Errorf("bad target %q: want GOOS/GOARCH, e.g. linux/amd64", f)
		}
		ts = append(ts, Target{goos, goarch})
	}
	return ts, nil
}

// Config is one run of dist.
type Config struct {
	Root    string    // the repository: cmd/, skill/, README.md, LICENSE
	Out     string    // where archives and checksums go
	Version string    // stamped into the binaries and the file names
	GoCmd   string    // the go command
	Targets []Target  // what to build
	ModTime time.Time // every archive entry's modification time
	Log     io.Writer // progress and the go command's output
}

// validVersion keeps the version usable as a file name and as one word of
// -ldflags (which splits on spaces).
var validVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)

func checkVersion(v string) error {
	if !validVersion.MatchString(v) {
		return fmt.Errorf("bad version %q: want letters, digits and . _ + - (a tag such as v1.2.3)", v)
	}
	return nil
}

// ArchiveBase is the archive's name without extension and its top folder.
func ArchiveBase(version string, t Target) string {
	return "sdd-go_" + version + "_" + t.OS + "_" + t.Arch
}

// ArchiveName is the archive's file name: a zip for Windows, where
// Explorer opens it without tools, a gzipped tar elsewhere, which keeps the
// executable bits.
func ArchiveName(version string, t Target) string {
	if t.OS == "windows" {
		return ArchiveBase(version, t) + ".zip"
	}
	return ArchiveBase(version, t) + ".tar.gz"
}

// PluginArchiveName is the plugin archive's file name: a zip, which is
// what `claude --plugin-dir` loads, for every OS.
func PluginArchiveName(version string, t Target) string {
	return "sdd-go-plugin_" + version + "_" + t.OS + "_" + t.Arch + ".zip"
}

// SkillArchiveName is the skill archive's file name: a zip of the skill's
// folder, for the hosts that load a skill from a skills directory.
func SkillArchiveName(version string, t Target) string {
	return "sdd-go-skill_" + version + "_" + t.OS + "_" + t.Arch + ".zip"
}

// ChecksumsName is the checksums file's name.
func ChecksumsName(version string) string { return "sdd-go_" + version + "_checksums.txt" }

// fallbackTime stamps archive entries when neither SOURCE_DATE_EPOCH nor
// git gives a time.
var fallbackTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// SourceDate is the time every archive entry carries: SOURCE_DATE_EPOCH
// (the reproducible-builds convention) when set, else the commit time of
// HEAD, else fallbackTime. A fixed time, unlike the files' own, is the
// same on every machine and every checkout.
func SourceDate(epoch string, git func(args ...string) (string, error)) (time.Time, error) {
	if epoch != "" {
		n, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil || n < 0 {
			return time.Time{}, fmt.Errorf("bad SOURCE_DATE_EPOCH %q: want seconds since 1970", epoch)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	if s, err := git("log", "-1", "--format=%ct"); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return time.Unix(n, 0).UTC(), nil
		}
	}
	return fallbackTime, nil
}

// Run builds every target's archive into cfg.Out, then the checksums file.
func Run(ctx context.Context, cfg Config) error {
	if err := checkVersion(cfg.Version); err != nil {
		return err
	}
	for _, p := range []string{"README.md", "LICENSE", "skill"} {
		if _, err := os.Stat(filepath.Join(cfg.Root, p)); err != nil {
			return fmt.Errorf("not the root of an sdd-go clone: %w", err)
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "sdd-go-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	var names []string
	for _, t := range cfg.Targets {
		binDir := filepath.Join(work, t.OS+"_"+t.Arch)
		fmt.Fprintf(cfg.Log, "dist: build %s\n", t)
		if err := build(ctx, cfg, t, binDir); err != nil {
			return fmt.Errorf("build %s: %w", t, err)
		}
		archive, err := Layout(cfg.Root, binDir, cfg.Version, t)
		if err != nil {
			return err
		}
		plugin, err := PluginLayout(cfg.Root, binDir, cfg.Version, t)
		if err != nil {
			return err
		}
		folder, err := SkillFolderLayout(cfg.Root, binDir, cfg.Version, t)
		if err != nil {
			return err
		}
		for _, a := range []struct {
			name    string
			entries []Entry
			zip     bool
		}{
			{ArchiveName(cfg.Version, t), archive, t.OS == "windows"},
			{PluginArchiveName(cfg.Version, t), plugin, true},
			{SkillArchiveName(cfg.Version, t), folder, true},
		} {
			err = writeFile(filepath.Join(cfg.Out, a.name), func(w io.Writer) error {
				if a.zip {
					return WriteZip(w, a.entries, cfg.ModTime)
				}
				return WriteTarGz(w, a.entries, cfg.ModTime)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cfg.Log, "dist: wrote %s\n", filepath.Join(cfg.Out, a.name))
			names = append(names, a.name)
		}
	}
	sums := filepath.Join(cfg.Out, ChecksumsName(cfg.Version))
	err = writeFile(sums, func(w io.Writer) error { return WriteChecksums(w, cfg.Out, names) })
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "dist: wrote %s\n", sums)
	return nil
}

// build compiles the commands for t into binDir, as they ship.
func build(ctx context.Context, cfg Config, t Target, binDir string) error {
	b := ship.Build{Go: cfg.GoCmd, Root: cfg.Root, Out: binDir, GOOS: t.OS, GOARCH: t.Arch, Version: cfg.Version}
	return b.Run(ctx)
}
