// Command claude-code installs the Claude Code CLI the host tests run
// (internal/dev/claudecode.Version) and prints the path of its binary.
//
//	go run ./scripts/claude-code
//
// The binary comes from npm, the platform's package only
// (@anthropic-ai/claude-code-<platform>), into the user's cache directory
// (sdd-go/claude-code/<version>), where a complete install is reused. npm
// must be on PATH. Progress goes to stderr; stdout holds the path alone,
// for make test-host to put in $SDD_CLAUDE_CODE.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/sdd-go/sdd-go/internal/dev/claudecode"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "claude-code: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 {
		return fmt.Errorf("takes no arguments (it installs Claude Code %s)", claudecode.Version)
	}
	platform, err := claudecode.HostPlatform()
	if err != nil {
		return err
	}
	dir, err := claudecode.CacheDir()
	if err != nil {
		return err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm is needed to install Claude Code %s: %v", claudecode.Version, err)
	}
	bin, err := claudecode.Install(context.Background(), npm, dir, platform, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println(bin)
	return nil
}
