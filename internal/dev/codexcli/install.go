package codexcli

import (
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

// CLI is Version as npm publishes it. Each platform's native build is a
// version of the wrapper's own package, @openai/codex@<Version>-<platform>,
// which the wrapper depends on under the alias @openai/codex-<platform>;
// Install takes that alias alone (spec). The Linux builds are linked
// statically against musl, so one build serves glibc and musl alike.
var CLI = npmcli.CLI{
	Name: "Codex", Cache: "codex", Version: Version,
	Windows: "win32", Musl: false,
	Packages: func(platform string) []npmcli.Package {
		return []npmcli.Package{{Spec: spec(platform)}}
	},
	Binary: func(platform string) string {
		return "node_modules/@openai/codex-" + platform + "/vendor/" + triples[platform] + "/bin/codex"
	},
	// Even --version links the CLI's helpers into $CODEX_HOME/tmp (see Env).
	VersionEnv: func(home, tmp string) []string {
		return Env(home, filepath.Join(home, ".codex"), tmp, filepath.SplitList(os.Getenv("PATH")))
	},
	VersionOutput: "codex-cli " + Version,
}

// spec is the npm spec Install installs for platform: the alias the
// wrapper's optionalDependencies name.
func spec(platform string) string {
	return "@openai/codex-" + platform + "@npm:@openai/codex@" + Version + "-" + platform
}

// triples are the Rust target triples the platform packages keep their
// binary under (vendor/<triple>/bin/), as the wrapper's bin/codex.js maps
// them.
var triples = map[string]string{
	"linux-x64":    "x86_64-unknown-linux-musl",
	"linux-arm64":  "aarch64-unknown-linux-musl",
	"darwin-x64":   "x86_64-apple-darwin",
	"darwin-arm64": "aarch64-apple-darwin",
	"win32-x64":    "x86_64-pc-windows-msvc",
	"win32-arm64":  "aarch64-pc-windows-msvc",
}
