package hostcli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each row's platform names, as its npm wrapper's optionalDependencies
// name them: musl builds apart or not, win32 or windows, linuxmusl; no
// name for a system npm has no build for.
func TestPlatforms(t *testing.T) {
	for _, c := range []struct {
		cli          CLI
		goos, goarch string
		musl         bool
		want         string
	}{
		{Claude, "linux", "amd64", false, "linux-x64"},
		{Claude, "linux", "amd64", true, "linux-x64-musl"},
		{Claude, "linux", "arm64", true, "linux-arm64-musl"},
		{Claude, "windows", "arm64", false, "win32-arm64"},
		{Codex, "linux", "amd64", true, "linux-x64"}, // static: one build for glibc and musl
		{Codex, "darwin", "arm64", false, "darwin-arm64"},
		{Codex, "windows", "amd64", false, "win32-x64"},
		{OpenCode, "linux", "arm64", true, "linux-arm64-musl"},
		{OpenCode, "windows", "amd64", false, "windows-x64"},
		{Copilot, "linux", "amd64", false, "linux-x64"},
		{Copilot, "linux", "arm64", true, "linuxmusl-arm64"},
		{Copilot, "windows", "amd64", false, "win32-x64"},
		{Gemini, "darwin", "amd64", false, "darwin-x64"},
		{Droid, "linux", "amd64", true, "linux-x64"}, // no musl builds
		{Droid, "windows", "arm64", false, "win32-arm64"},
	} {
		got, err := c.cli.Platform(c.goos, c.goarch, c.musl)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s %s/%s musl=%v", c.cli.Name, c.goos, c.goarch, c.musl)
	}
	for _, c := range [][2]string{{"linux", "386"}, {"freebsd", "amd64"}} {
		_, err := Claude.Platform(c[0], c[1], false)
		assert.EqualError(t, err, "no Claude Code build for "+c[0]+"/"+c[1])
	}
	for _, c := range All {
		for p := range c.platforms() {
			assert.NotContains(t, c.expand(c.Binary, p), "//", "%s: %s has its whole path (Codex: its target triple)", c.Name, p)
		}
	}
}

// Each row installs from npm what it names, for linux-x64: every
// package by its spec, the binary where the row says, checked to print
// the row's version in a HOME of its own (each CLI writes there, even
// for --version), and refused when it prints another.
func TestTable(t *testing.T) {
	callerHome := os.Getenv("HOME")
	for _, c := range All {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := exec.LookPath("node"); c.Node && err != nil {
				t.Skip("no node on PATH")
			}
			for _, version := range []string{c.Version, "0.0.1"} {
				printed := strings.ReplaceAll(c.expand(c.VersionOutput, ""), c.Version, version)
				to := ""
				if c.VersionOnStderr {
					to = " >&2"
				}
				bin := "#!/bin/sh\ncase $HOME in " + shellQuote(callerHome) + ") exit 2 ;; esac\nprintf '%s\\n' " + shellQuote(printed) + to + "\n"
				if c.Node {
					print := "console.log"
					if c.VersionOnStderr {
						print = "console.error"
					}
					bin = "if (process.env.HOME === " + quoteJS(callerHome) + ") process.exit(2);\n" + print + "(" + quoteJS(printed) + ");\n"
				}
				files := map[string]map[string]string{}
				var specs []string
				for i, p := range c.Packages {
					spec := c.expand(p.Spec, "linux-x64")
					specs = append(specs, spec)
					files[spec] = map[string]string{}
					if i == 0 {
						files[spec][c.expand(c.Binary, "linux-x64")] = bin
					}
					for _, f := range p.Files {
						files[spec][f] = "{}"
					}
				}
				npm, calls := FakeNPM(t, files)
				dir := filepath.Join(t.TempDir(), c.Version)
				got, err := c.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
				lines := calls()
				require.Len(t, lines, len(c.Packages))
				for i, p := range c.Packages {
					into := ""
					if p.Dir != "" {
						into = "/" + p.Dir
					}
					assert.Regexp(t, `^install --ignore-scripts .* --prefix \S+`+regexp.QuoteMeta(into+" "+specs[i])+`$`, lines[i])
				}
				if version != c.Version {
					require.ErrorContains(t, err, `printed "`+printed+`", want `+c.expand(c.VersionOutput, ""))
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, filepath.Join(dir, c.expand(c.Binary, "linux-x64")), got)
				assert.Equal(t, dir, c.InstallDir(got), "what a host keeps beside the install is found from its binary")
			}
		})
	}
}

func quoteJS(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// The installed CLIs (make test-host-<name> sets their variables) report
// the row's version in a start's environment.
func TestInstalledVersions(t *testing.T) {
	for _, c := range All {
		bin := os.Getenv(c.BinaryEnv)
		if bin == "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) { require.NoError(t, c.checkVersion(context.Background(), bin)) })
	}
}

func TestLookup(t *testing.T) {
	c, err := Lookup("gemini")
	require.NoError(t, err)
	assert.Equal(t, "SDD_GEMINI_CLI", c.BinaryEnv)
	_, err = Lookup("claude-code")
	assert.EqualError(t, err, "no host CLI \"claude-code\" (the pinned ones: [claude codex opencode copilot gemini pi droid])")
}
