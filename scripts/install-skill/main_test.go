package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// harness runs Main with a temporary HOME; nothing outside t.TempDir() is
// written. The binaries are stand-ins in bin, installed with --bin, except
// in the one test that builds them.
type harness struct {
	t    *testing.T
	home string
	bin  string // stand-in binaries for --bin
	env  map[string]string
	goos string // the OS the installer acts for
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, home: t.TempDir(), bin: filepath.Join(t.TempDir(), "bin"), env: map[string]string{}, goos: runtime.GOOS}
	// go env must not find the machine's GOBIN or GOPATH/bin (others.go
	// looks there for the previous installer's binaries).
	h.env["GOBIN"] = filepath.Join(t.TempDir(), "gobin")
	writeFakeBinaries(t, h.bin, h.goos, "v1")
	return h
}

// newWindowsHarness is a harness that installs for Windows, with .exe
// stand-ins: what the installer does there depends on the target OS only,
// so it is checked on every OS.
func newWindowsHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.goos = "windows"
	writeFakeBinaries(t, h.bin, h.goos, "v1")
	return h
}

func (h *harness) run(args ...string) (code int, stdout, stderr string) {
	h.t.Helper()
	var so, se bytes.Buffer
	env := Env{
		Stdout: &so, Stderr: &se,
		Getenv: func(k string) string {
			if v, ok := h.env[k]; ok {
				return v
			}
			if k == "HOME" || k == "USERPROFILE" {
				return h.home
			}
			return ""
		},
		Environ: os.Environ(),
		Dir:     ".",
		GoCmd:   "go",
		GOOS:    h.goos,
	}
	for k, v := range h.env {
		// XDG_CONFIG_HOME is the installer's, not the go tool's: go
		// keeps its telemetry below it, written by a process that may
		// outlive the call, into a folder the test is about to remove.
		if k != "XDG_CONFIG_HOME" {
			env.Environ = append(env.Environ, k+"="+v)
		}
	}
	code = Main(args, env)
	return code, so.String(), se.String()
}

// plugin is where the plugin goes without --dir.
func (h *harness) plugin() string {
	return filepath.Join(h.home, ".claude", "skills", "sdd-go")
}

// testEnv is the process's own environment, for what needs only the go
// tool.
func testEnv() Env { return Env{GoCmd: "go", GOOS: runtime.GOOS, Getenv: os.Getenv, Dir: "."} }

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot(testEnv(), ".")
	require.NoError(t, err)
	return root
}

// fakeBinary is what a stand-in binary of version holds.
func fakeBinary(name, version string) string { return "\x7fELF binary " + name + " " + version }

func writeFakeBinaries(t *testing.T, dir, goos, version string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, name := range ship.Commands {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ship.BinaryName(name, goos)), []byte(fakeBinary(name, version)), 0o755))
	}
}

// readTree returns the regular files under dir by slash-separated path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	require.NoError(t, err)
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func assertMissing(t *testing.T, p string, msgAndArgs ...any) {
	t.Helper()
	_, err := os.Lstat(p)
	assert.True(t, os.IsNotExist(err), msgAndArgs...)
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"stray"},
		{"--replace-scripts", "a", "--restore", "b"},
		{"--replace-scripts", "a", "--dir", "b"},
		{"--replace-scripts", "a", "--no-binaries"},
		{"--restore", "a", "--dir", "b"},
		{"--restore", "a", "--bin", "b"},
		{"--no-binaries", "--bin", "b"},
		{"--dir", ""},
		{"--bin", ""},
		{"--replace-scripts"},
	} {
		h := newHarness(t)
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Empty(t, stdout, "%q", args)
		assert.Contains(t, stderr, "usage: go run ./scripts/install-skill", "%q", args)
		assertMissing(t, filepath.Join(h.home, ".claude"), "%q: nothing installed", args)
	}
	h := newHarness(t)
	code, stdout, stderr := h.run("-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "--replace-scripts DIR")
	assert.Contains(t, stdout, "--no-binaries")
}

func TestNoHomeNeedsDir(t *testing.T) {
	h := newHarness(t)
	h.home = ""
	code, _, stderr := h.run("--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--dir")
}

// TestDocumentedCommandLinesParse: every installer command line in the
// docs and in mk/skill.mk is one the installer accepts.
func TestDocumentedCommandLinesParse(t *testing.T) {
	root := repoRoot(t)
	runRe := regexp.MustCompile(`go run \./scripts/install-skill((?: [^\s|;&)#` + "`" + `]+)*)`)
	makeRe := regexp.MustCompile(`make install-skill(?: ARGS="([^"]*)"| ARGS='([^']*)')?`)
	seen := 0
	for _, rel := range []string{"README.md", "docs/skill.md", "mk/skill.mk"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			var args []string
			if m := runRe.FindStringSubmatch(line); m != nil {
				args = strings.Fields(m[1])
			} else if m := makeRe.FindStringSubmatch(line); m != nil {
				args = strings.Fields(m[1] + m[2])
			} else {
				continue
			}
			if strings.Contains(line, "[flags]") || strings.Contains(line, "$(ARGS)") {
				continue
			}
			seen++
			_, _, err := parseArgs(args)
			assert.NoError(t, err, "%s:%d: %s", rel, i+1, line)
		}
	}
	assert.GreaterOrEqual(t, seen, 6, "the docs show the installer in use")
}

// TestModuleRootCRLF: Git for Windows checks go.mod out with CRLF line
// ends unless told otherwise; the checkout is still found.
func TestModuleRootCRLF(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"),
		[]byte("module github.com/sdd-go/sdd-go\r\n\r\ngo 1.26\r\n"), 0o644))
	sub := filepath.Join(root, "scripts", "install-skill")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	got, err := moduleRoot(testEnv(), sub)
	require.NoError(t, err)
	assert.Equal(t, root, got)
}

// TestModuleRootElsewhere: another module, or none, is not a checkout.
func TestModuleRootElsewhere(t *testing.T) {
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644))
	_, err := moduleRoot(testEnv(), other)
	assert.ErrorContains(t, err, "not inside an sdd-go checkout")
	env := testEnv()
	env.Environ = append(os.Environ(), "GO111MODULE=off")
	_, err = moduleRoot(env, other)
	assert.ErrorContains(t, err, "not inside an sdd-go checkout")
}
