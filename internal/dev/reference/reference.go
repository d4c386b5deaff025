// Package reference finds the reference bash scripts (obra/superpowers'
// subagent-driven-development scripts) that the compatibility checker and
// the benchmarks run beside ours. Neither the scripts nor any of their code
// are part of this project: a maintainer points at a copy.
package reference

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Suffix is where the scripts sit in a superpowers checkout or an installed
// plugin.
const Suffix = "skills/subagent-driven-development/scripts"

// ErrNotFound says no reference was found: SDD_REFERENCE is unset and no
// installed plugin holds the scripts.
var ErrNotFound = errors.New("no reference scripts found")

// HowToGet tells a maintainer how to get the exact reference.
const HowToGet = `Set SDD_REFERENCE to the directory holding the reference sdd-workspace,
task-brief and review-package, for example:

    git clone https://github.com/obra/superpowers /tmp/superpowers
    git -C /tmp/superpowers checkout 44c9b2d
    SDD_REFERENCE=/tmp/superpowers/` + Suffix + `

or install the superpowers plugin in Claude Code (searched under ~/.claude/plugins/).`

// Find returns the directory of the reference scripts: $SDD_REFERENCE when
// set (it must hold all three, executable), else the newest superpowers
// plugin under home/.claude/plugins that holds them (newest by the
// modification time of its sdd-workspace; ties go to the lexically
// greatest path, which for versioned cache directories is usually the
// newest version), else ErrNotFound.
func Find(getenv func(string) string, home string) (string, error) {
	if dir := getenv("SDD_REFERENCE"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if err := check(abs); err != nil {
			return "", fmt.Errorf("SDD_REFERENCE=%s does not hold the three reference scripts: %w", dir, err)
		}
		return abs, nil
	}
	var best string
	var bestTime int64
	if home != "" {
		_ = filepath.WalkDir(filepath.Join(home, ".claude", "plugins"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || !strings.HasSuffix(filepath.ToSlash(p), "/"+Suffix) {
				return nil
			}
			if check(p) == nil {
				if fi, err := os.Stat(filepath.Join(p, ship.DropIns[0])); err == nil {
					t := fi.ModTime().UnixNano()
					if best == "" || t > bestTime || t == bestTime && p > best {
						best, bestTime = p, t
					}
				}
			}
			return fs.SkipDir
		})
	}
	if best == "" {
		return "", ErrNotFound
	}
	return best, nil
}

// check reports why dir does not hold the three scripts, executable.
func check(dir string) error {
	for _, c := range ship.DropIns {
		fi, err := os.Stat(filepath.Join(dir, c))
		if err != nil {
			return err
		}
		if fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", filepath.Join(dir, c))
		}
	}
	return nil
}
