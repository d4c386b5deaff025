package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ReferenceSuffix is where the scripts sit in a superpowers checkout or an
// installed plugin.
const ReferenceSuffix = "skills/subagent-driven-development/scripts"

// Commands are the three tools, as named by both implementations.
var Commands = []string{"sdd-workspace", "task-brief", "review-package"}

// FindReference returns the directory of the reference scripts: $SDD_REFERENCE
// when set (it must hold all three), else the most recently modified
// superpowers plugin under home/.claude/plugins holding them, else "" (no
// reference: the bench reports our numbers only).
func FindReference(getenv func(string) string, home string) (string, error) {
	if dir := getenv("SDD_REFERENCE"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if err := hasCommands(abs); err != nil {
			return "", fmt.Errorf("SDD_REFERENCE=%s: %w", dir, err)
		}
		return abs, nil
	}
	if home == "" {
		return "", nil
	}
	var best string
	var bestTime int64
	_ = filepath.WalkDir(filepath.Join(home, ".claude", "plugins"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || !strings.HasSuffix(filepath.ToSlash(p), "/"+ReferenceSuffix) {
			return nil
		}
		if hasCommands(p) == nil {
			fi, err := os.Stat(filepath.Join(p, Commands[0]))
			if err == nil && (best == "" || fi.ModTime().UnixNano() > bestTime) {
				best, bestTime = p, fi.ModTime().UnixNano()
			}
		}
		return fs.SkipDir
	})
	return best, nil
}

func hasCommands(dir string) error {
	for _, c := range Commands {
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
