// Package gitenv builds the environment in which the tests, the benchmarks
// and the demo-like scenarios run git: hermetic, so no result depends on
// the machine's or the user's git configuration.
package gitenv

import (
	"os"
	"path/filepath"
	"strings"
)

// Hermetic is the caller's environment minus every GIT_* variable and the
// home directories, with home as HOME (and USERPROFILE, for Windows), no
// system or global configuration beyond home's, a fixed identity and a
// fixed clock, so commits made in it have the same SHAs on every machine.
// PATH and the locale are kept: git and the tools run as they do for the
// user.
func Hermetic(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(k), "GIT_") || k == "HOME" || k == "USERPROFILE" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"USERPROFILE="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=SDD Test", "GIT_AUTHOR_EMAIL=sdd@example.com",
		"GIT_COMMITTER_NAME=SDD Test", "GIT_COMMITTER_EMAIL=sdd@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	)
}
