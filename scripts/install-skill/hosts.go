package main

import (
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
func defaultDir(host string, env Env) (string, error) {
	if host == hostClaudeCode {
		return defaultPluginDir(env)
	}
	key, under := "CODEX_HOME", ".codex"
	if host == hostOpenCode {
		key, under = "XDG_CONFIG_HOME", ".config"
	}
	base := env.Getenv(key)
	if base == "" {
		home, err := homeDir(env)
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, under)
	}
	if host == hostOpenCode {
		base = filepath.Join(base, "opencode")
	}
	return filepath.Join(base, "skills", ship.SkillName), nil
}
