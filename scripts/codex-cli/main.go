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
	"github.com/sdd-go/sdd-go/internal/dev/codexcli"
	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

func main() { npmcli.Main("codex-cli", codexcli.CLI) }
