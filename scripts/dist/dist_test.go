package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
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

// member is what the tests check of one archive entry.
type member struct {
	mode    fs.FileMode
	mtime   time.Time
	content []byte
}

func readTarGz(t *testing.T, r io.Reader) (names []string, members map[string]member) {
	t.Helper()
	gz, err := gzip.NewReader(r)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	members = map[string]member{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		mode := fs.FileMode(hdr.Mode).Perm()
		if hdr.Typeflag == tar.TypeDir {
			mode |= fs.ModeDir
		} else {
			require.Equal(t, byte(tar.TypeReg), hdr.Typeflag, hdr.Name)
		}
		assert.Zero(t, hdr.Uid, hdr.Name)
		assert.Zero(t, hdr.Gid, hdr.Name)
		names = append(names, hdr.Name)
		members[hdr.Name] = member{mode: mode, mtime: hdr.ModTime.UTC(), content: b}
	}
	return names, members
}

func readZip(t *testing.T, b []byte) (names []string, members map[string]member) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	members = map[string]member{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		content, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.NoError(t, rc.Close())
		mode := f.Mode()
		names = append(names, f.Name)
		members[f.Name] = member{mode: mode & (fs.ModeDir | fs.ModePerm), mtime: f.Modified.UTC(), content: content}
	}
	return names, members
}

// wantNames is every entry an archive for t must hold, sorted.
func wantNames(t *testing.T, target Target) []string {
	t.Helper()
	top := ArchiveBase(testVersion, target) + "/"
	names := []string{top, top + "bin/", top + "README.md", top + "LICENSE"}
	for _, c := range ship.Commands {
		names = append(names, top+"bin/"+ship.BinaryName(c, target.OS))
	}
	err := filepath.WalkDir(filepath.Join(repoRoot, "skill"), func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(repoRoot, p)
		require.NoError(t, err)
		name := top + filepath.ToSlash(rel)
		if d.IsDir() {
			name += "/"
		}
		names = append(names, name)
		return nil
	})
	require.NoError(t, err)
	slices.Sort(names)
	return names
}

// checkLayout asserts the archive holds exactly the release layout with the
// release modes, one modification time, and the repository's text files.
func checkLayout(t *testing.T, target Target, names []string, members map[string]member) {
	t.Helper()
	assert.Equal(t, wantNames(t, target), names, "entries, in sorted order")
	top := ArchiveBase(testVersion, target) + "/"
	for name, m := range members {
		assert.True(t, m.mtime.Equal(testTime), "%s: mtime %v", name, m.mtime)
		switch {
		case strings.HasSuffix(name, "/"):
			assert.Equal(t, fs.ModeDir|0o755, m.mode, name)
		case strings.HasPrefix(name, top+"bin/"):
			assert.Equal(t, fs.FileMode(0o755), m.mode, name)
			assert.NotEmpty(t, m.content, name)
		default:
			assert.Equal(t, fs.FileMode(0o644), m.mode, name)
			src, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(strings.TrimPrefix(name, top))))
			require.NoError(t, err)
			assert.Equal(t, src, m.content, name)
		}
	}
}

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
	sums := ChecksumsName(testVersion)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	assert.ElementsMatch(t, []string{archive, sums}, files, "nothing else, no temporary files")

	b, err := os.ReadFile(filepath.Join(out, archive))
	require.NoError(t, err)
	var names []string
	var members map[string]member
	if target.OS == "windows" {
		names, members = readZip(t, b)
	} else {
		names, members = readTarGz(t, bytes.NewReader(b))
	}
	checkLayout(t, target, names, members)

	// The checksums file is what sha256sum writes, so sha256sum -c checks it.
	sum := sha256.Sum256(b)
	got, err := os.ReadFile(filepath.Join(out, sums))
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(sum[:])+"  "+archive+"\n", string(got))
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
}

// fakeBinaries stands in for built binaries where only the archive matters.
func fakeBinaries(t *testing.T, goos string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range ship.Commands {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ship.BinaryName(c, goos)), []byte("binary "+c), 0o700))
	}
	return dir
}

func TestWindowsArchiveIsAZipOfExeFiles(t *testing.T) {
	target := Target{"windows", "arm64"}
	assert.Equal(t, "sdd-go_v9.9.9-test_windows_arm64.zip", ArchiveName(testVersion, target))
	entries, err := Layout(repoRoot, fakeBinaries(t, "windows"), testVersion, target)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteZip(&buf, entries, testTime))

	names, members := readZip(t, buf.Bytes())
	checkLayout(t, target, names, members)
	var bins []string
	for _, n := range names {
		if dir, file := filepath.Split(filepath.FromSlash(n)); filepath.Base(dir) == "bin" && file != "" {
			bins = append(bins, file)
		}
	}
	assert.Equal(t, []string{"review-package.exe", "sdd-workspace.exe", "task-brief.exe"}, bins)
	assert.Equal(t, []byte("binary task-brief"), members["sdd-go_v9.9.9-test_windows_arm64/bin/task-brief.exe"].content)
}

func TestUnixArchiveIsATarGz(t *testing.T) {
	target := Target{"darwin", "arm64"}
	assert.Equal(t, "sdd-go_v9.9.9-test_darwin_arm64.tar.gz", ArchiveName(testVersion, target))
	entries, err := Layout(repoRoot, fakeBinaries(t, "darwin"), testVersion, target)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteTarGz(&buf, entries, testTime))
	names, members := readTarGz(t, &buf)
	checkLayout(t, target, names, members)
}

func TestArchivesAreDeterministic(t *testing.T) {
	for _, target := range []Target{{"linux", "amd64"}, {"windows", "amd64"}} {
		t.Run(target.String(), func(t *testing.T) {
			write := WriteTarGz
			if target.OS == "windows" {
				write = WriteZip
			}
			var a, b bytes.Buffer
			entries, err := Layout(repoRoot, fakeBinaries(t, target.OS), testVersion, target)
			require.NoError(t, err)
			require.NoError(t, write(&a, entries, testTime))
			// Same contents from another directory, written later.
			entries, err = Layout(repoRoot, fakeBinaries(t, target.OS), testVersion, target)
			require.NoError(t, err)
			require.NoError(t, write(&b, entries, testTime))
			assert.Equal(t, a.Bytes(), b.Bytes())
		})
	}
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

func TestChecksumsAreSortedSha256sumLines(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.zip"), []byte("b"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.tar.gz"), []byte("a"), 0o644))
	var buf bytes.Buffer
	require.NoError(t, WriteChecksums(&buf, dir, []string{"b.zip", "a.tar.gz"}))
	sc := bufio.NewScanner(&buf)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	assert.Equal(t, []string{
		hex.EncodeToString(a[:]) + "  a.tar.gz",
		hex.EncodeToString(b[:]) + "  b.zip",
	}, lines)
}
