package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// oldInstall lays out what the previous installer made: the skill as a
// plain skill in ~/.claude/skills/subagent-driven-development/ with its
// manifest, and the binaries in GOBIN. It returns the skill's directory.
func oldInstall(h *harness) string {
	t := h.t
	t.Helper()
	old := filepath.Join(h.home, ".claude", "skills", ship.SkillName)
	files := map[string]string{
		"SKILL.md":              "---\nname: subagent-driven-development\ndescription: old\n---\n",
		"implementer-prompt.md": "# old implementer\n",
	}
	manifest := map[string][]string{}
	require.NoError(t, os.MkdirAll(old, 0o755))
	for rel, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(old, rel), []byte(b), 0o644))
		manifest[rel] = []string{sum([]byte(b))}
	}
	require.NoError(t, writeManifest(old, manifest))
	writeFakeBinaries(t, h.env["GOBIN"], h.goos, "v0")
	return old
}

// TestMigrateUntouchedOldSkill: the previous installer's skill, untouched
// since, is removed (the model would otherwise see it beside the plugin's
// under the same name); its binaries in GOBIN are left, with a word that
// they are no longer needed.
func TestMigrateUntouchedOldSkill(t *testing.T) {
	h := newHarness(t)
	old := oldInstall(h)
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assertMissing(t, old, "the old skill is gone")
	assert.Contains(t, stderr, "removed the skill the previous install-skill put in "+old)
	assert.Contains(t, stderr, "the sdd-workspace, task-brief, review-package, sdd-ledger in "+h.env["GOBIN"]+" are no longer needed")
	assert.Len(t, dirNames(t, h.env["GOBIN"]), 4, "GOBIN is left alone")
	assertPlugin(t, h.plugin(), h.bin, h.goos)

	code, _, stderr = h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "previous install-skill", "said once")
}

// TestMigrateKeepsWhatIsNotOurs: files added to the old skill's directory
// stay (only what the manifest lists goes), and an old skill with edits
// stays whole, with what to do.
func TestMigrateKeepsWhatIsNotOurs(t *testing.T) {
	t.Run("added file", func(t *testing.T) {
		h := newHarness(t)
		old := oldInstall(h)
		require.NoError(t, os.WriteFile(filepath.Join(old, "my-notes.txt"), []byte("mine\n"), 0o644))
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, []string{"my-notes.txt"}, dirNames(t, old))
		assert.Contains(t, stderr, "the files you added there are left")
	})
	t.Run("edited", func(t *testing.T) {
		h := newHarness(t)
		old := oldInstall(h)
		require.NoError(t, os.WriteFile(filepath.Join(old, "SKILL.md"), []byte("my version\n"), 0o644))
		before := readTree(t, old)
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, "the plugin is installed all the same: "+stderr)
		assert.Equal(t, before, readTree(t, old), "an edited old skill is left whole")
		assert.Contains(t, stderr, "with your changes (SKILL.md (edited))")
		assert.Contains(t, stderr, "Keep your changes elsewhere and delete "+old)
		assert.Contains(t, stderr, "are no longer needed")
		assertPlugin(t, h.plugin(), h.bin, h.goos)
	})
	t.Run("not ours", func(t *testing.T) {
		h := newHarness(t)
		old := filepath.Join(h.home, ".claude", "skills", ship.SkillName)
		require.NoError(t, os.MkdirAll(old, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(old, "SKILL.md"), []byte("by hand\n"), 0o644))
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "by hand\n", readFile(t, filepath.Join(old, "SKILL.md")))
		assert.Contains(t, stderr, old+" is a skill of the same name that install-skill did not write")
	})
}

