package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// others deals with what shows the model another skill named
// subagent-driven-development beside the plugin's, which would leave it to
// guess between two texts. The previous installer's plain skill goes when
// it is untouched; everything else is named, with the choices.
func others(home, target string, hasBin bool, env Env) {
	skills := under(home, ".claude/skills")
	if old := under(skills, ship.SkillName); !sameDir(old, target) {
		migrate(old, env)
	}
	enabled := enabledPlugins(home)
	if on, ok := enabled[pluginID]; ok && !on {
		logf(env, "%s is disabled in Claude Code's settings; `claude plugin enable %s` turns it on", pluginID, pluginID)
		return
	}
	for _, o := range otherPlugins(home, skills, target) {
		if on, ok := enabled[o.id]; ok && !on {
			continue
		}
		name, _, _ := strings.Cut(o.id, "@")
		from := "taken from " + filepath.Join(target, "bin")
		if !hasBin {
			from = "the plugin has none: add --bin DIR"
		}
		logf(env, `%s has a skill of the same name (%s): the model now sees both %s:%s and %s. Keep one:
  claude plugin disable %s
      keeps sdd-go's text and binaries (and turns off the other skills of %s);
  claude plugin disable %s
  go run ./scripts/install-skill --replace-scripts %s
      keeps the text of %s and runs it on the sdd-go binaries (%s).`,
			o.id, o.dir, name, ship.SkillName, qualifiedSkill,
			quote(o.id, env.GOOS), name,
			pluginID, quote(o.dir, env.GOOS),
			name, from)
	}
}

// migrate removes the plain skill the previous installer put in old when
// its manifest says it is untouched, and says what to do when it is not.
// A link there is the user's (links.go): neither it nor what it leads to
// is removed.
func migrate(old string, env Env) {
	obs := obstacles(old, []string{manifestName})
	if len(obs) > 0 && obs[0].path == old {
		if ok, _ := exists(under(old, "SKILL.md")); ok {
			logf(env, "%s is %s, a skill of the same name: the model sees it beside %s. install-skill neither removes the link nor empties what it leads to: remove the link to keep one",
				old, obs[0].what, qualifiedSkill)
		}
		return
	}
	var manifest map[string][]string
	var err error
	if len(obs) == 0 {
		if manifest, err = readManifest(under(old, manifestName)); err != nil {
			logf(env, "%s: %v", old, err)
			return
		}
		if manifest == nil {
			if ok, _ := exists(under(old, "SKILL.md")); ok {
				logf(env, "%s is a skill of the same name that install-skill did not write: the model sees it beside %s; move it out of %s to keep one",
					old, qualifiedSkill, filepath.Dir(old))
			}
			return
		}
		obs = obstacles(old, sortedKeys(manifest))
	}
	var changed []string
	for _, o := range obs {
		changed = append(changed, o.path+" ("+o.what+")")
	}
	if len(changed) == 0 {
		if changed, _, err = changes(old, nil, manifest); err != nil {
			logf(env, "%s: %v", old, err)
			return
		}
	}
	if len(changed) > 0 {
		logf(env, "%s holds the skill as the previous install-skill put it there, with your changes (%s): the model sees it beside %s. Keep your changes elsewhere and delete %s",
			old, strings.Join(changed, ", "), qualifiedSkill, old)
		oldBinaries(env)
		return
	}
	for _, rel := range append(sortedKeys(manifest), manifestName) {
		if err := os.Remove(under(old, rel)); err != nil && !os.IsNotExist(err) {
			logf(env, "removing the previous install: %v", err)
			return
		}
		removeEmptyParents(old, rel)
	}
	if err := os.Remove(old); err != nil {
		logf(env, "removed the skill the previous install-skill put in %s; the files you added there are left", old)
	} else {
		logf(env, "removed the skill the previous install-skill put in %s (untouched since): the plugin replaces it", old)
	}
	oldBinaries(env)
}

