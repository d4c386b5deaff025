package opencodehost

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// PluginFile is the plugin's file name under ~/.config/opencode/plugins/.
const PluginFile = "sdd-go.js"

// PluginJS is the OpenCode plugin that puts the skill's commands on the
// PATH of OpenCode's shell tool: its shell.env hook (called before every
// command of the bash tool, a subagent's included) puts the bin/ of the
// installed skill in front of PATH. It finds bin/ from its own place,
// ../skills/subagent-driven-development/bin beside plugins/, so it is the
// same file wherever the configuration directory is, and holds no path.
//
// For now the one copy is here, installed by InstallSkill; the installer
// (scripts/install-skill) is to ship it.
const PluginJS = `// sdd-go: puts the commands of the subagent-driven-development skill
// (its bin/, installed beside this plugins/ folder) in front of the PATH
// of OpenCode's shell tool, so the skill's steps find them by name.
import path from "node:path"
import { fileURLToPath } from "node:url"

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "skills", "` + ship.SkillName + `", "bin")

export const SddGo = async () => ({
  "shell.env": async (input, output) => {
    const rest = output.env.PATH ?? process.env.PATH ?? ""
    output.env.PATH = rest === "" ? bin : bin + path.delimiter + rest
  },
})
`

// InstallSkill installs the skill for OpenCode in the host's HOME as the
// installer is to: skill/'s files in ~/.config/opencode/skills/
// subagent-driven-development/ (ship.SkillFiles), the four commands as
// they ship in its bin/ (testutil's one build, ship.BinaryFiles), and the
// plugin PluginJS in ~/.config/opencode/plugins/. It fails the test if a
// directory of the session's PATH holds one of the commands: a session
// must find them in the skill's bin/ alone. It returns the skill's
// directory.
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
	cmds, err := testutil.BuildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	under := "skills/" + ship.SkillName
	files, err := ship.SkillFiles(testutil.ModuleRoot(), under)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ship.BinaryFiles(cmds, runtime.GOOS, under+"/bin")...)
	files = append(files, ship.File{Path: "plugins/" + PluginFile, Mode: 0o644, Data: []byte(PluginJS)})
	for _, f := range files {
		if err := writeFile(filepath.Join(h.ConfigDir(), filepath.FromSlash(f.Path)), f); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(h.ConfigDir(), filepath.FromSlash(under))
}

// writeFile writes f at dst, making its directory.
func writeFile(dst string, f ship.File) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, f.Mode)
	if err != nil {
		return err
	}
	if f.Src == "" {
		_, err = out.Write(f.Data)
	} else {
		var in *os.File
		if in, err = os.Open(f.Src); err == nil {
			_, err = io.Copy(out, in)
			in.Close()
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("installing %s: %w", f.Path, err)
	}
	return os.Chmod(dst, f.Mode)
}
