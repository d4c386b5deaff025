package claudehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

// closedURL is a model address nothing answers at (the discard port), for
// commands that never ask a model.
const closedURL = "http://127.0.0.1:9"

// Offline runs `claude args...` for a command that talks to no model
// (plugin validate, plugin list, plugin marketplace add and plugin install
// from a local directory) in home, with home as its HOME and home/tmp as
// its TMPDIR, so it reads and writes nothing of the machine's. It skips
// the test without the CLI (hostcli.Claude.Installed), fails it when
// claude cannot be run, and returns what claude printed and its exit
// status.
func Offline(t testing.TB, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := hostcli.Claude.Installed(t)
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = home
	cmd.Env = env(home, tmp, RuntimeDir(t), closedURL, filepath.SplitList(os.Getenv("PATH")))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("claude %v: %v\n%s", args, err, se.String())
	}
	return so.String(), se.String(), code
}

// Provides is what `claude plugin validate` says a plugin provides: its
// skills as the model sees them, and its bin/ commands, sorted.
type Provides struct{ Skills, Bin []string }

// ValidateStrict runs `claude plugin validate --strict --json dir` with
// Offline. It fails the test unless the plugin passes with no error and
// no warning, and returns what the plugin provides.
func ValidateStrict(t testing.TB, home, dir string) Provides {
	t.Helper()
	stdout, stderr, code := Offline(t, home, "plugin", "validate", "--strict", "--json", dir)
	var v struct {
		Success  bool
		Manifest struct{ Errors, Warnings []any }
		Provides Provides
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("claude plugin validate --json: exit %d, not a report: %v\n%s%s", code, err, stdout, stderr)
	}
	if code != 0 || !v.Success || len(v.Manifest.Errors)+len(v.Manifest.Warnings) > 0 {
		t.Fatalf("claude plugin validate --strict %s: exit %d\n%s%s", dir, code, stdout, stderr)
	}
	sort.Strings(v.Provides.Bin)
	return v.Provides
}

// env is the whole environment of a claude process (hostcli.Claude.Env):
// home is its HOME (its ~/.claude), tmp its TMPDIR (where it keeps task
// output), run its XDG_RUNTIME_DIR (see RuntimeDir), baseURL the scripted
// model's loopback address, and path the PATH its tools see.
func env(home, tmp, run, baseURL string, path []string) []string {
	return append(hostcli.Claude.Env(home, tmp, path),
		"XDG_RUNTIME_DIR="+run,
		"ANTHROPIC_BASE_URL="+baseURL,
		"ANTHROPIC_API_KEY=sk-ant-test-offline")
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
