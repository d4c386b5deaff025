package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// origSuffix marks a superpowers bash script set aside by --replace-scripts.
const origSuffix = ".bash-orig"

// scriptsDir accepts the superpowers skill directory or its scripts/.
func scriptsDir(dir string) (string, error) {
	for _, d := range []string{filepath.Join(dir, "scripts"), dir} {
		for _, name := range ship.Commands {
			for _, n := range []string{name, name + origSuffix} {
				if fi, err := os.Lstat(filepath.Join(d, n)); err == nil && fi.Mode().IsRegular() {
					return d, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s holds none of %s (neither directly nor in scripts/): not a superpowers subagent-driven-development skill",
		dir, strings.Join(ship.Commands, ", "))
}

func isScript(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return n == 2 && string(head) == "#!", nil
}

// installed is where a command's binary goes in the scripts directory. On
// Windows it is <name>.exe: the skill text runs scripts/<name>, and cmd,
// PowerShell and Git Bash all find scripts\<name>.exe for that, while an
// extensionless file is one cmd and PowerShell cannot run (they hand it to
// the "open with" picker, the very failure of superpowers#2307).
func installed(dir, name string, env Env) string {
	return filepath.Join(dir, ship.BinaryName(name, env.GOOS))
}

// swapStep is what --replace-scripts does for one command.
type swapStep struct {
	name, binPath string
	target        string // where the binary goes
	data          []byte
	setAside      bool // the bash script is still in place
	stale         bool // an extensionless binary copy an older installer left on Windows
}

// replaceScripts puts the binaries in place of the superpowers scripts,
// setting the scripts aside. The binaries come from --bin, else from the
// installed plugin's bin/.
func replaceScripts(o options, env Env) error {
	dir, err := scriptsDir(o.replace)
	if err != nil {
		return err
	}
	bin := o.bin
	if bin == "" {
		plugin, err := defaultPluginDir(env)
		if err != nil {
			return fmt.Errorf("%v; or name the binaries' directory with --bin", err)
		}
		bin = filepath.Join(plugin, "bin")
	}
	removeAsides(dir)
	var steps []swapStep
	// Check everything first, so a refusal leaves the directory as it was.
	for _, name := range ship.Commands {
		s, err := planSwap(dir, bin, name, env)
		if err != nil {
			return err
		}
		steps = append(steps, s)
	}
	for _, s := range steps {
		if err := s.run(dir, env); err != nil {
			return err
		}
	}
	return nil
}

func planSwap(dir, bin, name string, env Env) (swapStep, error) {
	s := swapStep{name: name, binPath: installed(bin, name, env), target: installed(dir, name, env)}
	var err error
	if s.data, err = os.ReadFile(s.binPath); err != nil {
		return s, fmt.Errorf("no %s binary: %v (install the plugin with go run ./scripts/install-skill, or pass --bin DIR)", name, err)
	}
	script := filepath.Join(dir, name)
	hasOrig, err := exists(script + origSuffix)
	if err != nil {
		return s, err
	}
	hasScript, err := exists(script)
	if err != nil {
		return s, err
	}
	switch {
	case hasOrig && hasScript && s.target != script:
		// Replaced before by an installer that copied the binary to the
		// extensionless name, which no Windows shell runs.
		ok, err := isScript(script)
		if err != nil {
			return s, err
		}
		if ok {
			return s, fmt.Errorf("both %s and %s exist: remove the one that is not the original script", script, name+origSuffix)
		}
		s.stale = true
	case hasOrig:
		// Replaced before: only the binary may need refreshing.
	case !hasScript:
		return s, fmt.Errorf("%s is missing and there is no %s to go by", script, name+origSuffix)
	default:
		ok, err := isScript(script)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, fmt.Errorf("%s is not a script (no #! line) and there is no %s: refusing to set it aside", script, name+origSuffix)
		}
		s.setAside = true
	}
	return s, nil
}

func (s swapStep) run(dir string, env Env) error {
	script := filepath.Join(dir, s.name)
	if s.setAside {
		if err := os.Rename(script, script+origSuffix); err != nil {
			return err
		}
	}
	if s.stale {
		if err := removeFile(script, env); err != nil {
			return err
		}
	}
	if !s.setAside {
		if old, err := os.ReadFile(s.target); err == nil && bytes.Equal(old, s.data) {
			logf(env, "%s: already replaced, up to date", s.target)
			return nil
		}
	}
	err := writeBeside(s.target, s.data, 0o755, func(tmp, path string) error { return replaceFile(tmp, path, env) })
	if err != nil {
		return err
	}
	if s.setAside {
		logf(env, "%s: replaced by %s (original kept as %s)", s.target, s.binPath, s.name+origSuffix)
	} else {
		logf(env, "%s: already replaced, binary updated from %s", s.target, s.binPath)
	}
	return nil
}

// restoreScripts puts back the scripts --replace-scripts set aside and
// removes the binaries that stood in for them.
func restoreScripts(target string, env Env) error {
	dir, err := scriptsDir(target)
	if err != nil {
		return err
	}
	removeAsides(dir)
	var todo []string
	for _, name := range ship.Commands {
		script := filepath.Join(dir, name)
		hasOrig, err := exists(script + origSuffix)
		if err != nil {
			return err
		}
		if hasOrig {
			todo = append(todo, name)
			continue
		}
		hasScript, err := exists(script)
		if err != nil {
			return err
		}
		if !hasScript {
			return fmt.Errorf("%s is missing and there is no %s to restore it from", script, name+origSuffix)
		}
		if ok, err := isScript(script); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s is not the bash script and there is no %s to restore it from", script, name+origSuffix)
		}
	}
	for _, name := range ship.Commands {
		script := filepath.Join(dir, name)
		if !slices.Contains(todo, name) {
			logf(env, "%s: already the original script", script)
			continue
		}
		// The binary goes first: while it is there, a Windows shell runs
		// it in preference to the script.
		if exe := installed(dir, name, env); exe != script {
			if err := removeFile(exe, env); err != nil {
				return err
			}
		}
		if err := os.Rename(script+origSuffix, script); err != nil {
			return err
		}
		logf(env, "%s: original script restored", script)
	}
	return nil
}
