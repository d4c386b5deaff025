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
	"github.com/sdd-go/sdd-go/internal/dev/claudecode"
	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

func main() { npmcli.Main("claude-code", claudecode.CLI) }
