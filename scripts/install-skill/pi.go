package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Pi (0.73.1) has no subagent tool of its own: its package ships one as an
// example extension, examples/extensions/subagent (a tool `subagent` that
// runs an agent of ~/.pi/agent/agents/*.md in a pi process of its own;
// the notes of internal/dev/pihost). The install for Pi puts beside the
// skill what a user needs for it:
//
//   - the extension, index.ts and agents.ts copied from the Pi the user
//     runs (piPackage), into <agent dir>/extensions/subagent/, where Pi
//     loads it at every start; a folder there that the installer did not
//     make is the user's and is left as it is;
//   - the agent every dispatch names, <agent dir>/agents/sdd-worker.md:
//     no model (Pi's default model), no tools line (Pi's default tools).
//
// Each is placed like every other file (place.go), with a manifest of its
// own in its folder (Pi reads only *.ts and *.md there), so a reinstall
// keeps a file the user edited and --uninstall removes them.

// piAgent is the agent host-pi.md has every dispatch name.
const piAgent = "sdd-worker"

// piAgentText is the agent's definition: Pi's default model and tools,
// and one line of instructions after Pi's own.
const piAgentText = `---
name: ` + piAgent + `
description: sdd-go's subagent for subagent-driven-development, with Pi's default tools and model
---

You are one subagent of a subagent-driven-development run: do what the task says, with the tools you have, and end with the answer in the form it asks for.
`

// piPackageName is the npm package of Pi's coding agent.
const piPackageName = "@mariozechner/pi-coding-agent"

// piExtension is the extension's folder in Pi's package, and its files.
var (
	piExtension      = "examples/extensions/subagent"
	piExtensionFiles = []string{"index.ts", "agents.ts"}
)

// piDirs are Pi's agent folder's subfolders the install uses.
func piDirs(env Env) (extensions, agents string, err error) {
	base, err := configBase(hostPi, env)
	if err != nil {
		return "", "", err
	}
	return under(base, "extensions/subagent"), under(base, "agents"), nil
}

// installPi installs the agent, and the subagent extension from the Pi
// the user runs.
func installPi(force bool, env Env) error {
	ext, agents, err := piDirs(env)
	if err != nil {
		return err
	}
	if _, err := place(agents, map[string]newFile{piAgent + ".md": {data: []byte(piAgentText), mode: 0o644}}, force, env); err != nil {
		return err
	}
	if ok, err := exists(under(ext, manifestName)); err != nil {
		return err
	} else if !ok {
		if ok, _ := exists(under(ext, "index.ts")); ok {
			logf(env, "%s holds a subagent extension the installer did not write: it is left as it is, and the skill dispatches with its subagent tool", ext)
			return nil
		}
	}
	pkg := piPackage(env)
	if pkg == "" {
		logf(env, "no Pi found (no pi on PATH, no $PI_PACKAGE_DIR): the skill needs Pi's subagent extension. Run the install again where pi is on PATH, or copy %s from Pi's package into %s",
			strings.Join(piExtensionFiles, " and ")+" of "+piExtension, ext)
		return nil
	}
	files := map[string]newFile{}
	for _, name := range piExtensionFiles {
		b, err := os.ReadFile(under(pkg, piExtension+"/"+name))
		if err != nil {
			return err
		}
		files[name] = newFile{data: b, mode: 0o644}
	}
	did, err := place(ext, files, force, env)
	if err != nil {
		return err
	}
	if did.written > 0 || did.removed > 0 {
		logf(env, "installed Pi's subagent extension from %s in %s, and its agent %s in %s: Pi loads them in new sessions", pkg, ext, piAgent, agents)
	}
	return nil
}

// uninstallPi removes the extension, when the installer put it there, and
// the agent.
func uninstallPi(force bool, env Env) error {
	ext, agents, err := piDirs(env)
	if err != nil {
		return err
	}
	for _, dir := range []string{ext, agents} {
		if ok, err := exists(under(dir, manifestName)); err != nil {
			return err
		} else if !ok {
			continue
		}
		if err := uninstallFrom(dir, force, env); err != nil {
			return err
		}
	}
	return nil
}

// piPackage is the folder of the Pi package the user runs, "" when none
// is found: $PI_PACKAGE_DIR, Pi's own override of it, else the pi on
// PATH, followed through its links (npm's bin link leads to the
// package's dist/cli.js), or, for npm's shim on Windows (pi.cmd), the
// package in the node_modules beside it.
func piPackage(env Env) string {
	if d := env.Getenv("PI_PACKAGE_DIR"); filepath.IsAbs(d) && isPiPackage(d) {
		return d
	}
	names := []string{"pi"}
	if env.GOOS == "windows" {
		names = []string{"pi.cmd", "pi.exe", "pi"}
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, name := range names {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err != nil || fi.IsDir() {
				continue
			}
			if real, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(real) == "cli.js" {
				if pkg := filepath.Dir(filepath.Dir(real)); isPiPackage(pkg) {
					return pkg
				}
			}
			if pkg := filepath.Join(dir, "node_modules", filepath.FromSlash(piPackageName)); isPiPackage(pkg) {
				return pkg
			}
		}
	}
	return ""
}

// isPiPackage reports whether dir is Pi's package with its subagent
// extension.
func isPiPackage(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return false
	}
	var pkg struct{ Name string }
	if json.Unmarshal(b, &pkg) != nil || pkg.Name != piPackageName {
		return false
	}
	ok, _ := exists(filepath.Join(dir, filepath.FromSlash(piExtension), "index.ts"))
	return ok
}
