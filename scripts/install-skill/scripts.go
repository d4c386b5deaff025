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
	for _, d := range []string{under(dir, "scripts"), dir} {
		for _, name := range ship.DropIns {
			for _, n := range []string{name, name + origSuffix} {
				if fi, err := os.Lstat(under(d, n)); err == nil && fi.Mode().IsRegular() {
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
	return under(dir, ship.BinaryName(name, env.GOOS))
}

// prepareScripts refuses a scripts directory where a file the swap would
// write, rename or remove is a link (links.go), --force or not, and
// removes what earlier runs left there.
func prepareScripts(dir string, env Env) error {
	names := []string{manifestName}
	for _, name := range ship.DropIns {
		names = append(names, name, name+origSuffix)
		if exe := ship.BinaryName(name, env.GOOS); exe != name {
			names = append(names, exe)
		}
	}
	if err := refuseObstacles(dir, obstaclesIn(dir, names)); err != nil {
		return err
	}
	sweep(dir, names)
	return nil
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
