package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// The hosts the installer installs for (--host). Claude Code gets the
// plugin, whose bin/ it puts on the PATH of its tools; the others load a
// skill from a folder of their skills directory and put no plugin's bin/
// on PATH, so they get the skill as a folder with the binaries in its
// bin/, which their file of the skill (skill/host-<host>.md) has the
// model run by path.
const (
	hostClaudeCode = "claude-code"
	hostCodex      = "codex"
	hostOpenCode   = "opencode"
	hostCopilot    = "copilot"
	hostGemini     = "gemini"
	hostPi         = "pi"
	hostDroid      = "droid"
)

var hosts = []string{hostClaudeCode, hostCodex, hostOpenCode, hostCopilot, hostGemini, hostPi, hostDroid}

// home is where a host keeps its configuration: the variable that moves
// it (key), else fallback under HOME; the skills folder is
// <that>/<skills>/subagent-driven-development.
type home struct{ key, fallback, skills, cli string }

// homes are the folders each skill-folder host reads its user skills
// from, its own one. Each host but OpenCode also reads ~/.agents/skills/
// (Codex, Copilot CLI 1.0.102, Gemini CLI 0.61.0, Pi 0.73.1, Droid
// 0.225.2: their host packages' notes), which the installer leaves
// alone: a folder there would be a second copy of the skill for every
// host that also has its own.
var homes = map[string]home{
	hostCodex:    {"CODEX_HOME", ".codex", "skills", "Codex"},
	hostOpenCode: {"XDG_CONFIG_HOME", ".config", "opencode/skills", "OpenCode"},
	hostCopilot:  {"COPILOT_HOME", ".copilot", "skills", "Copilot CLI"},
	hostGemini:   {"GEMINI_CLI_HOME", "", ".gemini/skills", "Gemini CLI"},
	hostPi:       {"PI_CODING_AGENT_DIR", ".pi/agent", "skills", "Pi"},
	hostDroid:    {"FACTORY_HOME_OVERRIDE", "", ".factory/skills", "Factory Droid"},
}

// defaultDir is where the install for host goes without --dir:
//
//	claude-code  ~/.claude/skills/sdd-go (defaultPluginDir)
//	codex        $CODEX_HOME/skills/subagent-driven-development, CODEX_HOME being ~/.codex when unset
//	opencode     $XDG_CONFIG_HOME/opencode/skills/subagent-driven-development, XDG_CONFIG_HOME being ~/.config when unset
//	copilot      $COPILOT_HOME/skills/subagent-driven-development, COPILOT_HOME being ~/.copilot when unset
//	gemini       $GEMINI_CLI_HOME/.gemini/skills/subagent-driven-development, GEMINI_CLI_HOME being HOME when unset
//	pi           $PI_CODING_AGENT_DIR/skills/subagent-driven-development, PI_CODING_AGENT_DIR being ~/.pi/agent when unset
//	droid        $FACTORY_HOME_OVERRIDE/.factory/skills/subagent-driven-development, FACTORY_HOME_OVERRIDE being HOME when unset
func defaultDir(host string, env Env) (string, error) {
	if host == hostClaudeCode {
		return defaultPluginDir(env)
	}
	base, err := configBase(host, env)
	if err != nil {
		return "", err
	}
	return under(base, homes[host].skills+"/"+ship.SkillName), nil
}

