package ship_test

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The binaries a Build makes are the ones that ship: built with -trimpath
// (no path of the build machine inside), the urfave_cli_no_docs tag,
// statically, stripped (-s -w), and with the version stamped where
// --version finds it. (Go records no -ldflags for a -trimpath build, so the
// stamp shows only there.)
func TestBuildMakesTheShippedBinaries(t *testing.T) {
	const version = "v9.8.7-shiptest"
	root := testutil.ModuleRoot()
	out := t.TempDir()
	require.NoError(t, ship.Build{Root: root, Out: out, Version: version}.Run(context.Background()))
	for _, c := range ship.Commands {
		bin := filepath.Join(out, ship.BinaryName(c, runtime.GOOS))
		info, err := exec.Command("go", "version", "-m", bin).Output()
		require.NoError(t, err, c)
		settings := buildSettings(string(info))
		assert.Equal(t, "true", settings["-trimpath"], c)
		assert.Equal(t, ship.Tags, settings["-tags"], c)
		assert.Equal(t, "0", settings["CGO_ENABLED"], c)
		if runtime.GOOS == "linux" {
			assertStripped(t, bin)
		}

		b, err := os.ReadFile(bin)
		require.NoError(t, err)
		assert.False(t, bytes.Contains(b, []byte(root)), "%s holds the build machine's path %s", c, root)

		v, err := exec.Command(bin, "--version").Output()
		require.NoError(t, err, c)
		assert.Equal(t, c+" "+version+"\n", string(v))
	}
}

// assertStripped checks that an ELF binary has no symbol table and no
// DWARF data.
func assertStripped(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, s := range f.Sections {
		assert.False(t, s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_"), "%s has %s", bin, s.Name)
	}
}

// buildSettings are the "build" lines of `go version -m`: key, value.
func buildSettings(info string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "\t", 2)
		if len(f) == 2 && f[0] == "build" {
			k, v, _ := strings.Cut(f[1], "=")
			m[k] = strings.Trim(v, `"`)
		}
	}
	return m
}

// DefaultVersion against a real repository: the tag on HEAD, -dirty when
// the tree is modified (even on a tag), git describe's form after a tag,
// the abbreviated commit without one, "dev" outside any repository (or
// without git).
func TestDefaultVersion(t *testing.T) {
	r := testutil.NewRepo(t)
	gitIn := func(dir string) func(args ...string) (string, error) {
		return func(args ...string) (string, error) {
			res := testutil.RunIn(dir, r.Env, "git", args...)
			if res.Code != 0 {
				return "", errors.New(res.Stderr)
			}
			return strings.TrimSpace(res.Stdout), nil
		}
	}
	git := gitIn(r.Root)
	first := r.Commit("first", "f.txt", "1\n")
	assert.Equal(t, first[:7], ship.DefaultVersion(git), "no tag")
	r.Git("tag", "v1.2.3")
	assert.Equal(t, "v1.2.3", ship.DefaultVersion(git), "on a tag")
	r.Write("f.txt", "2\n")
	assert.Equal(t, "v1.2.3-dirty", ship.DefaultVersion(git), "on a tag, modified")
	second := r.Commit("second")
	assert.Equal(t, "v1.2.3-1-g"+second[:7], ship.DefaultVersion(git), "after a tag")
	assert.Equal(t, "dev", ship.DefaultVersion(gitIn(t.TempDir())), "no repository")
}
