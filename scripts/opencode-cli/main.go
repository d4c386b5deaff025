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
	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
	"github.com/sdd-go/sdd-go/internal/dev/opencodecli"
)

func main() { npmcli.Main("opencode-cli", opencodecli.CLI) }
