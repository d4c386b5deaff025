// Command opencode-cli installs the OpenCode CLI the OpenCode host tests
// run (internal/dev/opencodecli.Version) and prints the path of its
// binary.
//
//	go run ./scripts/opencode-cli
//
// The binary comes from npm, the platform's package only
// (opencode-<platform>), into the user's cache directory
// (sdd-go/opencode/<version>), with @opencode-ai/plugin installed beside it
// for the sessions' configuration directories; a complete install there is
// reused. npm must be on PATH. Progress goes to stderr; stdout holds the
// path alone, for make test-host to put in $SDD_OPENCODE_CLI.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/sdd-go/sdd-go/internal/dev/opencodecli"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "opencode-cli: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 {
		return fmt.Errorf("takes no arguments (it installs OpenCode %s)", opencodecli.Version)
	}
	platform, err := opencodecli.HostPlatform()
	if err != nil {
		return err
	}
	dir, err := opencodecli.CacheDir()
	if err != nil {
		return err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm is needed to install OpenCode %s: %v", opencodecli.Version, err)
	}
	bin, err := opencodecli.Install(context.Background(), npm, dir, platform, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println(bin)
	return nil
}
