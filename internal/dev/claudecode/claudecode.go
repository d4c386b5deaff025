// Package claudecode is the Claude Code CLI the host tests run the skill
// in: the one pinned version, how a test finds the installed binary, and
// the isolated, offline environment a session runs in.
//
// A newer CLI is a deliberate bump of Version that the host suite must
// pass, like a Go version bump.
package claudecode

import (
	"os"
	"strings"
	"testing"
)

// Version is the pinned @anthropic-ai/claude-code release.
const Version = "2.1.328"

// BinaryEnv names the variable holding the path of the installed claude
// binary; make test-host sets it after installing Version.
const BinaryEnv = "SDD_CLAUDE_CODE"

// Binary returns the claude binary named by $SDD_CLAUDE_CODE. Without it
// the test is skipped (plain go test ./... needs only Go and git), or fails
// when $SDD_HOST_REQUIRED=1.
func Binary(t testing.TB) string {
	t.Helper()
	return CLI.Installed(t, BinaryEnv)
}

// Env is the whole environment of a claude process: nothing of the
// caller's leaks in. home is its HOME (its ~/.claude), tmp its TMPDIR
// (where it keeps task output), run its XDG_RUNTIME_DIR (see RuntimeDir),
// baseURL the scripted model's loopback address, and path the PATH its
// tools see.
func Env(home, tmp, run, baseURL string, path []string) []string {
	return []string{
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"XDG_RUNTIME_DIR=" + run,
		"XDG_CONFIG_HOME=" + home + "/.config",
		"XDG_CACHE_HOME=" + home + "/.cache",
		"XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_STATE_HOME=" + home + "/.local/state",
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=sk-ant-test-offline",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// RuntimeDir makes a short directory for a claude process's
// XDG_RUNTIME_DIR, removed when the test ends. The CLI puts a socket in
// <XDG_RUNTIME_DIR or TMPDIR>/cc-socks/<pid>.sock, and where that path is
// over 103 bytes (a test's TMPDIR under a long test name) it falls back to
// /tmp/cc-socks-<uid>, a directory it leaves behind on the machine.
func RuntimeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