// oldBinaries says that the binaries the previous installer put where go
// install puts them are no longer needed, when they are there. They are
// left alone: something else may use them.
func oldBinaries(env Env) {
	dir, err := goBinDir(env)
	if err != nil {
		return
	}
	var found []string
	for _, c := range ship.Commands {
		if ok, _ := exists(filepath.Join(dir, ship.BinaryName(c, env.GOOS))); ok {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return
	}
	logf(env, "the %s in %s are no longer needed by the skill: the plugin brings its own. Where %s is on PATH they run instead of the plugin's (Claude Code puts the plugin's bin/ last), so remove them unless something else uses them",
		strings.Join(found, ", "), dir, dir)
}

// another is another plugin with a skill subagent-driven-development.
type another struct {
	id  string // name@marketplace, or name@skills-dir
	dir string // its skill's directory
}

// otherPlugins lists the plugins other than target that hold the skill:
// those Claude Code installed from a marketplace (its
// plugins/installed_plugins.json names them and where they are) and those
// sitting in ~/.claude/skills/ (a folder with .claude-plugin/plugin.json).
func otherPlugins(home, skills, target string) []another {
	var out []another
	holds := func(id, pluginDir string) {
		dir := filepath.Join(pluginDir, "skills", ship.SkillName)
		if ok, _ := exists(filepath.Join(dir, "SKILL.md")); ok && !sameDir(pluginDir, target) {
			out = append(out, another{id, dir})
		}
	}
	var installed struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if b, err := os.ReadFile(filepath.Join(home, ".claude", "plugins", "installed_plugins.json")); err == nil && json.Unmarshal(b, &installed) == nil {
		for _, id := range sortedKeys(installed.Plugins) {
			var entries []struct{ InstallPath string }
			if json.Unmarshal(installed.Plugins[id], &entries) != nil {
				continue
			}
			for _, e := range entries {
				if e.InstallPath != "" {
					holds(id, e.InstallPath)
				}
			}
		}
	}
	ents, _ := os.ReadDir(skills)
	for _, e := range ents {
		var manifest struct{ Name string }
		b, err := os.ReadFile(filepath.Join(skills, e.Name(), ".claude-plugin", "plugin.json"))
		if err == nil && json.Unmarshal(b, &manifest) == nil && manifest.Name != "" {
			holds(manifest.Name+"@skills-dir", filepath.Join(skills, e.Name()))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// enabledPlugins is the enabledPlugins map of Claude Code's user settings:
// false there is a plugin turned off with `claude plugin disable`.
func enabledPlugins(home string) map[string]bool {
	var settings struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); err == nil {
		_ = json.Unmarshal(b, &settings)
	}
	return settings.EnabledPlugins
}

// goBinDir is where go install puts binaries: GOBIN, else the first
// GOPATH entry's bin.
func goBinDir(env Env) (string, error) {
	out, err := goOutput(env, env.Dir, "env", "GOBIN", "GOPATH")
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
		return strings.TrimSpace(lines[0]), nil
	}
	if len(lines) > 1 {
		if first := filepath.SplitList(strings.TrimSpace(lines[1])); len(first) > 0 && first[0] != "" {
			return filepath.Join(first[0], "bin"), nil
		}
	}
	return "", fmt.Errorf("go env reports neither GOBIN nor GOPATH")
}

// sameDir reports whether a and b are one existing directory.
func sameDir(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// quote makes p one word, taken literally, in the shell the user pastes
// the printed line into; a word of only safe characters is left as it is.
// On Unix that is a POSIX shell: single quotes, in which nothing is
// special; a ' inside ends them, is written \' and begins them again. On
// Windows it is cmd or PowerShell, and no one quoting suits both: double
// quotes do, for every path that holds neither $ nor ` (which PowerShell
// expands inside them; cmd expands %NAME% inside them only when NAME is
// set, and no Windows path holds a "); a path with $ or ` gets
// PowerShell's single quotes, a ' inside written twice, since PowerShell
// is the shell Windows opens by default.
func quote(p, goos string) string {
	safe := "@%+=:,./-_"
	if goos == "windows" {
		safe = `:./-_\`
	}
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(safe, r))
	}) < 0 {
		return p
	}
	switch {
	case goos != "windows":
		return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	case strings.ContainsAny(p, "$`"):
		return "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return `"` + p + `"`
}
