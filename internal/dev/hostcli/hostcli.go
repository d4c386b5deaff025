// Package hostcli is the one table of the host CLIs the host suites run
// the skill in (table.go: Claude, Codex, OpenCode, Copilot, Gemini, Pi, Droid, each
// its pinned version, npm packages and binary), and the one way each is
// installed from npm into the user's cache (install.go), found by a
// suite (Installed) and started with nothing of the caller's
// environment (Env). A host package (internal/dev/<name>host) adds what
// its sessions need beside (the model's address, a key, a
// configuration); go run ./scripts/hostcli installs or runs any of them.
//
// A newer CLI is a deliberate bump of its Version that its suite must
// pass, like a Go version bump (docs/host.md).
package hostcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CLI describes a host CLI published on npm: one row of the table.
type CLI struct {
	Name    string // claude, codex, …: the name make test-host-<name> and scripts/hostcli take, and its cache's
	Title   string // in messages: "Claude Code"
	Version string // the pinned release
	// BinaryEnv names the variable its suite finds the installed binary
	// by (make test-host-<name> sets it).
	BinaryEnv string

	// Windows is the OS part of the Windows platform names ("win32" or
	// "windows"); Musl says whether Linux has builds linked against
	// musl, platform + "-musl", apart from the glibc ones, or
	// MuslLinux + "-" + arch where MuslLinux is set ("linuxmusl").
	Windows   string
	Musl      bool
	MuslLinux string

	// Node says that the CLI is JavaScript that the machine's node runs
	// (Gemini CLI), not a native build: Binary names the script, the
	// same on every platform and with no .exe on Windows, and the
	// version check runs it as `node SCRIPT --version`, node taken from
	// PATH.
	Node bool

	// VersionOnStderr says that --version prints on stderr, not stdout
	// (Pi: a start whose stdin is no terminal sends what it writes to
	// stdout to stderr, the version among it).
	VersionOnStderr bool

	// Packages are what npm installs, in order.
	Packages []Package
	// Binary is the path of the binary under the install, without the
	// .exe of Windows.
	Binary string
	// Triples name each platform's Rust target triple, where Binary has
	// one (Codex's vendor/<triple>/bin/).
	Triples map[string]string
	// VersionOutput is what `binary --version` prints on stdout, spaces
	// aside: "codex-cli {version}".
	VersionOutput string
	// Quiet are the variables every start of the CLI gets (Env): no
	// update, no telemetry, nothing fetched that a session does without.
	Quiet []string
}

// Package is one npm install of an install: Spec into Dir (relative to
// the install; "" is the install itself), after which each of Files
// (relative to Dir) must be there.
type Package struct {
	Spec  string
	Dir   string
	Files []string
}

// Env is the whole environment of a start of c, nothing of the caller's
// leaking in: home its HOME, under which the XDG directories lie (so its
// configuration, data and caches are the caller's to throw away), tmp
// its TMPDIR, path the PATH its tools see, and c.Quiet. A host appends
// its own variables (a later one of the same name wins).
func (c CLI) Env(home, tmp string, path []string) []string {
	return append([]string{
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1",
	}, c.Quiet...)
}

// RequiredEnv, set to 1, turns a missing CLI from a skip into a failure,
// so make test-host cannot pass by skipping: one switch for every host
// suite.
const RequiredEnv = "SDD_HOST_REQUIRED"

// Installed returns the binary $c.BinaryEnv names (make test-host-<name>
// installs the CLI and sets it). Without it the test is skipped (plain go
// test ./... needs only Go and git), or fails when $SDD_HOST_REQUIRED=1.
func (c CLI) Installed(t testing.TB) string {
	t.Helper()
	p := os.Getenv(c.BinaryEnv)
	if p == "" {
		if os.Getenv(RequiredEnv) == "1" {
			t.Fatalf("$%s is not set: run make test-host-%s", c.BinaryEnv, c.Name)
		}
		t.Skipf("no %s ($%s unset): make test-host-%s installs and runs it", c.Title, c.BinaryEnv, c.Name)
	}
	return p
}

// expand is s of the table with its {platform}, {version} and {triple}
// filled in for platform.
func (c CLI) expand(s, platform string) string {
	return strings.NewReplacer("{platform}", platform, "{version}", c.Version, "{triple}", c.Triples[platform]).Replace(s)
}

// InstallDir is the install that holds bin, a binary Install put there:
// what a host keeps beside it (OpenCode's plugin package, Copilot's
// unpacked cache) is found from it.
func (c CLI) InstallDir(bin string) string {
	dir := bin
	for range strings.Split(c.Binary, "/") {
		dir = filepath.Dir(dir)
	}
	return dir
}
