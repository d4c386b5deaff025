package hostcli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake is a CLI of two packages: its platform build, and a plugin
// installed in config/ beside it that must leave a package.json.
var fake = CLI{
	Name: "fake", Title: "Fake", Version: "1.0.0",
	Windows: "win32", Musl: true,
	Packages: []Package{
		{Spec: "fake-{platform}@{version}"},
		{Spec: "fake-plugin@{version}", Dir: "config", Files: []string{"node_modules/fake-plugin/package.json"}},
	},
	Binary:        "node_modules/fake-{platform}/bin/fake",
	VersionOutput: "fake {version}",
}

// fakeNPM installs a fake printing version and, unless noPlugin, the
// plugin's package.json.
func fakeNPM(t *testing.T, version string, noPlugin bool) (npm string, calls func() []string) {
	plugin := map[string]string{"node_modules/fake-plugin/package.json": `{"name":"fake-plugin"}`}
	if noPlugin {
		plugin = nil
	}
	return FakeNPM(t, map[string]map[string]string{
		"fake-linux-x64@1.0.0": {
			// The version check runs in a HOME of its own.
			"node_modules/fake-linux-x64/bin/fake": "#!/bin/sh\ncase $HOME in \"$TMPDIR\"|'" + os.Getenv("HOME") + "') exit 2 ;; esac\necho 'fake " + version + "'\n",
		},
		"fake-plugin@1.0.0": plugin,
	})
}

func TestCacheDir(t *testing.T) {
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	dir, err := fake.CacheDir()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "sdd-go", "fake", "1.0.0"), dir, "by its name")
}

func TestInstallReusesACompleteInstall(t *testing.T) {
	npm, calls := fakeNPM(t, "1.0.0", false)
	dir := filepath.Join(t.TempDir(), "cache", "1.0.0")
	ctx := context.Background()

	bin, err := fake.Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "node_modules/fake-linux-x64/bin/fake"), bin)
	assert.FileExists(t, bin)
	lines := calls()
	require.Len(t, lines, 2)
	assert.Regexp(t, `^install --ignore-scripts --no-audit --no-fund --save-exact --prefix \S+ fake-linux-x64@1\.0\.0$`, lines[0])
	assert.Regexp(t, `^install --ignore-scripts --no-audit --no-fund --save-exact --prefix \S+/config fake-plugin@1\.0\.0$`, lines[1])
	assert.FileExists(t, filepath.Join(dir, "config/node_modules/fake-plugin/package.json"))
	marker, err := os.ReadFile(filepath.Join(dir, completeMarker))
	require.NoError(t, err)
	assert.Equal(t, "fake-linux-x64@1.0.0\nfake-plugin@1.0.0\n", string(marker))

	again, err := fake.Install(ctx, npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, bin, again)
	assert.Len(t, calls(), 2, "a complete install is reused, npm not run")

	siblings, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, siblings, 1, "no installing directory left beside the cache")
}

func TestInstallRedoesAnIncompleteInstall(t *testing.T) {
	npm, calls := fakeNPM(t, "1.0.0", false)
	dir := filepath.Join(t.TempDir(), "1.0.0")
	// What an interrupted npm leaves: a directory, no marker.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755))
	bin, err := fake.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Len(t, calls(), 2)
	assert.FileExists(t, bin)
	assert.FileExists(t, filepath.Join(dir, completeMarker))
}

// failedInstall is the error of an install of fake with npm for
// platform that fails: it must leave no directory.
func failedInstall(t *testing.T, npm, platform string) error {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "1.0.0")
	_, err := fake.Install(context.Background(), npm, dir, platform, io.Discard)
	assert.NoDirExists(t, dir)
	return err
}

func TestInstallRefusesAnotherVersion(t *testing.T) {
	npm, _ := fakeNPM(t, "0.0.1", false)
	require.ErrorContains(t, failedInstall(t, npm, "linux-x64"), `--version printed "fake 0.0.1", want fake 1.0.0`)
}

func TestInstallNeedsEveryPackagesFiles(t *testing.T) {
	npm, _ := fakeNPM(t, "1.0.0", true)
	require.ErrorContains(t, failedInstall(t, npm, "linux-x64"), "npm install fake-plugin@1.0.0 left no node_modules/fake-plugin/package.json")
}

func TestInstallRefusesAnotherPlatform(t *testing.T) {
	npm, calls := fakeNPM(t, "1.0.0", false)
	require.EqualError(t, failedInstall(t, npm, "linux-386"), "no Fake build for platform linux-386")
	assert.Empty(t, calls())
}

// nodeFake is a JavaScript CLI: one package for every platform, its
// script run by node.
var nodeFake = CLI{
	Name: "node-fake", Title: "Node fake", Version: "2.0.0",
	Windows: "win32", Node: true,
	Packages:      []Package{{Spec: "node-fake@{version}"}},
	Binary:        "node_modules/node-fake/cli.js",
	VersionOutput: "{version}",
}

// A Node CLI's script is run by node (this one has no #! line, so the
// kernel would refuse to run it), and keeps its name on Windows.
func TestInstallNodeCLI(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	npm, calls := FakeNPM(t, map[string]map[string]string{
		"node-fake@2.0.0": {"node_modules/node-fake/cli.js": "if (process.argv[2] === '--version') console.log('2.0.0')\n"},
	})
	dir := filepath.Join(t.TempDir(), "2.0.0")
	bin, err := nodeFake.Install(context.Background(), npm, dir, "linux-x64", io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "node_modules/node-fake/cli.js"), bin)
	assert.Regexp(t, `^install --ignore-scripts .* node-fake@2\.0\.0$`, calls()[0])
	assert.Equal(t, filepath.Join("d", "node_modules/node-fake/cli.js"), nodeFake.binaryIn("d", "win32-x64"), "no .exe")
	assert.Equal(t, filepath.Join("d", "node_modules/fake-win32-x64/bin/fake.exe"), fake.binaryIn("d", "win32-x64"))
}
