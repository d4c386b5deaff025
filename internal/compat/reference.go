package compat

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// referenceSuffix is where the scripts sit in a superpowers checkout or an
// installed plugin.
const referenceSuffix = "skills/subagent-driven-development/scripts"

// howToGetReference is printed when no reference can be found.
const howToGetReference = `compat: no reference scripts found.
Set SDD_REFERENCE to the directory holding the reference sdd-workspace,
task-brief and review-package, for example:

    git clone https://github.com/obra/superpowers /tmp/superpowers
    git -C /tmp/superpowers checkout 44c9b2d
    SDD_REFERENCE=/tmp/superpowers/` + referenceSuffix + ` make compat

or install the superpowers plugin in Claude Code (searched under ~/.claude/plugins/).`

// FindReference returns the reference scripts directory: $SDD_REFERENCE when
// set (it must hold all three), else the newest installed superpowers plugin
// under home/.claude/plugins that has them (newest by the modification time
// of its sdd-workspace; ties go to the lexically greatest path, which for
// versioned cache directories is usually the newest version).
func FindReference(getenv func(string) string, home string) (string, error) {
	if dir := getenv("SDD_REFERENCE"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", &ErrUsage{Msg: err.Error()}
		}
		if err := checkToolDir(abs); err != nil {
			return "", &ErrUsage{Msg: fmt.Sprintf("compat: SDD_REFERENCE=%s does not hold the three reference scripts (%v)", dir, err)}
		}
		return abs, nil
	}
	var best string
	var bestTime int64
	plugins := filepath.Join(home, ".claude", "plugins")
	_ = filepath.WalkDir(plugins, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if !strings.HasSuffix(filepath.ToSlash(p), "/"+referenceSuffix) {
			return nil
		}
		if checkToolDir(p) != nil {
			return fs.SkipDir
		}
		fi, err := os.Stat(filepath.Join(p, "sdd-workspace"))
		if err != nil {
			return fs.SkipDir
		}
		t := fi.ModTime().UnixNano()
		if best == "" || t > bestTime || t == bestTime && p > best {
			best, bestTime = p, t
		}
		return fs.SkipDir
	})
	if best == "" {
		return "", &ErrUsage{Msg: howToGetReference}
	}
	return best, nil
}

// BuildOurs builds the three commands into dir with the go tool, from the
// module in the current directory.
func BuildOurs(ctx context.Context, goTool, dir string) error {
	pkgs := make([]string, len(Commands))
	for i, c := range Commands {
		pkgs[i] = "./cmd/" + c
	}
	cmd := exec.CommandContext(ctx, goTool, append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("compat: building our binaries (run from the sdd-go module root, or pass -ours DIR): %v\n%s", err, out)
	}
	return nil
}
