package codexhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

var installer struct {
	once sync.Once
	bin  string // the installer, built once per process
	cmds string // the commands' binaries, as they ship
	err  error
}

// InstallSkill installs the skill for Codex the way a user does: the
// project's installer (scripts/install-skill --host codex, built once per
// process) runs with HOME and CODEX_HOME set to the host's, and puts the
// skill in $CODEX_HOME/skills/<ship.SkillName>/ (skill/'s files, README
// and LICENSE, ship.SkillFolderFiles) with the commands as they ship in
// its bin/ (testutil's one build of them, passed with --bin, which the
// Claude Code suite installs too). Codex lists the folder's SKILL.md in
// the instructions; nothing puts its bin/ on PATH. It returns the skill's
// directory.
func InstallSkill(t testing.TB, codexHome string) string {
	t.Helper()
	installer.once.Do(func() {
		if installer.cmds, installer.err = testutil.BuildBinaries(); installer.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "sdd-installer-")
		if err != nil {
			installer.err = err
			return
		}
		installer.bin = filepath.Join(dir, ship.BinaryName("install-skill", runtime.GOOS))
		cmd := exec.Command("go", "build", "-o", installer.bin, "./scripts/install-skill")
		cmd.Dir = testutil.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			installer.err = fmt.Errorf("go build ./scripts/install-skill: %v\n%s", err, out)
		}
	})
	if installer.err != nil {
		t.Fatal(installer.err)
	}
	cmd := exec.Command(installer.bin, "--host", "codex", "--bin", installer.cmds)
	cmd.Dir = testutil.ModuleRoot()
	cmd.Env = append(os.Environ(), "HOME="+filepath.Dir(codexHome), "USERPROFILE="+filepath.Dir(codexHome), "CODEX_HOME="+codexHome)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install-skill --host codex --bin %s: %v\n%s", installer.cmds, err, out)
	}
	return filepath.Join(codexHome, "skills", ship.SkillName)
}

// RemoveInstaller removes the installer InstallSkill built (TestMain
// calls it).
func RemoveInstaller() {
	if installer.bin != "" {
		os.RemoveAll(filepath.Dir(installer.bin))
	}
}
