// Command install-skill installs sdd-go for Claude Code as one plugin, the
// skill and the four binaries together, and, on request, swaps the bash
// scripts of an installed superpowers skill for the binaries.
//
// Run it from a clone of sdd-go:
//
//	go run ./scripts/install-skill [--dir DIR] [--force] [--no-binaries | --bin DIR]
//	go run ./scripts/install-skill --host codex|opencode|copilot|gemini|pi|droid [--dir DIR] [--force] [--bin DIR]
//	go run ./scripts/install-skill --uninstall [--host HOST] [--dir DIR] [--force]
//	go run ./scripts/install-skill --replace-scripts DIR [--bin DIR] [--force]
//	go run ./scripts/install-skill --restore DIR [--force]
//
// It is written in Go, not shell, so that it runs the same on Windows.
//
// The plugin goes to ~/.claude/skills/sdd-go/ (or --dir), where Claude Code
// loads it as sdd-go@skills-dir and puts its bin/ on the PATH of its tools
// (plugin.go). For Codex CLI, OpenCode, Copilot CLI, Gemini CLI, Pi and
// Factory Droid (--host), which load skills from a skills folder and put
// no plugin's bin/ on PATH, it installs the skill as a folder of its own
// with the binaries in its bin/ (hosts.go), and what the host needs
// beside it: Gemini CLI's policy (policy.go), Pi's subagent extension
// (pi.go), Droid's allowlist of the four commands (droid.go). Every
// file is placed through a manifest of SHA-256 sums, so
// an untouched install is updated silently and one someone edited is left
// alone unless --force (place.go). What else would show the model a skill
// of the same name is removed when it is the previous installer's
// untouched copy, and named otherwise (others.go). --replace-scripts is
// swap.go and --restore restore.go, what the two share (finding the
// scripts, telling a file's kind, refusing) scripts.go; they too overwrite
// or delete no file they did not write unless --force. None of them
// writes through or removes a link of the user's (links.go), or leaves a
// temporary file behind, even when a signal stops it (scratch.go).
//
// Exit status: 0 on success, 2 on bad usage, 1 on any other failure.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	finish := stopOnSignals()
	code := Main(os.Args[1:], system())
	finish()
	os.Exit(code)
}

// Env is everything the installer takes from the process, so tests can
// run it in a temporary HOME without touching the real one.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        []string // for child processes; nil means inherit
	Dir            string   // working directory: where the module is looked for
	GoCmd          string   // the go tool
	GOOS           string   // the OS installed for: binary names, HOME's variable
}

func system() Env {
	wd, _ := os.Getwd()
	return Env{
		Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv,
		Dir:    wd,
		GoCmd:  "go",
		GOOS:   runtime.GOOS,
	}
}

type options struct {
	host       string
	dir        string
	force      bool
	noBinaries bool
	uninstall  bool
	bin        string
	replace    string
	restore    string
}

// usageError is a command line the installer cannot act on: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usageText = `usage: go run ./scripts/install-skill [--dir DIR] [--force] [--no-binaries | --bin DIR]
       go run ./scripts/install-skill --host codex|opencode|copilot|gemini|pi|droid [--dir DIR] [--force] [--bin DIR]
       go run ./scripts/install-skill --uninstall [--host HOST] [--dir DIR] [--force]
       go run ./scripts/install-skill --replace-scripts DIR [--bin DIR] [--force]
       go run ./scripts/install-skill --restore DIR [--force]

Installs the Claude Code plugin sdd-go (the skill and the four binaries) into
~/.claude/skills/sdd-go/; with --host, the skill with the binaries in its bin/
into Codex CLI's ~/.codex/skills/, OpenCode's ~/.config/opencode/skills/,
Copilot CLI's ~/.copilot/skills/, Gemini CLI's ~/.gemini/skills/ (with its
policy, ~/.gemini/policies/sdd-go.toml), Pi's ~/.pi/agent/skills/ (with its
subagent extension and an agent for it) or Factory Droid's ~/.factory/skills/
(with the four commands in the commandAllowlist of ~/.factory/settings.json).
Or swaps the bash scripts of an installed superpowers skill for the binaries
and back.

