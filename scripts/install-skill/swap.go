package main

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io/fs"
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
		for _, name := range ship.DropIns {
			for _, n := range []string{name, name + origSuffix} {
				if fi, err := os.Lstat(filepath.Join(d, n)); err == nil && fi.Mode().IsRegular() {
					return d, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s holds none of %s (neither directly nor in scripts/): not a superpowers subagent-driven-development skill",
		dir, strings.Join(ship.DropIns, ", "))
}

// installed is where a command's binary goes in the scripts directory. On
// Windows it is <name>.exe: the skill text runs scripts/<name>, and cmd,
// PowerShell and Git Bash all find scripts\<name>.exe for that, while an
// extensionless file is one cmd and PowerShell cannot run (they hand it to
// the "open with" picker, the very failure of superpowers#2307).
func installed(dir, name string, env Env) string {
	return filepath.Join(dir, ship.BinaryName(name, env.GOOS))
}

// The files of one command in the scripts directory: the extensionless
// scripts/<name> the skill text runs (S), the original set aside as
// <name>.bash-orig (O) and, on Windows, the binary's scripts/<name>.exe
// (E; on Unix the binary stands at S itself). Each is told apart by what it
// holds, and the rule is that a file install-skill did not write is never
// overwritten or deleted without --force:
//
//	--replace-scripts      O present                          O absent
//	S absent               binary written                     refused: nothing to go by
//	S the installer's      binary refreshed (Windows: S goes) refused: the original is gone
//	S same as O            binary written (Windows: S goes)   —
//	S another script       refused; --force: S becomes O,     S set aside as O
//	                       the old O deleted
//	S not a script         refused; --force: S overwritten    refused: nothing to set aside
//	                       (Windows: deleted), O kept
//	E not the installer's  refused; --force: E overwritten (either way)
//
//	--restore              O present                          O absent
//	S absent, the          O put back                         refused (S absent or
//	installer's, same as O                                    not a script) or left
//	S anything else        refused; --force: O put back over  (a script: already the
//	                       it; or delete O to keep S          original)
//	E the installer's      removed (either way)
//	E anything else        refused; --force: E deleted (either way)
//
// A file is the installer's when its bytes are the binary about to be
// written, or when the record it keeps in the scripts directory (a
// manifest like the plugin's) lists its sum; an install replaced before
// there was a record is recognised by the file being an sdd-go build of
// that command (its Go build information names the command's package).

// kind is what a file in the scripts directory holds.
type kind int

const (
	isAbsent  kind = iota
	isOurs         // what install-skill wrote, or the bytes it would write
	isOrig         // the bytes of <name>.bash-orig
	isScript       // another script: a #! line
	isForeign      // anything else
)

// classify tells what path holds. orig is the .bash-orig's bytes (nil when
// there is none); data the binary about to be written (nil for --restore).
func classify(path, name string, orig, data []byte, record map[string][]string) (kind, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return isAbsent, nil
	}
	if err != nil {
		return isAbsent, err
	}
	sums, recorded := record[filepath.Base(path)]
	switch {
	case data != nil && bytes.Equal(b, data),
		slices.Contains(sums, sum(b)),
		!recorded && sddBuild(path, name):
		return isOurs, nil
	case orig != nil && bytes.Equal(b, orig):
		return isOrig, nil
	case bytes.HasPrefix(b, []byte("#!")):
		return isScript, nil
	}
	return isForeign, nil
}

// sddBuild reports whether path is a Go binary built from sdd-go's command
// name, as every copy an installer without a record made is.
func sddBuild(path, name string) bool {
	bi, err := buildinfo.ReadFile(path)
	return err == nil && bi.Path == modulePath+"/cmd/"+name
}

// conflict is a file install-skill did not write that a run would
// overwrite or delete.
type conflict struct {
	path, why string
	force     string // what --force does to it
	instead   string // the other way out, if there is one
}

// refuse stops the run when there are conflicts and no --force, naming
// each file and what --force does to it; with --force it says what it is
// doing.
func refuse(cs []conflict, force bool, env Env) error {
	if len(cs) == 0 {
		return nil
	}
	if force {
		for _, c := range cs {
			logf(env, "--force: %s: %s", c.path, c.force)
		}
		return nil
	}
	var b strings.Builder
	b.WriteString("refusing to overwrite or delete files install-skill did not write:")
	for _, c := range cs {
		fmt.Fprintf(&b, "\n  %s: %s\n    --force %s", c.path, c.why, c.force)
		if c.instead != "" {
			fmt.Fprintf(&b, ";\n    or, %s", c.instead)
		}
	}
	b.WriteString("\nnothing was changed; run again with --force to do the above")
	return errors.New(b.String())
}

// readOrig returns the bytes of a .bash-orig, nil when there is none.
func readOrig(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}

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
		bin = filepath.Join(plugin, "bin")
	}
	removeAsides(dir)
	record, err := readManifest(filepath.Join(dir, manifestName))
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
	script := filepath.Join(dir, name)
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
	script := filepath.Join(dir, s.name)
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
	err := writeBeside(s.target, s.data, 0o755, func(tmp, path string) error { return replaceFile(tmp, path, env) })
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
	removeAsides(dir)
	record, err := readManifest(filepath.Join(dir, manifestName))
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
		script := filepath.Join(dir, s.name)
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
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func planRestore(dir, name string, record map[string][]string, env Env) (restoreStep, []conflict, error) {
	s := restoreStep{name: name}
	script := filepath.Join(dir, name)
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
