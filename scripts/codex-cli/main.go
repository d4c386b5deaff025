// Command codex-cli installs the Codex CLI the Codex host tests run
// (internal/dev/codexcli.Version) and prints the path of its binary.
//
//	go run ./scripts/codex-cli
//
// The binary comes from npm, the platform's build only (the
// @openai/codex-<platform> alias of @openai/codex@<version>-<platform>),
// into the user's cache directory (sdd-go/codex/<version>), where a
// complete install is reused. npm must be on PATH. Progress goes to
// stderr; stdout holds the path alone, for make test-host to put in
// $SDD_CODEX_CLI.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/sdd-go/sdd-go/internal/dev/codexcli"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "codex-cli: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 {
		return fmt.Errorf("takes no arguments (it installs Codex %s)", codexcli.Version)
	}
	platform, err := codexcli.HostPlatform()
	if err != nil {
		return err
	}
	dir, err := codexcli.CacheDir()
	if err != nil {
		return err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm is needed to install Codex %s: %v", codexcli.Version, err)
	}
	bin, err := codexcli.Install(context.Background(), npm, dir, platform, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println(bin)
	return nil
}
