package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

const testVersion = "v9.9.9-test"

var testTime = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)

// repoRoot is the clone the test runs in: go test runs in scripts/dist.
const repoRoot = "../.."

// hostTarget is the target whose binaries this machine can run, or
// linux/amd64 when the host is not one a release ships.
func hostTarget() (Target, bool) {
	host := Target{runtime.GOOS, runtime.GOARCH}
	if slices.Contains(DefaultTargets, host) {
		return host, true
	}
	return Target{"linux", "amd64"}, false
}

// TestDistBuildsARunnableArchive builds the real archive for one target,
// as make dist does, and runs the binary it holds.
func TestDistBuildsARunnableArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	target, runnable := hostTarget()
	out := t.TempDir()
	var log bytes.Buffer
	err := Run(context.Background(), Config{
		Root: repoRoot, Out: out, Version: testVersion, GoCmd: "go",
		Targets: []Target{target}, ModTime: testTime, Log: &log,
	})
	require.NoError(t, err, log.String())

	archive := ArchiveName(testVersion, target)
	plugin := PluginArchiveName(testVersion, target)
	folder := SkillArchiveName(testVersion, target)
	sums := ChecksumsName(testVersion)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	assert.ElementsMatch(t, []string{archive, plugin, folder, sums}, files, "nothing else, no temporary files")

	b, err := os.ReadFile(filepath.Join(out, archive))
	require.NoError(t, err)
	var names []string
	var members map[string]member
	if target.OS == "windows" {
		names, members = readZip(t, b)
	} else {
		names, members = readTarGz(t, bytes.NewReader(b))
	}
	checkLayout(t, releaseShape(target), target, names, members)
	pb, err := os.ReadFile(filepath.Join(out, plugin))
	require.NoError(t, err)
	pnames, pmembers := readZip(t, pb)
	checkLayout(t, pluginShape, target, pnames, pmembers)
	fb, err := os.ReadFile(filepath.Join(out, folder))
	require.NoError(t, err)
	fnames, fmembers := readZip(t, fb)
	checkLayout(t, skillFolderShape, target, fnames, fmembers)

	// The checksums file is what sha256sum writes, so sha256sum -c checks
	// it; its lines are in the order of the files' names (a sort of whole
	// lines would order them by their sums, which change with every build).
	outputs := []struct {
		name string
		b    []byte
	}{{archive, b}, {plugin, pb}, {folder, fb}}
	slices.SortFunc(outputs, func(x, y struct {
		name string
		b    []byte
	}) int {
		return strings.Compare(x.name, y.name)
	})
	var want []string
	for _, f := range outputs {
		sum := sha256.Sum256(f.b)
		want = append(want, hex.EncodeToString(sum[:])+"  "+f.name+"\n")
	}
	got, err := os.ReadFile(filepath.Join(out, sums))
	require.NoError(t, err)
	assert.Equal(t, strings.Join(want, ""), string(got))
	if sha256sum, err := exec.LookPath("sha256sum"); err == nil && runtime.GOOS != "windows" {
		cmd := exec.Command(sha256sum, "-c", sums)
		cmd.Dir = out
		res, err := cmd.CombinedOutput()
		assert.NoError(t, err, string(res))
	}

	if !runnable {
		t.Logf("host %s/%s is not a release target; not running the binary", runtime.GOOS, runtime.GOARCH)
		return
	}
	bin := ship.BinaryName("sdd-workspace", target.OS)
	m := members[ArchiveBase(testVersion, target)+"/bin/"+bin]
	exe := filepath.Join(t.TempDir(), bin)
	require.NoError(t, os.WriteFile(exe, m.content, m.mode))
	res, err := exec.Command(exe, "--version").Output()
	require.NoError(t, err)
	assert.Equal(t, "sdd-workspace "+testVersion+"\n", string(res))
	assert.Equal(t, m.content, pmembers["bin/"+bin].content, "the plugin holds the same binary")
}

func TestSourceDate(t *testing.T) {
	git := func(args ...string) (string, error) {
		if strings.Join(args, " ") == "log -1 --format=%ct" {
			return "1767225600", nil
		}
		return "", errors.New("exit status 128")
	}
	noGit := func(...string) (string, error) { return "", errors.New("no git") }
	got, err := SourceDate("", git)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(1767225600, 0).UTC(), got, "the commit time")

	got, err = SourceDate("1000000000", git)
	require.NoError(t, err)
	assert.Equal(t, time.Unix(1000000000, 0).UTC(), got, "SOURCE_DATE_EPOCH wins")

	got, err = SourceDate("", noGit)
	require.NoError(t, err)
	assert.Equal(t, fallbackTime, got, "no git")

	_, err = SourceDate("yesterday", git)
	assert.Error(t, err)
}

func TestBadUsageIsStatus2(t *testing.T) {
	for _, args := range [][]string{
		{"-version", "v1 2"},
		{"-version", "../v1"},
		{"-version", "v1", "-targets", "linux"},
		{"-version", "v1", "extra"},
		{"-no-such-flag"},
	} {
		var stderr bytes.Buffer
		assert.Equal(t, 2, Main(context.Background(), args, &stderr), "%q", args)
		assert.NotEmpty(t, stderr.String(), "%q", args)
	}
}

func TestParseTargets(t *testing.T) {
	ts, err := parseTargets("linux/amd64, windows/arm64")
	require.NoError(t, err)
	assert.Equal(t, []Target{{"linux", "amd64"}, {"windows", "arm64"}}, ts)
}
