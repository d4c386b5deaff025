package opencodehost

import (
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// InstallSkill installs the skill for OpenCode in the host's HOME as a
// user does, with the project's installer (harness.Install, --host
// opencode): the skill's folder in ~/.config/opencode/skills/, the four
// commands as they ship in its bin/, which the skill's host-opencode.md
// has the model run by path (the session's PATH holds no copy:
// harness.SystemPath). It returns the skill's directory.
func (h *Host) InstallSkill() string {
	h.T.Helper()
	harness.Install(h.T, h.Home, []string{"--host", "opencode"}, "XDG_CONFIG_HOME="+filepath.Dir(h.ConfigDir()))
	return filepath.Join(h.ConfigDir(), "skills", ship.SkillName)
}