// marketplacePlugin records a plugin Claude Code installed from a
// marketplace the way it does (plugins/installed_plugins.json) and
// returns its skill directory.
func marketplacePlugin(h *harness, id string) string {
	t := h.t
	t.Helper()
	dir := filepath.Join(h.home, ".claude", "plugins", "cache", "superpowers-dev", "superpowers", "6.2.0")
	skill := filepath.Join(dir, "skills", ship.SkillName)
	require.NoError(t, os.MkdirAll(skill, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("upstream\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(h.home, ".claude", "plugins", "installed_plugins.json"), []byte(`{
  "version": 2,
  "plugins": {
    "`+id+`": [
      {"scope": "user", "installPath": `+jsonString(dir)+`, "version": "6.2.0"}
    ]
  }
}`), 0o644))
	return skill
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func writeSettings(t *testing.T, home, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(body), 0o644))
}

// TestNamesSuperpowersSkill: where superpowers is installed too, the model
// would see superpowers:subagent-driven-development beside ours; the
// installer says so and gives the exact commands of both choices.
func TestNamesSuperpowersSkill(t *testing.T) {
	t.Run("marketplace plugin", func(t *testing.T) {
		h := newHarness(t)
		skill := marketplacePlugin(h, "superpowers@superpowers-dev")
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "the model now sees both superpowers:subagent-driven-development and sdd-go:subagent-driven-development")
		assert.Contains(t, stderr, "\n  claude plugin disable superpowers@superpowers-dev\n")
		assert.Contains(t, stderr, "\n  claude plugin disable sdd-go@skills-dir\n")
		assert.Contains(t, stderr, "\n  go run ./scripts/install-skill --replace-scripts "+quote(skill, runtime.GOOS)+"\n")
	})
	t.Run("skills-dir plugin", func(t *testing.T) {
		h := newHarness(t)
		dir := filepath.Join(h.home, ".claude", "skills", "superpowers")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(`{"name": "superpowers"}`), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", ship.SkillName), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "skills", ship.SkillName, "SKILL.md"), []byte("upstream\n"), 0o644))
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "\n  claude plugin disable superpowers@skills-dir\n")
		assert.NotContains(t, stderr, "sdd-go@skills-dir has a skill", "the plugin itself is not another copy")
	})
	t.Run("disabled", func(t *testing.T) {
		h := newHarness(t)
		marketplacePlugin(h, "superpowers@superpowers-dev")
		writeSettings(t, h.home, `{"enabledPlugins": {"superpowers@superpowers-dev": false}}`)
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stderr, "claude plugin disable")
	})
	t.Run("sdd-go disabled", func(t *testing.T) {
		h := newHarness(t)
		marketplacePlugin(h, "superpowers@superpowers-dev")
		writeSettings(t, h.home, `{"enabledPlugins": {"sdd-go@skills-dir": false}}`)
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "`claude plugin enable sdd-go@skills-dir` turns it on")
		assert.NotContains(t, stderr, "claude plugin disable")
	})
	t.Run("alone", func(t *testing.T) {
		h := newHarness(t)
		code, _, stderr := h.run("--bin", h.bin)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stderr, "same name")
	})
}

// TestReplaceAdviceIsSafeToPaste is finding 8: the --replace-scripts line
// printed beside superpowers is pasted into a shell, so the directory in
// it is quoted for that shell. Under a HOME holding $, a backquote, a
// single quote and a space, the printed line run by sh hands the
// installer the directory exactly.
func TestReplaceAdviceIsSafeToPaste(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pastes the line into sh")
	}
	h := newHarness(t)
	h.home = filepath.Join(t.TempDir(), "ho$me `id` it's")
	require.NoError(t, os.MkdirAll(h.home, 0o755))
	skill := marketplacePlugin(h, "superpowers@superpowers-dev")
	code, _, stderr := h.run("--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	m := regexp.MustCompile(`\n  (go run \./scripts/install-skill --replace-scripts .*)\n`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	// go stands in for the go tool: it prints the argument after
	// --replace-scripts, and fails on any other word count.
	out, err := exec.Command("sh", "-c", `go() { [ $# = 4 ] || exit 9; printf %s "$4"; }; `+m[1]).Output()
	require.NoError(t, err, m[1])
	assert.Equal(t, skill, string(out), m[1])
}

// TestQuote: single quotes for a POSIX shell; on Windows double quotes,
// which cmd and PowerShell both take, unless the path holds what
// PowerShell expands inside them ($ or `): then PowerShell's single quotes.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, unix, windows string }{
		{"/home/me/x", "/home/me/x", "/home/me/x"},
		{`C:\Users\me\x`, `'C:\Users\me\x'`, `C:\Users\me\x`},
		{"/a b", "'/a b'", `"/a b"`},
		{"/it's", `'/it'\''s'`, `"/it's"`},
		{"/a$b", "'/a$b'", "'/a$b'"},
		{"/a`b` it's", `'/a` + "`b`" + ` it'\''s'`, "'/a`b` it''s'"},
		{"~/x", "'~/x'", `"~/x"`},
		{"", "''", `""`},
	} {
		assert.Equal(t, c.unix, quote(c.in, "linux"), c.in)
		assert.Equal(t, c.windows, quote(c.in, "windows"), c.in)
	}
	if runtime.GOOS == "windows" {
		return // no sh to paste into
	}
	for _, p := range []string{"/a b", "/it's", "/a$b`c`", "/'''", "/a\\b", "/*", "/a\nb", "/a\tb", "/!x", "~/x", "/a;b|c&d", "/é"} {
		out, err := exec.Command("sh", "-c", `printf %s `+quote(p, "linux")).Output()
		require.NoError(t, err, p)
		assert.Equal(t, p, string(out))
	}
}
