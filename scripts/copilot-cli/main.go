// Command copilot-cli installs the GitHub Copilot CLI the host tests run
// (internal/dev/copilotcli.Version) and prints the path of its binary.
//
//	go run ./scripts/copilot-cli
//
// The binary comes from npm, the platform's package only
// (@github/copilot-<platform>), into the user's cache directory
// (sdd-go/copilot/<version>), where a complete install is reused. npm
// must be on PATH. Progress goes to stderr; stdout holds the path alone,
// for make test-host to put in $SDD_COPILOT_CLI.
package main

import (
	"github.com/sdd-go/sdd-go/internal/dev/copilotcli"
	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

func main() { npmcli.Main("copilot-cli", copilotcli.CLI) }