// configBase is the folder host's own variable names, or its fallback
// under HOME. A relative value is refused: Codex, and OpenCode (1.18.33,
// measured: it does not ignore a relative XDG_CONFIG_HOME, as the XDG Base
// Directory specification would have it), take it relative to the
// directory they start in, so an install into it would serve that one
// directory, and an install anywhere else would not be seen while it is
// set; Copilot's, Gemini's, Pi's and Droid's are refused alike.
func configBase(host string, env Env) (string, error) {
	h := homes[host]
	base := env.Getenv(h.key)
	if base != "" && !filepath.IsAbs(base) {
		unset := "~/" + h.fallback
		if h.fallback == "" {
			unset = "HOME"
		}
		return "", fmt.Errorf("%s is %q, a relative path: %s takes it relative to the directory it starts in, so a skill installed there would serve that one directory, and one installed elsewhere would not be seen while it is set; set %s to an absolute path (or unset it, for %s), or name the skill's folder with --dir",
			h.key, base, h.cli, h.key, unset)
	}
	if base != "" {
		return base, nil
	}
	home, err := homeDir(env)
	if err != nil {
		return "", err
	}
	if h.fallback == "" {
		return home, nil
	}
	return under(home, h.fallback), nil
}

// uninstall removes what the installer put in the host's place (or
// --dir), and what it put beside it: Gemini CLI's policy file
// (policy.go), Pi's subagent extension and agent (pi.go), Droid's
// allowlist entries (droid.go).
func uninstall(o options, env Env) error {
	target := o.dir
	if target == "" {
		var err error
		if target, err = defaultDir(o.host, env); err != nil {
			return err
		}
	}
	// Every folder the uninstall will empty is checked first: one a user
	// edited refuses the whole uninstall, before anything is removed (it
	// once removed the skill, then refused the policy with "nothing was
	// changed").
	dirs := []string{target}
	switch o.host {
	case hostGemini:
		dir, err := policyDir(env)
		if err != nil {
			return err
		}
		dirs = append(dirs, dir)
	case hostPi:
		ext, agents, err := piDirs(env)
		if err != nil {
			return err
		}
		dirs = append(dirs, ext, agents)
	}
	if err := untouched(dirs, o.force, env); err != nil {
		return err
	}
	switch o.host {
	case hostDroid:
		// The entries name the folder as the kernel resolves it: read
		// before the folder goes.
		entries, err := allowlistEntries(target, env)
		if err != nil {
			return err
		}
		if _, err := readDroidSettings(env); err != nil {
			return err
		}
		if err := uninstallFrom(target, o.force, env); err != nil {
			return err
		}
		return removeAllowlist(entries, env)
	case hostPi:
		if err := uninstallFrom(target, o.force, env); err != nil {
			return err
		}
		return uninstallPi(o.force, env)
	}
	if err := uninstallFrom(target, o.force, env); err != nil || o.host != hostGemini {
		return err
	}
	dir, err := policyDir(env)
	if err != nil {
		return err
	}
	return uninstallFrom(dir, o.force, env)
}

// untouched refuses, changing nothing, when a folder of dirs holds a file
// the installer wrote that was edited or deleted since (unless force).
func untouched(dirs []string, force bool, env Env) error {
	for _, dir := range dirs {
		manifest, err := readManifest(under(dir, manifestName))
		if errors.Is(err, fs.ErrNotExist) || len(manifest) == 0 {
			continue
		}
		if err != nil {
			return err
		}
		edited, _, err := changes(dir, map[string]newFile{}, manifest)
		if err != nil {
			return err
		}
		if err := refuseChanges(dir, edited, nil, force, env); err != nil {
			return err
		}
	}
	return nil
}

// uninstallFrom removes from target every file its manifest lists, unless
// one was edited since (then nothing is removed, unless force), the
// manifest, and the directories left empty. A file it did not write
// stays, and so does its directory.
func uninstallFrom(target string, force bool, env Env) error {
	manifest := under(target, manifestName)
	if ok, err := exists(manifest); err != nil {
		return err
	} else if !ok {
		logf(env, "nothing to uninstall: %s holds no %s", target, manifestName)
		return nil
	}
	did, err := place(target, map[string]newFile{}, force, env)
	if err != nil {
		return err
	}
	if err := removeFile(manifest, env); err != nil {
		return err
	}
	if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		logf(env, "removed %d file(s) from %s; it still holds files the installer did not write", did.removed, target)
		return nil
	}
	logf(env, "uninstalled: removed %s (%d file(s))", target, did.removed)
	return nil
}
