package opencodecli

import (
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

// CLI is Version as npm publishes it, with pluginPackage installed beside
// it for PreinstallPlugin. The wrapper, opencode-ai, keeps the binary in
// one package per platform, opencode-<platform>, which is all Install
// takes of it: with --ignore-scripts the wrapper's opencode command is a
// stub that only its install script would replace. Its Linux builds for
// musl (Alpine) are apart from the glibc ones; the -baseline builds, for
// x64 processors without AVX2, are not used.
var CLI = npmcli.CLI{
	Name: "OpenCode", Cache: "opencode", Version: Version,
	Windows: "windows", Musl: true,
	Packages: func(platform string) []npmcli.Package {
		return []npmcli.Package{
			{Spec: "opencode-" + platform + "@" + Version},
			{Spec: pluginPackage + "@" + Version, Dir: configDeps, Files: []string{"package.json", "package-lock.json", pluginManifest}},
		}
	},
	Binary: func(platform string) string {
		return "node_modules/opencode-" + platform + "/bin/opencode"
	},
	// Even --version makes its directories under HOME and the XDG
	// directories.
	VersionEnv: func(home, tmp string) []string {
		return Env(home, tmp, filepath.SplitList(os.Getenv("PATH")))
	},
	VersionOutput: Version,
}

// pluginPackage is the package opencode wants in every configuration
// directory (see PreinstallPlugin), pinned to Version as opencode pins it;
// pluginManifest is its package.json in an npm prefix.
const (
	pluginPackage  = "@opencode-ai/plugin"
	pluginManifest = "node_modules/" + pluginPackage + "/package.json"
)

// configDeps is the directory of an install holding pluginPackage,
// installed alone, with its package.json and package-lock.json.
const configDeps = "config"
