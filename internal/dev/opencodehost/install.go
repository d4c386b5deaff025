package opencodehost

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/sdd-go/sdd-go/internal/dev/host"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// InstallSkill installs the skill for OpenCode in the host's HOME as a
// user does, with the project's installer (host.Install, --host opencode):
// the skill's folder in ~/.config/opencode/skills/, the four commands as
// they ship in its bin/, which the skill's host-opencode.md has the model
// run by path. It fails the test if a directory of the session's PATH
// holds one of the commands: a session must find them in the skill's bin/
// alone. It returns the skill's directory.
func (h *Host) InstallSkill() string {
	t := h.t
	t.Helper()
	for _, d := range h.Path {
		for _, c := range ship.Commands {
			if _, err := os.Stat(filepath.Join(d, ship.BinaryName(c, runtime.GOOS))); err == nil {
				t.Fatalf("%s on the session's PATH holds %s: a session could not tell it from the skill's", d, c)
			}
		}
	}
	host.Install(t, h.Home, "opencode", "XDG_CONFIG_HOME="+filepath.Dir(h.ConfigDir()))
	return filepath.Join(h.ConfigDir(), "skills", ship.SkillName)
}
