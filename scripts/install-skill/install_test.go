package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harness runs Main with a temporary HOME; nothing outside t.TempDir() is
// written. Binaries are never built here (--no-binaries or --bin).
type harness struct {
	t    *testing.T
	home string
	env  map[string]string
	goos string // the OS the installer acts for
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, home: t.TempDir(), env: map[string]string{}, goos: runtime.GOOS}
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
		Dir:   ".",
		GoCmd: "go",
		GOOS:  h.goos,
	}
	if len(h.env) > 0 {
		env.Environ = os.Environ()
		for k, v := range h.env {
			env.Environ = append(env.Environ, k+"="+v)
		}
	}
	code = Main(args, env)
	return code, so.String(), se.String()
}

func (h *harness) target() string {
	return filepath.Join(h.home, ".claude", "skills", skillName)
}

// testEnv is the process's own environment, for what needs only the go
// tool.
func testEnv() Env { return Env{GoCmd: "go", GOOS: runtime.GOOS, Getenv: os.Getenv} }

func srcSkill(t *testing.T) map[string][]byte {
	t.Helper()
	root, err := moduleRoot(testEnv(), ".")
	require.NoError(t, err)
	files, err := readTree(filepath.Join(root, "skill"))
	require.NoError(t, err)
	require.Contains(t, files, "SKILL.md")
	return files
}

// assertInstalled checks the copy holds exactly the skill's files plus a
// manifest that describes them.
func assertInstalled(t *testing.T, dir string) {
	t.Helper()
	src := srcSkill(t)
	got, err := readTree(dir)
	require.NoError(t, err)
	mf, ok := got[manifestName]
	require.True(t, ok, "a manifest is written")
	delete(got, manifestName)
	assert.Equal(t, src, got)
	assert.Equal(t, string(formatManifest(src)), string(mf))
	assert.Regexp(t, `^[0-9a-f]{64}  SKILL\.md$`, strings.Split(string(mf), "\n")[0])
}

func TestFreshInstall(t *testing.T) {
	h := newHarness(t)
	code, stdout, stderr := h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "installed the skill in "+h.target())
	assertInstalled(t, h.target())
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(h.target(), "SKILL.md"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
}

func TestInstallIntoDir(t *testing.T) {
	h := newHarness(t)
	dir := filepath.Join(t.TempDir(), "elsewhere", skillName)
	code, _, stderr := h.run("--no-binaries", "--dir", dir)
	require.Equal(t, 0, code, stderr)
	assertInstalled(t, dir)
	_, err := os.Stat(h.target())
	assert.True(t, os.IsNotExist(err), "nothing written under HOME with --dir")
}

func TestReinstallIsIdempotent(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	before, err := readTree(h.target())
	require.NoError(t, err)
	code, _, stderr = h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "is up to date")
	after, err := readTree(h.target())
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// TestReinstallUpdatesUntouchedCopy: a copy left as an older install wrote
// it (its files agree with its manifest) is brought up to date without
// --force, and a file the new skill no longer ships is removed.
func TestReinstallUpdatesUntouchedCopy(t *testing.T) {
	h := newHarness(t)
	old := map[string][]byte{
		"SKILL.md":          []byte("---\nname: subagent-driven-development\ndescription: old\n---\n"),
		"retired-prompt.md": []byte("# gone in the new version\n"),
	}
	require.NoError(t, os.MkdirAll(h.target(), 0o755))
	for rel, b := range old {
		require.NoError(t, os.WriteFile(filepath.Join(h.target(), rel), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(h.target(), manifestName), formatManifest(old), 0o644))

	code, _, stderr := h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "1 removed")
	assertInstalled(t, h.target())
}

func TestRefusesModifiedCopy(t *testing.T) {
	for name, modify := range map[string]func(t *testing.T, dir string){
		"edited": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("my local notes\n"), 0o644))
		},
		"deleted": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "re-review-prompt.md")))
		},
		"manifest lost": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			code, _, stderr := h.run("--no-binaries")
			require.Equal(t, 0, code, stderr)
			modify(t, h.target())
			before, err := readTree(h.target())
			require.NoError(t, err)

			code, stdout, stderr := h.run("--no-binaries")
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "was modified since it was installed")
			assert.Contains(t, stderr, "--force")
			after, err := readTree(h.target())
			require.NoError(t, err)
			assert.Equal(t, before, after, "a refused install changes nothing")

			code, _, stderr = h.run("--no-binaries", "--force")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "--force: overwriting local changes")
			assertInstalled(t, h.target())

			code, _, stderr = h.run("--no-binaries")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stderr, "is up to date", "after --force the copy is untouched again")
		})
	}
}

// TestRefusesForeignCopy: a skill directory the installer did not write
// (say, the upstream skill copied by hand) is not overwritten either.
func TestRefusesForeignCopy(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, os.MkdirAll(h.target(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(h.target(), "SKILL.md"), []byte("someone else's\n"), 0o644))
	code, _, stderr := h.run("--no-binaries")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "SKILL.md (not installed by this tool)")
	b, err := os.ReadFile(filepath.Join(h.target(), "SKILL.md"))
	require.NoError(t, err)
	assert.Equal(t, "someone else's\n", string(b))
}

