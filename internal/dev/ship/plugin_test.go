package ship

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRoot is a checkout holding README.md, LICENSE and skill/ with the
// given files (path: executable?).
func fakeRoot(t *testing.T, skill map[string]bool) string {
	t.Helper()
	root := t.TempDir()
	for _, rel := range []string{"README.md", "LICENSE"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte(rel), 0o644))
	}
	for rel, exec := range skill {
		p := filepath.Join(root, "skill", filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := fs.FileMode(0o600) // a tight umask must not show
		if exec {
			mode = 0o700
		}
		require.NoError(t, os.WriteFile(p, []byte(rel), mode))
	}
	return root
}

func TestPluginFiles(t *testing.T) {
	root := fakeRoot(t, map[string]bool{"SKILL.md": false, "notes/more.md": false, "tool.sh": true})
	files, err := PluginFiles(root, "/bins", "windows", "v1.2.3")
	require.NoError(t, err)
	var got []string
	for _, f := range files {
		got = append(got, f.Path+" "+f.Mode.String()+" "+filepath.ToSlash(f.Src))
	}
	skill := filepath.ToSlash(filepath.Join(root, "skill"))
	assert.Equal(t, []string{
		".claude-plugin/plugin.json -rw-r--r-- ",
		"LICENSE -rw-r--r-- " + filepath.ToSlash(filepath.Join(root, "LICENSE")),
		"README.md -rw-r--r-- " + filepath.ToSlash(filepath.Join(root, "README.md")),
		"bin/review-package.exe -rwxr-xr-x /bins/review-package.exe",
		"bin/sdd-ledger.exe -rwxr-xr-x /bins/sdd-ledger.exe",
		"bin/sdd-workspace.exe -rwxr-xr-x /bins/sdd-workspace.exe",
		"bin/task-brief.exe -rwxr-xr-x /bins/task-brief.exe",
		"skills/subagent-driven-development/SKILL.md -rw-r--r-- " + skill + "/SKILL.md",
		"skills/subagent-driven-development/notes/more.md -rw-r--r-- " + skill + "/notes/more.md",
		"skills/subagent-driven-development/tool.sh -rwxr-xr-x " + skill + "/tool.sh",
	}, got)
	assert.Equal(t, PluginJSON("v1.2.3"), files[0].Data)

	files, err = PluginFiles(root, "", "linux", "v1.2.3")
	require.NoError(t, err)
	for _, f := range files {
		assert.NotRegexp(t, `^bin/`, f.Path, "no binaries without a bin directory")
	}
}

func TestPluginJSON(t *testing.T) {
	var m map[string]any
	require.NoError(t, json.Unmarshal(PluginJSON("v1.2.3-4-gabcdef0-dirty"), &m))
	assert.Equal(t, "sdd-go", m["name"])
	assert.Equal(t, "v1.2.3-4-gabcdef0-dirty", m["version"])
	assert.Equal(t, "MIT", m["license"])
	for _, key := range []string{"description", "author", "homepage", "repository", "keywords"} {
		assert.NotEmpty(t, m[key], key)
	}
}

func TestSkillFilesRefusals(t *testing.T) {
	_, err := SkillFiles(fakeRoot(t, map[string]bool{"README.md": false}), "skill")
	assert.ErrorContains(t, err, "has no SKILL.md")
	if runtime.GOOS == "windows" {
		return
	}
	root := fakeRoot(t, map[string]bool{"SKILL.md": false})
	require.NoError(t, os.Symlink("SKILL.md", filepath.Join(root, "skill", "link.md")))
	_, err = SkillFiles(root, "skill")
	assert.ErrorContains(t, err, "not a regular file or directory")
}