`

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("install-skill", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.host, "host", hostClaudeCode, "the `HOST` to install for: claude-code, codex, opencode, copilot, gemini, pi or droid")
	fs.StringVar(&o.dir, "dir", "", "install into `DIR` instead of the host's place (~/.claude/skills/sdd-go for claude-code)")
	fs.BoolVar(&o.uninstall, "uninstall", false, "remove what the installer put in the host's place (or --dir), leaving files it did not write")
	fs.BoolVar(&o.force, "force", false, "overwrite or delete files the installer did not write, or that were modified since")
	fs.BoolVar(&o.noBinaries, "no-binaries", false, "install the plugin without bin/ (the skill then uses the commands on PATH)")
	fs.StringVar(&o.bin, "bin", "", "take the binaries from `DIR` instead of building them (install) or of the plugin's bin/ (--replace-scripts)")
	fs.StringVar(&o.replace, "replace-scripts", "", "replace the bash scripts in the superpowers skill `DIR` (or its scripts/) with the binaries")
	fs.StringVar(&o.restore, "restore", "", "put back the bash scripts set aside by --replace-scripts in `DIR`")
	return fs
}

func parseArgs(args []string) (options, bool, error) {
	var o options
	fs := newFlagSet(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, true, nil
		}
		return o, false, usageError{err.Error()}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	swap := set["replace-scripts"] || set["restore"]
	switch {
	case fs.NArg() > 0:
		return o, false, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case set["replace-scripts"] && set["restore"]:
		return o, false, usageError{"--replace-scripts and --restore exclude each other"}
	case swap && (set["dir"] || set["no-binaries"] || set["host"]):
		return o, false, usageError{"--host, --dir and --no-binaries apply to the install, not to --replace-scripts or --restore"}
	case set["uninstall"] && (swap || set["bin"] || set["no-binaries"]):
		return o, false, usageError{"--uninstall goes with --host, --dir and --force only"}
	case !slices.Contains(hosts, o.host):
		return o, false, usageError{fmt.Sprintf("--host %q: not one of %s", o.host, strings.Join(hosts, ", "))}
	case o.host != hostClaudeCode && set["no-binaries"]:
		return o, false, usageError{"--no-binaries goes with claude-code only: in " + o.host + " the skill runs the commands from its own bin/"}
	case set["bin"] && (set["restore"] || set["no-binaries"]):
		return o, false, usageError{"--bin goes with the plugin install or --replace-scripts, and not with --no-binaries"}
	}
	for name, v := range map[string]string{"dir": o.dir, "replace-scripts": o.replace, "restore": o.restore, "bin": o.bin} {
		if set[name] && v == "" {
			return o, false, usageError{"--" + name + " needs a directory"}
		}
	}
	return o, false, nil
}

// Main runs the installer and returns the exit status.
func Main(args []string, env Env) int {
	o, help, err := parseArgs(args)
	if help {
		fmt.Fprint(env.Stdout, usageText)
		newFlagSet(&options{}).VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(env.Stdout, "  --%s %s\n    \t%s\n", f.Name, name, usage)
		})
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "install-skill: %s\n%s", ue.msg, usageText)
		return 2
	}
	switch {
	case o.replace != "":
		err = replaceScripts(o, env)
	case o.restore != "":
		err = restoreScripts(o, env)
	case o.uninstall:
		err = uninstall(o, env)
	default:
		err = install(o, env)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "install-skill: %v\n", err)
		return 1
	}
	return 0
}

func logf(env Env, format string, args ...any) {
	fmt.Fprintf(env.Stderr, "install-skill: "+format+"\n", args...)
}

func homeDir(env Env) (string, error) {
	key := "HOME"
	if env.GOOS == "windows" {
		key = "USERPROFILE"
	}
	h := env.Getenv(key)
	if h == "" {
		return "", fmt.Errorf("$%s is not set; say where to install with --dir", key)
	}
	return h, nil
}

// modulePath is the module the installer belongs to.
const modulePath = "github.com/sdd-go/sdd-go"

// moduleRoot finds the sdd-go checkout the installer runs from, dir being
// a directory inside it. The go tool finds and reads go.mod, so a checkout
// with CRLF line ends (Git for Windows' default) is found like any other.
func moduleRoot(env Env, dir string) (string, error) {
	notHere := fmt.Errorf("not inside an sdd-go checkout (no go.mod of %s above %s)", modulePath, dir)
	out, err := goOutput(env, dir, "env", "GOMOD")
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull || gomod == "NUL" || gomod == "/dev/null" {
		return "", notHere
	}
	out, err = goOutput(env, dir, "mod", "edit", "-json", gomod)
	if err != nil {
		return "", err
	}
	var mod struct{ Module struct{ Path string } }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go mod edit -json %s: %v", gomod, err)
	}
	if mod.Module.Path != modulePath {
		return "", notHere
	}
	return filepath.Dir(gomod), nil
}

// goOutput runs the go tool in dir and returns its stdout; a failure
// carries its stderr.
func goOutput(env Env, dir string, args ...string) ([]byte, error) {
	c := exec.Command(env.GoCmd, args...)
	c.Dir = dir
	c.Env = env.Environ
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out, nil
}
