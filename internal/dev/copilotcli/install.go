package copilotcli

import (
	"os"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

// CLI is Version as npm publishes it: the wrapper @github/copilot keeps
// the native binary in one package per platform,
// @github/copilot-<platform>, which is all Install takes. Its Linux
// builds for musl are linuxmusl-x64 and linuxmusl-arm64.
var CLI = npmcli.CLI{
	Name: "Copilot CLI", Cache: "copilot", Version: Version,
	Windows: "win32", Musl: true, MuslLinux: "linuxmusl",
	Packages: func(platform string) []npmcli.Package {
		return []npmcli.Package{{Spec: "@github/copilot-" + platform + "@" + Version}}
	},
	Binary: func(platform string) string {
		return "node_modules/@github/copilot-" + platform + "/copilot"
	},
	// Even --version unpacks the CLI's package into XDG_CACHE_HOME: a
	// cache of its own, removed with its HOME.
	VersionEnv: func(home, tmp string) []string {
		return append(os.Environ(), "HOME="+home, "TMPDIR="+tmp, "XDG_CACHE_HOME="+home+"/.cache", "COPILOT_AUTO_UPDATE=false", "COPILOT_OFFLINE=true")
	},
	VersionOutput: "GitHub Copilot CLI " + Version + ". Run 'copilot update' to check for updates.",
}
