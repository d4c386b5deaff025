package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Gemini CLI (0.61.0) runs no shell command and activates no skill in a
// headless session unless a policy rule allows it (the notes of
// internal/dev/geminihost). The install for it writes the narrowest
// rules that let the skill work, as a user policy file,
// ~/.gemini/policies/sdd-go.toml: the four commands run by their quoted
// paths in the install (a commandPrefix matches the command's text, the
// opening quote included), and activate_skill for this skill alone. It is placed like every other
// file (place.go), with a manifest of its own in that folder (the CLI
// reads only *.toml there), so a reinstall keeps a rule the user edited
// and --uninstall removes it.

// policyName is the policy file's name in ~/.gemini/policies/.
const policyName = "sdd-go.toml"

// policyDir is Gemini CLI's user policy folder: ~/.gemini/policies, HOME
// being GEMINI_CLI_HOME when that is set.
func policyDir(env Env) (string, error) {
	base, err := configBase(hostGemini, env)
	if err != nil {
		return "", err
	}
	return under(base, ".gemini/policies"), nil
}

// installPolicy writes the policy for the skill installed in target.
func installPolicy(target string, force bool, env Env) error {
	dir, err := policyDir(env)
	if err != nil {
		return err
	}
	text, err := policyText(target, env)
	if err != nil {
		return err
	}
	did, err := place(dir, map[string]newFile{policyName: {data: []byte(text), mode: 0o644}}, force, env)
	if err != nil {
		return err
	}
	if did.written > 0 {
		logf(env, "wrote %s: Gemini CLI runs the skill's commands by their paths and activates it without asking", under(dir, policyName))
	}
	return nil
}

// policyText is the policy for the skill in target. The paths are those
// the CLI shows the model (the folder as the kernel resolves it, and as
// it was named when that is another absolute spelling), since a rule
// matches the command's text.
func policyText(target string, env Env) (string, error) {
	var dirs []string
	if filepath.IsAbs(target) {
		dirs = append(dirs, target)
	}
	resolved, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(env.Dir, resolved)
	}
	if len(dirs) == 0 || dirs[0] != resolved {
		dirs = append(dirs, resolved)
	}
	var prefixes []string
	for _, d := range dirs {
		for _, c := range ship.Commands {
			prefixes = append(prefixes, tomlString("'"+filepath.ToSlash(d)+"/bin/"+c+"'"))
		}
	}
	return fmt.Sprintf(`# sdd-go's rules for Gemini CLI, written by its installer
# (go run ./scripts/install-skill --host gemini) and removed by --uninstall:
# the skill's four commands, run by their quoted paths, and the skill's
# activation, without asking.

[[rule]]
toolName = "run_shell_command"
commandPrefix = [%s]
decision = "allow"
priority = 100

[[rule]]
toolName = "activate_skill"
argsPattern = '"name":"%s"'
decision = "allow"
priority = 100
`, strings.Join(prefixes, ", "), ship.SkillName), nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
