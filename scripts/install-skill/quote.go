package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// quotable refuses a skill folder whose path holds a single quote, for
// every host but Claude Code: their files of the skill have the model run
// the commands by their paths in single quotes ('<skill dir>/bin/…'),
// which a ' in the path would end. Each command would then be a syntax
// error, and Gemini CLI's rule, allowing a prefix of that text, would let
// through a command whose path reads on into another folder
// (HOME=/tmp/a'b: '/tmp/a'b/… runs /tmp/ab/…). The path is checked as
// given, absolute, and as the kernel resolves it (what the hosts show the
// model), as far as it exists.
func quotable(host, target string, env Env) error {
	if host == hostClaudeCode {
		return nil
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Dir, abs)
	}
	seen := []string{target, abs}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			seen = append(seen, real)
			break
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	for _, p := range seen {
		if strings.Contains(p, "'") {
			key := "--dir"
			if h, ok := homes[host]; ok && h.key != "" {
				key = h.key + " (or HOME), or --dir"
			}
			return fmt.Errorf("%s holds a ' (a single quote): %s runs the skill's commands by their paths in single quotes, which a ' would end (a syntax error, or a command of another folder); nothing was changed: install the skill in a folder whose path holds none, with %s", p, host, key)
		}
	}
	return nil
}
