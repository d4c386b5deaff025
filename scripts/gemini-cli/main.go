// Command gemini-cli installs the Gemini CLI the Gemini host tests run
// (internal/dev/geminicli.Version) and prints the path of its script.
//
//	go run ./scripts/gemini-cli
//
// The CLI comes from npm, @google/gemini-cli@<version> (one JavaScript
// bundle for every platform, with its optional native modules), into the
// user's cache directory (sdd-go/gemini/<version>), where a complete
// install is reused. npm and node (20 or later) must be on PATH. Progress
// goes to stderr; stdout holds the path of bundle/gemini.js alone, for
// $SDD_GEMINI_CLI.
package main

import (
	"github.com/sdd-go/sdd-go/internal/dev/geminicli"
	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

func main() { npmcli.Main("gemini-cli", geminicli.CLI) }
