package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// pluginID is how Claude Code names the plugin when it sits in
// ~/.claude/skills/: `claude plugin disable sdd-go@skills-dir` turns it off.
const pluginID = ship.PluginName + "@skills-dir"

// qualifiedSkill is the name the model sees the skill by.
const qualifiedSkill = ship.PluginName + ":" + ship.SkillName

// defaultPluginDir is where the plugin goes without --dir: a folder of
// ~/.claude/skills/ holding .claude-plugin/plugin.json is one Claude Code
// loads as a plugin, with no marketplace and no PATH edit.
func defaultPluginDir(env Env) (string, error) {
	home, err := homeDir(env)
	if err != nil {
		return "", err
	}
	return under(home, ".claude/skills/"+ship.PluginName), nil
}

// install puts the plugin (ship.PluginFiles) in place, then deals with the
// other copies of the skill the model would see beside it.
func install(o options, env Env) error {
	root, err := moduleRoot(env, env.Dir)
	if err != nil {
		return err
	}
	target := o.dir
	if target == "" {
		if target, err = defaultDir(o.host, env); err != nil {
			return err
		}
	}
	if err := quotable(o.host, target, env); err != nil {
		return err
	}
	version := ship.DefaultVersion(ship.GitIn(root))
	binDir := o.bin
	if binDir == "" && !o.noBinaries {
		tmp, err := scratch.mkdirTemp("sdd-go-install-")
		if err != nil {
			return err
		}
		defer scratch.removeDir(tmp)
		logf(env, "building %s %s as they ship", strings.Join(ship.Commands, ", "), version)
		b := ship.Build{Go: env.GoCmd, Root: root, Out: tmp, GOOS: env.GOOS, Version: version, Env: env.Environ}
		if err := scratch.runChild(func() error { return b.Run(context.Background()) }); err != nil {
			return err
		}
		binDir = tmp
	}
	list, err := ship.PluginFiles(root, binDir, env.GOOS, version)
	what := "plugin " + ship.PluginName
	if o.host != hostClaudeCode {
		list, err = ship.SkillFolderFiles(root, binDir, env.GOOS)
		what = "skill " + ship.SkillName + " for " + o.host
	}
	if err != nil {
		return err
	}
	files, err := readFiles(list)
	if err != nil {
		return err
	}
	var settings *droidSettings
	if o.host == hostDroid {
		// Droid's settings must be readable before anything is placed:
		// the allowlist goes in them.
		if settings, err = readDroidSettings(env); err != nil {
			return err
		}
	}
	did, err := place(target, files, o.force, env)
	if err != nil {
		return err
	}
	if did.written == 0 && did.removed == 0 {
		logf(env, "%s %s at %s is up to date", what, version, target)
	} else {
		logf(env, "installed %s %s in %s (%d file(s) written, %d removed, %d unchanged)",
			what, version, target, did.written, did.removed, did.unchanged)
	}
	if o.host != hostClaudeCode {
		logf(env, "%s lists the skill as %s in new sessions; it runs the commands from %s", o.host, ship.SkillName, filepath.Join(target, "bin"))
		switch o.host {
		case hostPi:
			return installPi(o.force, env)
		case hostDroid:
			return addAllowlist(target, settings, env)
		case hostGemini:
		default:
			return nil
		}
		if err := installPolicy(target, o.force, env); err != nil {
			return err
		}
		logf(env, "Gemini CLI's read_file refuses the git-ignored review packages: for the reviewers, set \"context\": {\"fileFiltering\": {\"respectGitIgnore\": false}} in ~/.gemini/settings.json (host-gemini.md)")
		return nil
	}
	if binDir == "" {
		logf(env, "--no-binaries: the plugin has no bin/; the skill runs %s from PATH where they are there, and otherwise does their work by hand",
			strings.Join(ship.Commands, ", "))
	} else {
		logf(env, "Claude Code puts %s on the PATH of its tools", filepath.Join(target, "bin"))
	}
	logf(env, "the model sees the skill as %s (new sessions, or /reload-plugins in a running one)", qualifiedSkill)
	if home, err := homeDir(env); err == nil {
		others(home, target, binDir != "", env)
	}
	return nil
}

// readFiles reads what is installed. The binaries are a few MB each; the
// manifest needs their sums and a reinstall compares their bytes.
func readFiles(list []ship.File) (map[string]newFile, error) {
	var err error
	files := map[string]newFile{}
	for _, f := range list {
		data := f.Data
		if f.Src != "" {
			if data, err = os.ReadFile(f.Src); err != nil {
				return nil, fmt.Errorf("reading what the plugin holds: %w", err)
			}
		}
		files[f.Path] = newFile{data: data, mode: f.Mode}
	}
	return files, nil
}
