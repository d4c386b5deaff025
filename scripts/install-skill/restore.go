package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// restoreStep is what --restore does for one command.
type restoreStep struct {
	name      string
	removeExe bool // E goes (Windows)
	putBack   bool // O is renamed to S
}

// restoreScripts puts back the scripts --replace-scripts set aside and
// removes the binaries that stood in for them, and the record.
func restoreScripts(o options, env Env) error {
	dir, err := scriptsDir(o.restore)
	if err != nil {
		return err
	}
	if err := prepareScripts(dir, env); err != nil {
		return err
	}
	record, err := readManifest(under(dir, manifestName))
	if err != nil {
		return err
	}
	var steps []restoreStep
	var cs []conflict
	for _, name := range ship.DropIns {
		s, c, err := planRestore(dir, name, record, env)
		if err != nil {
			return err
		}
		steps, cs = append(steps, s), append(cs, c...)
	}
	if err := refuse(cs, o.force, env); err != nil {
		return err
	}
	for _, s := range steps {
		script := under(dir, s.name)
		// The binary goes first: while it is there, a Windows shell runs
		// it in preference to the script.
		if s.removeExe {
			if err := removeFile(installed(dir, s.name, env), env); err != nil {
				return err
			}
		}
		if !s.putBack {
			logf(env, "%s: already the original script", script)
			continue
		}
		if err := os.Rename(script+origSuffix, script); err != nil {
			return err
		}
		logf(env, "%s: original script restored", script)
	}
	if err := os.Remove(under(dir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func planRestore(dir, name string, record map[string][]string, env Env) (restoreStep, []conflict, error) {
	s := restoreStep{name: name}
	script := under(dir, name)
	origName := name + origSuffix
	orig, err := readOrig(script + origSuffix)
	if err != nil {
		return s, nil, err
	}
	var cs []conflict
	if exe := installed(dir, name, env); exe != script {
		ek, err := classify(exe, name, orig, nil, record)
		if err != nil {
			return s, nil, err
		}
		switch ek {
		case isOurs, isOrig:
			s.removeExe = true
		case isScript, isForeign:
			cs = append(cs, conflict{exe, "not written by install-skill", "deletes it", ""})
			s.removeExe = true
		}
	}
	sk, err := classify(script, name, orig, nil, record)
	if err != nil {
		return s, nil, err
	}
	if orig != nil {
		s.putBack = true
		if sk == isScript || sk == isForeign {
			hint := ""
			if sk == isScript {
				hint = " (a newer script, from a superpowers update?)"
			}
			cs = append(cs, conflict{script,
				fmt.Sprintf("not written by install-skill, and not the original kept as %s%s", origName, hint),
				fmt.Sprintf("puts %s back over it (the file there now is deleted)", origName),
				fmt.Sprintf("to keep it instead, delete %s and run again", script+origSuffix)})
		}
		return s, cs, nil
	}
	switch sk {
	case isAbsent:
		return s, nil, fmt.Errorf("%s is missing and there is no %s to restore it from", script, origName)
	case isOurs, isForeign:
		return s, nil, fmt.Errorf("%s is not the bash script and there is no %s to restore it from", script, origName)
	}
	return s, cs, nil
}
