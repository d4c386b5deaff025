package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// swapStep is what --replace-scripts does for one command.
type swapStep struct {
	name, binPath string
	target        string // where the binary goes
	data          []byte
	setAside      bool // S is renamed to O (over an old O only under --force)
	dropScript    bool // S goes (Windows, where the binary is E)
	refresh       bool // the target held the installer's binary already
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
		bin = under(plugin, "bin")
	}
	if err := prepareScripts(dir, env); err != nil {
		return err
	}
	record, err := readManifest(under(dir, manifestName))
	if err != nil {
		return err
	}
	var steps []swapStep
	var cs []conflict
	// Check everything first, so a refusal leaves the directory as it was.
	for _, name := range ship.DropIns {
		s, c, err := planSwap(dir, bin, name, record, env)
		if err != nil {
			return err
		}
		steps, cs = append(steps, s), append(cs, c...)
	}
	if err := refuse(cs, o.force, env); err != nil {
		return err
	}
	// The record lists the old and the new sums until the end, so a run
	// cut short leaves binaries the next run still knows as its own.
	interim, final := map[string][]string{}, map[string][]string{}
	for rel, sums := range record {
		interim[rel] = slices.Clone(sums)
	}
	for _, s := range steps {
		rel, sm := filepath.Base(s.target), sum(s.data)
		if !slices.Contains(interim[rel], sm) {
			interim[rel] = append(interim[rel], sm)
		}
		final[rel] = []string{sm}
	}
	if err := writeManifest(dir, interim); err != nil {
		return err
	}
	for _, s := range steps {
		if err := s.run(dir, env); err != nil {
			return err
		}
	}
	return writeManifest(dir, final)
}

func planSwap(dir, bin, name string, record map[string][]string, env Env) (swapStep, []conflict, error) {
	s := swapStep{name: name, binPath: installed(bin, name, env), target: installed(dir, name, env)}
	var err error
	if s.data, err = os.ReadFile(s.binPath); err != nil {
		return s, nil, fmt.Errorf("no %s binary: %v (install the plugin with go run ./scripts/install-skill, or pass --bin DIR)", name, err)
	}
	script := under(dir, name)
	origName := name + origSuffix
	orig, err := readOrig(script + origSuffix)
	if err != nil {
		return s, nil, err
	}
	sk, err := classify(script, name, orig, s.data, record)
	if err != nil {
		return s, nil, err
	}
	var cs []conflict
	onWindows := s.target != script
	if orig != nil {
		switch sk {
		case isOurs, isOrig:
			s.dropScript = onWindows
			s.refresh = sk == isOurs
		case isScript:
			cs = append(cs, conflict{script,
				fmt.Sprintf("not written by install-skill, and not the original kept as %s (a newer script, from a superpowers update?)", origName),
				fmt.Sprintf("sets it aside as %s in place of the one there (the old original is deleted) and puts the binary in its place", origName),
				fmt.Sprintf("to keep the old original instead, delete %s and run again", script)})
			s.setAside = true
		case isForeign:
			what := "overwrites it with the binary"
			if onWindows {
				what = "deletes it"
				s.dropScript = true
			}
			cs = append(cs, conflict{script,
				fmt.Sprintf("not written by install-skill, and not a script or the original kept as %s", origName),
				what + " (" + origName + " is kept)", ""})
		}
	} else {
		switch sk {
		case isAbsent:
			return s, nil, fmt.Errorf("%s is missing and there is no %s to go by", script, origName)
		case isOurs:
			return s, nil, fmt.Errorf("%s holds the binary install-skill put there, but %s, the original script, is gone: put the original script back as %s and run again", script, origName, script)
		case isForeign:
			return s, nil, fmt.Errorf("%s is not a script (no #! line) and there is no %s: refusing to set it aside; put the original script back as %s and run again", script, origName, script)
		}
		s.setAside = true
	}
	if onWindows {
		ek, err := classify(s.target, name, orig, s.data, record)
		if err != nil {
			return s, nil, err
		}
		switch ek {
		case isScript, isForeign:
			cs = append(cs, conflict{s.target, "not written by install-skill", "overwrites it with the binary", ""})
		case isOurs:
			s.refresh = !s.setAside
		}
	}
	return s, cs, nil
}

func (s swapStep) run(dir string, env Env) error {
	script := under(dir, s.name)
	if s.setAside {
		if err := os.Rename(script, script+origSuffix); err != nil {
			return err
		}
	}
	if s.dropScript {
		if err := removeFile(script, env); err != nil {
			return err
		}
	}
	if old, err := os.ReadFile(s.target); err == nil && bytes.Equal(old, s.data) {
		logf(env, "%s: already replaced, up to date", s.target)
		return nil
	}
	err := writeBeside(dir, ship.BinaryName(s.name, env.GOOS), s.data, 0o755, func(tmp, path string) error { return replaceFile(tmp, path, env) })
	if err != nil {
		return err
	}
	if s.refresh {
		logf(env, "%s: already replaced, binary updated from %s", s.target, s.binPath)
	} else {
		logf(env, "%s: replaced by %s (original kept as %s)", s.target, s.binPath, s.name+origSuffix)
	}
	return nil
}
