package hostcli

import "fmt"

// The pinned CLIs, one row each: what npm installs of each (the
// platform's native build alone, or one JavaScript bundle), where its
// binary is, what its --version prints; in a package's spec, a binary's
// path and the version's output, {platform} is the platform's build
// (Platform), {version} the row's Version and {triple} the platform's
// entry of Triples. All lists them in the order make test-host runs
// them.
var (
	// Claude is Claude Code. The wrapper @anthropic-ai/claude-code keeps
	// the binary in one package per platform,
	// @anthropic-ai/claude-code-<platform>, which is all Install takes;
	// its Linux builds for musl (Alpine) are apart from the glibc ones.
	Claude = CLI{
		Name: "claude", Title: "Claude Code", Version: "2.1.328", BinaryEnv: "SDD_CLAUDE_CODE",
		Windows: "win32", Musl: true,
		Packages:      []Package{{Spec: "@anthropic-ai/claude-code-{platform}@{version}"}},
		Binary:        "node_modules/@anthropic-ai/claude-code-{platform}/claude",
		VersionOutput: "{version} (Claude Code)",
		Quiet: []string{"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
	}

	// Codex is the OpenAI Codex CLI. Each platform's native build is a
	// version of the wrapper's own package,
	// @openai/codex@<version>-<platform>, which the wrapper depends on
	// under the alias @openai/codex-<platform>; Install takes that alias
	// alone. The Linux builds are linked statically against musl, so one
	// serves glibc and musl alike. Its configuration (codexhost) keeps it
	// quiet.
	Codex = CLI{
		Name: "codex", Title: "Codex CLI", Version: "0.171.0", BinaryEnv: "SDD_CODEX_CLI",
		Windows:       "win32",
		Packages:      []Package{{Spec: "@openai/codex-{platform}@npm:@openai/codex@{version}-{platform}"}},
		Binary:        "node_modules/@openai/codex-{platform}/vendor/{triple}/bin/codex",
		Triples:       codexTriples,
		VersionOutput: "codex-cli {version}",
	}

	// OpenCode is the OpenCode CLI, with @opencode-ai/plugin installed in
	// config/ beside it (opencodehost preinstalls it in every
	// configuration directory of a session). The wrapper, opencode-ai,
	// keeps the binary in one package per platform, opencode-<platform>,
	// which is all Install takes of it: with --ignore-scripts the
	// wrapper's opencode command is a stub that only its install script
	// would replace. Its Linux builds for musl are apart from the glibc
	// ones; the -baseline builds, for x64 processors without AVX2, are
	// not used. The switches keep it off the network: no models.dev
	// catalogue, no update check, no default plugins fetched from npm, no
	// language server downloads.
	OpenCode = CLI{
		Name: "opencode", Title: "OpenCode", Version: "1.18.33", BinaryEnv: "SDD_OPENCODE_CLI",
		Windows: "windows", Musl: true,
		Packages: []Package{
			{Spec: "opencode-{platform}@{version}"},
			{Spec: "@opencode-ai/plugin@{version}", Dir: "config",
				Files: []string{"package.json", "package-lock.json", "node_modules/@opencode-ai/plugin/package.json"}},
		},
		Binary:        "node_modules/opencode-{platform}/bin/opencode",
		VersionOutput: "{version}",
		Quiet: []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1"},
	}

	// Copilot is GitHub Copilot CLI. The wrapper @github/copilot keeps the
	// native binary in one package per platform,
	// @github/copilot-<platform>, which is all Install takes; its Linux
	// builds for musl are linuxmusl-x64 and linuxmusl-arm64.
	Copilot = CLI{
		Name: "copilot", Title: "Copilot CLI", Version: "1.0.102", BinaryEnv: "SDD_COPILOT_CLI",
		Windows: "win32", Musl: true, MuslLinux: "linuxmusl",
		Packages:      []Package{{Spec: "@github/copilot-{platform}@{version}"}},
		Binary:        "node_modules/@github/copilot-{platform}/copilot",
		VersionOutput: "GitHub Copilot CLI {version}. Run 'copilot update' to check for updates.",
		Quiet:         []string{"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false"},
	}

	// Gemini is Gemini CLI: @google/gemini-cli is one JavaScript bundle
	// for every platform (bundle/gemini.js, "#!/usr/bin/env node"), run
	// by the machine's node (20 or later). Its optional dependencies are
	// native modules npm picks for the platform: @lydell/node-pty ships
	// prebuilt and works as installed (the shell tool's terminal);
	// node-pty and @github/keytar need their install scripts, which
	// --ignore-scripts skips, and the CLI goes without them.
	// GEMINI_CLI_NO_RELAUNCH stops it from starting itself again in a
	// second node with a larger heap, which halves its start (3.7 s, not
	// 7.7 s, on the 2-core machine).
	Gemini = CLI{
		Name: "gemini", Title: "Gemini CLI", Version: "0.61.0", BinaryEnv: "SDD_GEMINI_CLI",
		Windows: "win32", Node: true,
		Packages:      []Package{{Spec: "@google/gemini-cli@{version}"}},
		Binary:        "node_modules/@google/gemini-cli/bundle/gemini.js",
		VersionOutput: "{version}",
		Quiet:         []string{"GEMINI_CLI_NO_RELAUNCH=true"},
	}

	// Pi is Pi's coding agent (@mariozechner/pi-coding-agent), JavaScript
	// that the machine's node (20.6 or later) runs (dist/cli.js). Its
	// sibling packages, which it depends on with a caret, are installed
	// first at the same version, so that npm keeps them and the install
	// is the pinned one whole. Its example extensions ship inside it: the
	// installer copies examples/extensions/subagent from the Pi it finds
	// (pihost). Started with stdin no terminal it writes its stdout to
	// stderr, --version among it. PI_OFFLINE is what --offline sets: no
	// update check, no telemetry, nothing fetched; the subagent
	// extension's pi processes inherit it.
	Pi = CLI{
		Name: "pi", Title: "Pi", Version: "0.73.1", BinaryEnv: "SDD_PI_CLI",
		Windows: "win32", Node: true, VersionOnStderr: true,
		Packages: []Package{
			{Spec: "@mariozechner/pi-ai@{version}"},
			{Spec: "@mariozechner/pi-agent-core@{version}"},
			{Spec: "@mariozechner/pi-tui@{version}"},
			{Spec: "@mariozechner/pi-coding-agent@{version}", Files: []string{
				"node_modules/@mariozechner/pi-coding-agent/examples/extensions/subagent/index.ts",
				"node_modules/@mariozechner/pi-coding-agent/examples/extensions/subagent/agents.ts",
				"node_modules/.bin/pi"}},
		},
		Binary:        "node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
		VersionOutput: "{version}",
		Quiet:         []string{"PI_OFFLINE=1"},
	}

	// Droid is Factory's Droid CLI. The wrapper @factory/cli (0.225.1)
	// is a launcher whose optional dependencies are the native builds,
	// @factory/cli-<platform>; npm serves linux-x64 at 0.225.2, the
	// version pinned, and Install takes that package alone (the -baseline
	// builds, for x64 processors without AVX2, are not used; there are no
	// musl builds). FACTORY_AIRGAP_ENABLED stops every outbound attempt:
	// without it a session looks up Factory's hosts dozens of times.
	Droid = CLI{
		Name: "droid", Title: "Factory Droid", Version: "0.225.2", BinaryEnv: "SDD_DROID_CLI",
		Windows:       "win32",
		Packages:      []Package{{Spec: "@factory/cli-{platform}@{version}"}},
		Binary:        "node_modules/@factory/cli-{platform}/bin/droid",
		VersionOutput: "{version}",
		Quiet:         []string{"FACTORY_AIRGAP_ENABLED=1"},
	}

	All = []CLI{Claude, Codex, OpenCode, Copilot, Gemini, Pi, Droid}
)

// codexTriples are the Rust target triples Codex's platform packages keep
// their binary under (vendor/<triple>/bin/), as the wrapper's
// bin/codex.js maps them.
var codexTriples = map[string]string{
	"linux-x64":    "x86_64-unknown-linux-musl",
	"linux-arm64":  "aarch64-unknown-linux-musl",
	"darwin-x64":   "x86_64-apple-darwin",
	"darwin-arm64": "aarch64-apple-darwin",
	"win32-x64":    "x86_64-pc-windows-msvc",
	"win32-arm64":  "aarch64-pc-windows-msvc",
}

// Lookup is the row of All named name.
func Lookup(name string) (CLI, error) {
	var names []string
	for _, c := range All {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return CLI{}, fmt.Errorf("no host CLI %q (the pinned ones: %v)", name, names)
}
