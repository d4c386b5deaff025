package cliapp

import "runtime/debug"

// Version is stamped at build time with -ldflags "-X …/cliapp.Version=v1.2.3"
// (make build, make dist). Unstamped, the build's own record answers: see
// version.
var Version = ""

// version is what --version prints.
func version() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(Version, info, ok)
}

// versionOf is the stamped version; else the module version the go command
// recorded (v1.2.3 after `go install …@v1.2.3`, a pseudo-version for a
// build in a git checkout); else the commit of a checkout build that has no
// version (-buildvcs off for the module, on for the commit); else "dev".
func versionOf(stamped string, info *debug.BuildInfo, ok bool) string {
	if stamped != "" {
		return stamped
	}
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev != "" {
		return "devel-" + rev + dirty
	}
	return "dev"
}

// urfave/cli looks for its help flag on every run, each name through a
// regular expression, the first of the process (1% of task-brief's CPU in
// a profile of 300 runs). The commands have none (HideHelp): a sole -h or
// --help is dispatched by run and verb, so there is nothing to look for.
