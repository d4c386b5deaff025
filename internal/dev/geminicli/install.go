package geminicli

import (
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
)

// CLI is Version as npm publishes it: @google/gemini-cli is one
// JavaScript bundle for every platform (bundle/gemini.js, its package's
// bin, "#!/usr/bin/env node"), run by the machine's node (20 or later).
// Its optional dependencies are native modules npm picks for the
// platform: @lydell/node-pty ships prebuilt and works as installed, which
// the shell tool uses for a terminal; node-pty and @github/keytar need
// their install scripts, which --ignore-scripts skips, so they stay
// unbuilt and the CLI goes without them (an API key needs no keychain).
var CLI = npmcli.CLI{
	Name: "Gemini CLI", Cache: "gemini", Version: Version,
	Windows: "win32", Node: true,
	Packages: func(string) []npmcli.Package {
		return []npmcli.Package{{Spec: Package + "@" + Version}}
	},
	Binary: func(string) string { return "node_modules/" + Package + "/bundle/gemini.js" },
	// --version writes ~/.gemini/projects.json (the CLI's map of
	// project folders) in the HOME it is given.
	VersionEnv: func(home, tmp string) []string {
		return Env(home, tmp, "", filepath.SplitList(os.Getenv("PATH")))
	},
	VersionOutput: Version,
}

// Package is the npm package of the CLI.
const Package = "@google/gemini-cli"