func TestExtraLocalFilesAreKept(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	notes := filepath.Join(h.target(), "my-notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine\n"), 0o644))
	code, _, stderr = h.run("--no-binaries")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(b))
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"stray"},
		{"--replace-scripts", "a", "--restore", "b"},
		{"--bin", "x"},
		{"--replace-scripts", "a", "--dir", "b"},
		{"--restore", "a", "--force"},
		{"--dir", ""},
		{"--replace-scripts"},
	} {
		h := newHarness(t)
		code, stdout, stderr := h.run(args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Empty(t, stdout, "%q", args)
		assert.Contains(t, stderr, "usage: go run ./scripts/install-skill", "%q", args)
		_, err := os.Stat(h.target())
		assert.True(t, os.IsNotExist(err), "%q: nothing installed", args)
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
	code, _, stderr := h.run("--no-binaries")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--dir")
}

// fakeSuperpowers lays out an installed superpowers skill with bash
// scripts, and a directory of stand-in binaries.
func fakeSuperpowers(t *testing.T) (skillDir, binDir string) {
	t.Helper()
	base := t.TempDir()
	skillDir = filepath.Join(base, "superpowers", "skills", skillName)
	scripts := filepath.Join(skillDir, "scripts")
	require.NoError(t, os.MkdirAll(scripts, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("upstream\n"), 0o644))
	for _, name := range commands {
		require.NoError(t, os.WriteFile(filepath.Join(scripts, name), []byte(origScript(name)), 0o755))
	}
	binDir = filepath.Join(base, "bin")
	writeFakeBinaries(t, binDir, "v1")
	return skillDir, binDir
}

func origScript(name string) string {
	return "#!/usr/bin/env bash\necho the bash " + name + "\n"
}

func writeFakeBinaries(t *testing.T, dir, version string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, name := range commands {
		p := filepath.Join(dir, name)
		if runtime.GOOS == "windows" {
			p += ".exe"
		}
		require.NoError(t, os.WriteFile(p, []byte("\x7fELF binary "+name+" "+version), 0o755))
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func assertReplaced(t *testing.T, scripts, version string) {
	t.Helper()
	for _, name := range commands {
		p := filepath.Join(scripts, name)
		assert.Equal(t, "\x7fELF binary "+name+" "+version, readFile(t, p))
		assert.Equal(t, origScript(name), readFile(t, p+origSuffix))
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), name)
		}
	}
}

func assertOriginal(t *testing.T, scripts string) {
	t.Helper()
	for _, name := range commands {
		p := filepath.Join(scripts, name)
		assert.Equal(t, origScript(name), readFile(t, p))
		_, err := os.Lstat(p + origSuffix)
		assert.True(t, os.IsNotExist(err), "%s has no .bash-orig left", name)
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "%s keeps its mode", name)
		}
	}
}

