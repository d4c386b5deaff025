// Package ship is the one description of what this project ships and how it
// is built: the list of commands and the go build line. The tests, the
// benchmarks, the compatibility checker, the release archives and the
// installer all build through it, so each measures and ships the same
// binary.
package ship

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DropIns are the commands that stand in for the reference bash scripts
// of the same names (superpowers' skills/subagent-driven-development/
// scripts/): what the compatibility checker compares, the benchmarks
// measure against the scripts, and --replace-scripts swaps.
var DropIns = []string{"sdd-workspace", "task-brief", "review-package"}

// Commands are the shipped binaries, by directory under cmd/: the drop-ins
// and sdd-ledger, the skill's own command, which keeps the ledger.
var Commands = append(append([]string(nil), DropIns...), "sdd-ledger")

// Tags leave out urfave/cli's man-page and markdown generators (and their
// markdown parser), which positional-only commands never use: a smaller
// binary that starts faster; and let internal/cliapp read the signal
// actions the process started with from the Go runtime's own record
// (sdd_inherited_signals, which needs LDFlags' -checklinkname=0), so that
// a signal ignored at start stays ignored, as it does for the script.
const Tags = "urfave_cli_no_docs,sdd_inherited_signals"

// VersionVar is the variable -ldflags -X stamps; cliapp prints it for
// --version.
const VersionVar = "github.com/sdd-go/sdd-go/internal/cliapp.Version"

// BinaryName is the file name of command on goos.
func BinaryName(command, goos string) string {
	if goos == "windows" {
		return command + ".exe"
	}
	return command
}

// LDFlags strips the symbol table and DWARF data, lets internal/cliapp
// read the runtime's record of the signal actions at start (see Tags) and,
// when version is not empty, stamps it.
func LDFlags(version string) string {
	const flags = "-s -w -checklinkname=0"
	if version == "" {
		return flags
	}
	return flags + " -X " + VersionVar + "=" + version
}

// Build describes one go build of the commands.
type Build struct {
	Go      string   // the go command; "" means "go"
	Root    string   // the module root (where go.mod is)
	Out     string   // the directory the binaries go to (not used with Install)
	Install bool     // go install (into GOBIN, or GOPATH/bin) instead of building into Out
	GOOS    string   // "" for the host's
	GOARCH  string   // "" for the host's
	Version string   // stamped into the binaries; "" leaves --version to the build record
	Race    bool     // build with the race detector (tests run under -race)
	Tags    []string // build tags besides the shipped ones (a test build's)
	Env     []string // extra environment for the go command
	Only    []string // a subset of Commands; nil means all
	Extra   []string // more main packages to build the same way (the bench's floor program)
}

// Args is the go command line of b, without the go command itself.
func (b Build) Args() []string {
	verb := "build"
	if b.Install {
		verb = "install"
	}
	tags := strings.Join(append([]string{Tags}, b.Tags...), ",")
	args := []string{verb, "-trimpath", "-tags", tags, "-ldflags", LDFlags(b.Version)}
	if b.Race {
		args = append(args, "-race")
	}
	if !b.Install {
		args = append(args, "-o", b.Out+string(filepath.Separator))
	}
	cmds := b.Only
	if cmds == nil {
		cmds = Commands
	}
	for _, c := range cmds {
		args = append(args, "./cmd/"+c)
	}
	return append(args, b.Extra...)
}

// Run builds. CGO_ENABLED=0 makes the binaries static (the race detector
// needs cgo, so a race build keeps the host's setting); the baseline
// GOAMD64/GOARM64 keeps a developer's tuned environment from raising the
// CPU a binary needs.
func (b Build) Run(ctx context.Context) error {
	goCmd := b.Go
	if goCmd == "" {
		goCmd = "go"
	}
	if !b.Install {
		if err := os.MkdirAll(b.Out, 0o755); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, goCmd, b.Args()...)
	cmd.Dir = b.Root
	cmd.Env = append(os.Environ(), "GOAMD64=v1", "GOARM64=v8.0")
	if !b.Race {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	}
	if b.GOOS != "" {
		cmd.Env = append(cmd.Env, "GOOS="+b.GOOS)
	}
	if b.GOARCH != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+b.GOARCH)
	}
	cmd.Env = append(cmd.Env, b.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", goCmd, strings.Join(b.Args(), " "), err, out)
	}
	return nil
}

// GitIn returns a runner of git in dir that yields its trimmed stdout.
func GitIn(dir string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
}

// DefaultVersion is the version a build stamps when none is given: the tag
// on HEAD, else what git describe makes of HEAD, else "dev" (no git, no
// repository). A modified tree gets -dirty even on a tag, so a binary never
// passes for the release it is not.
func DefaultVersion(git func(args ...string) (string, error)) string {
	for _, args := range [][]string{
		{"describe", "--tags", "--exact-match", "--dirty"},
		{"describe", "--tags", "--always", "--dirty"},
	} {
		if v, err := git(args...); err == nil && v != "" {
			return v
		}
	}
	return "dev"
}
