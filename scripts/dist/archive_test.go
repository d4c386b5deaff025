package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

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

// shape is where an archive puts things: its top folder ("" for none) and
// the skill's folder under it. A plugin archive holds plugin.json too.
type shape struct {
	top, skill string
	plugin     bool
}

// releaseShape is the release archive's: one folder named after it, the
// skill in skill/.
func releaseShape(target Target) shape {
	return shape{top: ArchiveBase(testVersion, target) + "/", skill: "skill"}
}

// pluginShape is the plugin archive's: the plugin at the root, as
// `claude --plugin-dir ARCHIVE.zip` wants it.
var pluginShape = shape{skill: "skills/subagent-driven-development", plugin: true}

// skillFolderShape is the skill archive's: the skill's folder, with skill/
// at its root.
var skillFolderShape = shape{top: "subagent-driven-development/"}

// wantNames is every entry an archive of shape s for t must hold, sorted.
func wantNames(t *testing.T, s shape, target Target) []string {
	t.Helper()
	var names []string
	if s.top != "" {
		names = append(names, s.top)
	}
	names = append(names, s.top+"bin/", s.top+"README.md", s.top+"LICENSE")
	if s.plugin {
		names = append(names, s.top+".claude-plugin/", s.top+".claude-plugin/plugin.json", s.top+"skills/")
	}
	for _, c := range ship.Commands {
		names = append(names, s.top+"bin/"+ship.BinaryName(c, target.OS))
	}
	skill := filepath.Join(repoRoot, "skill")
	err := filepath.WalkDir(skill, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(skill, p)
		require.NoError(t, err)
		if rel == "." && s.skill == "" {
			return nil // the folder itself is top
		}
		name := s.top + s.skill
		if rel != "." {
			name = path.Join(name, filepath.ToSlash(rel))
		}
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

// checkLayout asserts the archive holds exactly the layout of shape s with
// the release modes, one modification time, the repository's text files
// and, in a plugin, its manifest.
func checkLayout(t *testing.T, s shape, target Target, names []string, members map[string]member) {
	t.Helper()
	assert.Equal(t, wantNames(t, s, target), names, "entries, in sorted order")
	for name, m := range members {
		assert.True(t, m.mtime.Equal(testTime), "%s: mtime %v", name, m.mtime)
		rel := strings.TrimPrefix(name, s.top)
		switch {
		case strings.HasSuffix(name, "/"):
			assert.Equal(t, fs.ModeDir|0o755, m.mode, name)
		case strings.HasPrefix(rel, "bin/"):
			assert.Equal(t, fs.FileMode(0o755), m.mode, name)
			assert.NotEmpty(t, m.content, name)
		case rel == ".claude-plugin/plugin.json":
			assert.Equal(t, fs.FileMode(0o644), m.mode, name)
			checkPluginJSON(t, m.content)
		default:
			assert.Equal(t, fs.FileMode(0o644), m.mode, name)
			if skillRel, ok := strings.CutPrefix(rel, s.skill+"/"); ok {
				rel = "skill/" + skillRel
			} else if s.skill == "" && rel != "README.md" && rel != "LICENSE" {
				rel = "skill/" + rel
			}
			src, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
			require.NoError(t, err)
			assert.Equal(t, src, m.content, name)
		}
	}
}

// checkPluginJSON asserts the manifest names the plugin and carries the
// version stamped into the binaries.
func checkPluginJSON(t *testing.T, b []byte) {
	t.Helper()
	var m struct{ Name, Version, License string }
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "sdd-go", m.Name)
	assert.Equal(t, testVersion, m.Version)
	assert.Equal(t, "MIT", m.License)
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
	checkLayout(t, releaseShape(target), target, names, members)
	var bins []string
	for _, n := range names {
		if dir, file := filepath.Split(filepath.FromSlash(n)); filepath.Base(dir) == "bin" && file != "" {
			bins = append(bins, file)
		}
	}
	assert.Equal(t, []string{"review-package.exe", "sdd-ledger.exe", "sdd-workspace.exe", "task-brief.exe"}, bins)
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
	checkLayout(t, releaseShape(target), target, names, members)
}

// TestPluginArchiveIsTheLayoutAtTheRoot: for every target the plugin zip
// holds .claude-plugin/plugin.json, skills/, bin/ (.exe for Windows),
// README.md and LICENSE at its root, where `claude --plugin-dir` wants
// them.
func TestPluginArchiveIsTheLayoutAtTheRoot(t *testing.T) {
	for _, target := range []Target{{"linux", "arm64"}, {"windows", "amd64"}} {
		t.Run(target.String(), func(t *testing.T) {
			assert.Equal(t, "sdd-go-plugin_v9.9.9-test_"+target.OS+"_"+target.Arch+".zip", PluginArchiveName(testVersion, target))
			entries, err := PluginLayout(repoRoot, fakeBinaries(t, target.OS), testVersion, target)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, WriteZip(&buf, entries, testTime))
			names, members := readZip(t, buf.Bytes())
			checkLayout(t, pluginShape, target, names, members)
			bin := "bin/" + ship.BinaryName("task-brief", target.OS)
			assert.Equal(t, []byte("binary task-brief"), members[bin].content)
		})
	}
}

// TestSkillArchiveIsTheFolder: for every target the skill zip holds one
// folder, subagent-driven-development/, with every file of skill/ at its
// root, README.md, LICENSE and bin/ (.exe for Windows): what unpacks into
// a Codex CLI or OpenCode skills directory.
func TestSkillArchiveIsTheFolder(t *testing.T) {
	for _, target := range []Target{{"linux", "amd64"}, {"windows", "arm64"}} {
		t.Run(target.String(), func(t *testing.T) {
			assert.Equal(t, "sdd-go-skill_v9.9.9-test_"+target.OS+"_"+target.Arch+".zip", SkillArchiveName(testVersion, target))
			entries, err := SkillFolderLayout(repoRoot, fakeBinaries(t, target.OS), testVersion, target)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, WriteZip(&buf, entries, testTime))
			names, members := readZip(t, buf.Bytes())
			checkLayout(t, skillFolderShape, target, names, members)
			assert.Contains(t, names, "subagent-driven-development/SKILL.md")
			assert.Contains(t, names, "subagent-driven-development/bin/"+ship.BinaryName("sdd-ledger", target.OS))
		})
	}
}

func TestArchivesAreDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target Target
		layout func(root, binDir, version string, t Target) ([]Entry, error)
		write  func(io.Writer, []Entry, time.Time) error
	}{
		{"linux/amd64", Target{"linux", "amd64"}, Layout, WriteTarGz},
		{"windows/amd64", Target{"windows", "amd64"}, Layout, WriteZip},
		{"plugin linux/amd64", Target{"linux", "amd64"}, PluginLayout, WriteZip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b bytes.Buffer
			entries, err := tc.layout(repoRoot, fakeBinaries(t, tc.target.OS), testVersion, tc.target)
			require.NoError(t, err)
			require.NoError(t, tc.write(&a, entries, testTime))
			// Same contents from another directory, written later.
			entries, err = tc.layout(repoRoot, fakeBinaries(t, tc.target.OS), testVersion, tc.target)
			require.NoError(t, err)
			require.NoError(t, tc.write(&b, entries, testTime))
			assert.Equal(t, a.Bytes(), b.Bytes())
		})
	}
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
