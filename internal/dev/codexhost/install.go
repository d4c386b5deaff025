package codexhost

import (
	"path/filepath"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/host"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// InstallSkill installs the skill for Codex the way a user does, with the
// project's installer (host.Install, --host codex) run with HOME and
// CODEX_HOME set to the host's: the skill in $CODEX_HOME/skills/
// <ship.SkillName>/ (skill/'s files, README and LICENSE,
// ship.SkillFolderFiles) with the commands as they ship in its bin/.
// Codex lists the folder's SKILL.md in the instructions; nothing puts its
// bin/ on PATH. It returns the skill's directory.
func InstallSkill(t testing.TB, codexHome string) string {
	t.Helper()
	host.Install(t, filepath.Dir(codexHome), "codex", "CODEX_HOME="+codexHome)
	return filepath.Join(codexHome, "skills", ship.SkillName)
}
