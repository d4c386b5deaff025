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
// A relative CODEX_HOME is refused: Codex takes it relative to the
// directory it starts in (and stops where it does not exist there), so an
// install into it would serve one directory. A relative XDG_CONFIG_HOME
// is ignored, as the XDG Base Directory specification says; OpenCode
// (1.18) does not ignore it but takes it as Codex does, which the message
// says.
func defaultDir(host string, env Env) (string, error) {
	if host == hostClaudeCode {
		return defaultPluginDir(env)
	}
	key, fallback := "CODEX_HOME", ".codex"
	if host == hostOpenCode {
		key, fallback = "XDG_CONFIG_HOME", ".config"
	}
	base := env.Getenv(key)
	relative := base != "" && !filepath.IsAbs(base)
	if relative && host == hostCodex {
		return "", fmt.Errorf("%s is %q, a relative path: Codex takes it relative to the directory it starts in, so a skill installed there would serve that one directory; set %s to an absolute path (or unset it, for ~/.codex), or name the skill's folder with --dir",
			key, base, key)
	}
	if base == "" || relative {
		home, err := homeDir(env)
		if err != nil {
			return "", err
		}
		if relative {
			logf(env, "%s is %q, a relative path, which the XDG Base Directory specification says to ignore: using %s. OpenCode itself takes it relative to the directory it starts in, and while it is set looks for skills in <that directory>/%s/opencode/skills: make it absolute, or unset it",
				key, base, under(home, fallback), base)
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
