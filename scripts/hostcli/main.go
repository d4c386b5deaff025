// Command hostcli installs or runs any of the host CLIs the host suites
// pin (internal/dev/hostcli's table: claude, codex, opencode, copilot,
// gemini, pi, droid), from npm into the user's cache directory
// (sdd-go/<name>/<version>), where a complete install is reused. npm must
// be on PATH, and node (20 or later) for Gemini CLI and Pi. Progress goes to
// stderr.
//
//	go run ./scripts/hostcli list                    # the table: name, version, packages, variable
//	go run ./scripts/hostcli install claude          # prints the binary's path
//	go run ./scripts/hostcli env claude              # prints SDD_CLAUDE_CODE=<path>, for make test-host-claude
//	go run ./scripts/hostcli run gemini -- --version # runs it (node runs Gemini's bundle) in this environment
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

const usage = "usage: hostcli list | install NAME | env NAME | run NAME [-- ARGS...]"

func main() {
	code, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostcli: %v\n", err)
	}
	os.Exit(code)
}

// run is the command: its exit status, and an error to print.
func run(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 1 && args[0] == "list" {
		for _, c := range hostcli.All {
			var specs []string
			for _, p := range c.Packages {
				specs = append(specs, p.Spec)
			}
			fmt.Fprintf(stdout, "%-9s %-9s %-17s %s\n", c.Name, c.Version, c.BinaryEnv, strings.Join(specs, " "))
		}
		return 0, nil
	}
	if len(args) < 2 {
		return 2, errors.New(usage)
	}
	verb, rest := args[0], args[2:]
	switch {
	case verb == "run" && len(rest) > 0 && rest[0] == "--":
		rest = rest[1:]
	case verb != "install" && verb != "env" && verb != "run", len(rest) > 0:
		return 2, errors.New(usage)
	}
	c, err := hostcli.Lookup(args[1])
	if err != nil {
		return 2, err
	}
	bin, err := c.InstallHere(context.Background(), stderr)
	if err != nil {
		return 1, err
	}
	switch verb {
	case "install":
		fmt.Fprintln(stdout, bin)
	case "env":
		fmt.Fprintf(stdout, "%s=%s\n", c.BinaryEnv, bin)
	case "run":
		argv := []string{bin}
		if c.Node {
			argv = []string{"node", bin}
		}
		cmd := exec.Command(argv[0], append(argv[1:], rest...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
		var exit *exec.ExitError
		if err := cmd.Run(); errors.As(err, &exit) && exit.ExitCode() >= 0 {
			return exit.ExitCode(), nil
		} else if err != nil {
			return 1, err
		}
	}
	return 0, nil
}
