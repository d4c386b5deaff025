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
// plugin, whose bin/ it puts on the PATH of its tools; Codex CLI and
// OpenCode load a skill from a folder of their skills directory and put no
// plugin's bin/ on PATH, so they get the skill as a folder with the
// binaries in its bin/, which their file of the skill
// (skill/host-<host>.md) has the model run by path.
const (
	hostClaudeCode = "claude-code"
	hostCodex      = "codex"
	hostOpenCode   = "opencode"
)

var hosts = []string{hostClaudeCode, hostCodex, hostOpenCode}

// defaultDir is where the install for host goes without --dir:
//
//	claude-code  ~/.claude/skills/sdd-go (defaultPluginDir)
//	codex        $CODEX_HOME/skills/subagent-driven-development, CODEX_HOME being ~/.codex when unset
//	opencode     $XDG_CONFIG_HOME/opencode/skills/subagent-driven-development, XDG_CONFIG_HOME being ~/.config when unset
//
// A relative CODEX_HOME or XDG_CONFIG_HOME is refused: Codex, and
// OpenCode (1.18.33, measured: it does not ignore a relative value, as
// the XDG Base Directory specification would have it), take it relative
// to the directory they start in, so an install into it would serve that
// one directory, and an install anywhere else would not be seen while it
// is set.
func defaultDir(host string, env Env) (string, error) {
	if host == hostClaudeCode {
		return defaultPluginDir(env)
	}
	key, fallback, cli := "CODEX_HOME", ".codex", "Codex"
	if host == hostOpenCode {
		key, fallback, cli = "XDG_CONFIG_HOME", ".config", "OpenCode"
	}
	base := env.Getenv(key)
	if base != "" && !filepath.IsAbs(base) {
		return "", fmt.Errorf("%s is %q, a relative path: %s takes it relative to the directory it starts in, so a skill installed there would serve that one directory, and one installed elsewhere would not be seen while it is set; set %s to an absolute path (or unset it, for ~/%s), or name the skill's folder with --dir",
			key, base, cli, key, fallback)
	}
	if base == "" {
		home, err := homeDir(env)
		if err != nil {
			return "", err
		}
		base = under(home, fallback)
	}
	if host == hostOpenCode {
		base = under(base, "opencode")
	}
	return under(base, "skills/"+ship.SkillName), nil
}

// uninstall removes what the installer put in the host's place (or --dir):
// every file its manifest lists, unless one was edited since (then nothing
// is removed, unless --force), the manifest, and the directories left
// empty. A file it did not write stays, and so does its directory.
func uninstall(o options, env Env) error {
	target := o.dir
	if target == "" {
		var err error
		if target, err = defaultDir(o.host, env); err != nil {
			return err
		}
	}
	manifest := under(target, manifestName)
	if ok, err := exists(manifest); err != nil {
		return err
	} else if !ok {
		logf(env, "nothing to uninstall: %s holds no %s", target, manifestName)
		return nil
	}
	did, err := place(target, map[string]newFile{}, o.force, env)
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
