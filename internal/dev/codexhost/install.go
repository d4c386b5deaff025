package codexhost

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// InstallSkill installs the skill for Codex into codexHome as a user's
// copy is laid out: the files of skill/ in skills/<ship.SkillName>/, and
// the four commands as they ship (testutil's one build of them, which the
// Claude Code suite installs too) in its bin/. Codex lists the folder's
// SKILL.md in the instructions; nothing puts its bin/ on PATH. It returns
// the skill's directory.
func InstallSkill(t testing.TB, codexHome string) string {
	t.Helper()
	bin, err := testutil.BuildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(codexHome, "skills")
	files, err := ship.SkillFiles(testutil.ModuleRoot(), ship.SkillName)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ship.BinaryFiles(bin, runtime.GOOS, ship.SkillName+"/bin")...)
	for _, f := range files {
		if err := place(filepath.Join(root, filepath.FromSlash(f.Path)), f); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, ship.SkillName)
}

// place writes one file of what ships at dst.
func place(dst string, f ship.File) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if f.Src == "" {
		return os.WriteFile(dst, f.Data, f.Mode)
	}
	in, err := os.Open(f.Src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
