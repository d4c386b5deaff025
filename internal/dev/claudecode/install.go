package claudecode

import (
	"os"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

// CLI is Version as npm publishes it: the wrapper
// @anthropic-ai/claude-code keeps the binary in one package per platform,
// @anthropic-ai/claude-code-<platform>, which is all Install takes. Its
// Linux builds for musl (Alpine) are apart from the glibc ones.
var CLI = npmcli.CLI{
	Name: "Claude Code", Cache: "claude-code", Version: Version,
	Windows: "win32", Musl: true,
	Packages: func(platform string) []npmcli.Package {
		return []npmcli.Package{{Spec: "@anthropic-ai/claude-code-" + platform + "@" + Version}}
	},
	Binary: func(platform string) string {
		return "node_modules/@anthropic-ai/claude-code-" + platform + "/claude"
	},
	VersionEnv: func(home, tmp string) []string {
		return append(os.Environ(), "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1")
	},
	VersionOutput: Version + " (Claude Code)",
}