func TestReplaceThenRestore(t *testing.T) {
	skillDir, bin := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	h := newHarness(t)

	code, stdout, stderr := h.run("--replace-scripts", skillDir, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "original kept as task-brief.bash-orig")
	assertReplaced(t, scripts, "v1")

	// Again: nothing to do, and the originals are not overwritten by the
	// binaries.
	code, _, stderr = h.run("--replace-scripts", skillDir, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already replaced, up to date")
	assertReplaced(t, scripts, "v1")

	// New binaries: the replaced copies are refreshed, the originals kept.
	writeFakeBinaries(t, bin, "v2")
	code, _, stderr = h.run("--replace-scripts", scripts, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "binary updated")
	assertReplaced(t, scripts, "v2")

	code, _, stderr = h.run("--restore", skillDir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "original script restored")
	assertOriginal(t, scripts)

	code, _, stderr = h.run("--restore", scripts)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already the original script")
	assertOriginal(t, scripts)
	assert.Equal(t, "upstream\n", readFile(t, filepath.Join(skillDir, "SKILL.md")), "the skill text is not touched")
}

// TestReplaceFindsGoBin: without --bin the binaries come from where go
// install puts them (GOBIN here).
func TestReplaceFindsGoBin(t *testing.T) {
	skillDir, bin := fakeSuperpowers(t)
	h := newHarness(t)
	h.env["GOBIN"] = bin
	code, _, stderr := h.run("--replace-scripts", skillDir, "--no-binaries")
	require.Equal(t, 0, code, stderr)
	assertReplaced(t, filepath.Join(skillDir, "scripts"), "v1")
}

func TestReplaceRefusals(t *testing.T) {
	t.Run("not a superpowers dir", func(t *testing.T) {
		_, bin := fakeSuperpowers(t)
		code, _, stderr := newHarness(t).run("--replace-scripts", t.TempDir(), "--bin", bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "not a superpowers subagent-driven-development skill")
	})
	t.Run("binary missing", func(t *testing.T) {
		skillDir, bin := fakeSuperpowers(t)
		require.NoError(t, os.Remove(filepath.Join(bin, exeName("review-package"))))
		code, _, stderr := newHarness(t).run("--replace-scripts", skillDir, "--bin", bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "no review-package binary")
		assertOriginal(t, filepath.Join(skillDir, "scripts"))
	})
	t.Run("unknown file in place of a script", func(t *testing.T) {
		skillDir, bin := fakeSuperpowers(t)
		scripts := filepath.Join(skillDir, "scripts")
		require.NoError(t, os.WriteFile(filepath.Join(scripts, "task-brief"), []byte("MZ not a script"), 0o755))
		code, _, stderr := newHarness(t).run("--replace-scripts", skillDir, "--bin", bin)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "is not a script")
		for _, name := range []string{"sdd-workspace", "review-package"} {
			assert.Equal(t, origScript(name), readFile(t, filepath.Join(scripts, name)), "checked before any change")
			_, err := os.Lstat(filepath.Join(scripts, name+origSuffix))
			assert.True(t, os.IsNotExist(err))
		}
	})
	t.Run("restore without originals", func(t *testing.T) {
		skillDir, _ := fakeSuperpowers(t)
		scripts := filepath.Join(skillDir, "scripts")
		require.NoError(t, os.WriteFile(filepath.Join(scripts, "sdd-workspace"), []byte("binary"), 0o755))
		code, _, stderr := newHarness(t).run("--restore", skillDir)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "no sdd-workspace.bash-orig to restore it from")
	})
}

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// TestDocumentedCommandLinesParse: every installer command line in the
// README draft and in mk/skill.mk is one the installer accepts.
func TestDocumentedCommandLinesParse(t *testing.T) {
	root, err := moduleRoot(testEnv(), ".")
	require.NoError(t, err)
	runRe := regexp.MustCompile(`go run \./scripts/install-skill((?: [^\s|;&)#]+)*)`)
	makeRe := regexp.MustCompile(`make install-skill(?: ARGS="([^"]*)"| ARGS='([^']*)')?`)
	seen := 0
	for _, rel := range []string{"docs/skill.md", "mk/skill.mk"} {
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
	assert.GreaterOrEqual(t, seen, 4, "the docs show the installer in use")
}

// TestReplaceThenRestoreWindowsLayout: for Windows the binaries land as
// scripts/<name>.exe, since cmd and PowerShell run no extensionless file
// (and find scripts\<name>.exe when told scripts\<name>, as Git Bash does);
// the bash scripts move aside, and --restore removes the .exe files again.
// The layout is decided by the target OS, so it is checked here on every
// OS; make test-windows runs it for real through cmd under Wine.
func TestReplaceThenRestoreWindowsLayout(t *testing.T) {
	skillDir, _ := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	bin := filepath.Join(t.TempDir(), "winbin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, name := range commands {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name+".exe"), []byte("MZ "+name), 0o755))
	}
	h := newHarness(t)
	h.goos = "windows"

	code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{
		"review-package.bash-orig", "review-package.exe",
		"sdd-workspace.bash-orig", "sdd-workspace.exe",
		"task-brief.bash-orig", "task-brief.exe",
	}, dirNames(t, scripts))
	for _, name := range commands {
		assert.Equal(t, "MZ "+name, readFile(t, filepath.Join(scripts, name+".exe")))
		assert.Equal(t, origScript(name), readFile(t, filepath.Join(scripts, name+origSuffix)))
	}

	code, _, stderr = h.run("--replace-scripts", skillDir, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already replaced, up to date")

	code, _, stderr = h.run("--restore", skillDir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"review-package", "sdd-workspace", "task-brief"}, dirNames(t, scripts))
	assertOriginal(t, scripts)
}

// TestRestoreWindowsAfterExtensionlessCopy: an install replaced by an older
// installer holds the binary as an extensionless scripts/<name> (which no
// Windows shell runs); replacing again moves to <name>.exe and --restore
// still brings the scripts back.
func TestRestoreWindowsAfterExtensionlessCopy(t *testing.T) {
	skillDir, _ := fakeSuperpowers(t)
	scripts := filepath.Join(skillDir, "scripts")
	for _, name := range commands {
		p := filepath.Join(scripts, name)
		require.NoError(t, os.Rename(p, p+origSuffix))
		require.NoError(t, os.WriteFile(p, []byte("MZ old "+name), 0o755))
	}
	bin := filepath.Join(t.TempDir(), "winbin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, name := range commands {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name+".exe"), []byte("MZ "+name), 0o755))
	}
	h := newHarness(t)
	h.goos = "windows"
	code, _, stderr := h.run("--replace-scripts", skillDir, "--bin", bin)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{
		"review-package.bash-orig", "review-package.exe",
		"sdd-workspace.bash-orig", "sdd-workspace.exe",
		"task-brief.bash-orig", "task-brief.exe",
	}, dirNames(t, scripts))
	code, _, stderr = h.run("--restore", skillDir)
	require.Equal(t, 0, code, stderr)
	assertOriginal(t, scripts)
	assert.Equal(t, []string{"review-package", "sdd-workspace", "task-brief"}, dirNames(t, scripts))
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
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
