package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The installer writes, renames and removes only in a folder of its own
// (the plugin's, or the skill's for Codex and OpenCode), and makes no
// links there. A symbolic link in that folder's place, or in place of a
// file or folder of the install, is the user's, and leads to something of
// theirs: writing through it would change their files, removing what is
// under it would delete them, and removing it would delete their link. So
// the installer does none of that, with or without --force (which is for
// the installer's own files the user edited), and says what they can do.
// The same goes for anything else that is not a plain file or folder: a
// named pipe would hang a read, and a Windows junction is a link too.
// Folders above the install's own (a symlinked ~/.codex, a dotfiles
// manager's ~/.config) are the user's way to it and are followed, as the
// kernel follows them.

// obstacle is a path of an install that is not a plain file or folder.
type obstacle struct{ path, what string }

// obstacles returns those of dir, and of the paths rels inside it
// (obstaclesIn), that are not a plain file or folder, dir first.
func obstacles(dir string, rels []string) []obstacle {
	if fi, err := os.Lstat(dir); err == nil && !plain(fi.Mode()) {
		return []obstacle{{dir, describe(dir, fi.Mode())}}
	}
	return obstaclesIn(dir, rels)
}

// obstaclesIn returns those of the paths rels (slash-separated, inside
// dir) and of the folders leading to them that are not a plain file or
// folder. Nothing below an obstacle is looked at. A path that cannot be
// looked at is left to the operation that follows, which then names the
// error.
func obstaclesIn(dir string, rels []string) []obstacle {
	var out []obstacle
	below := map[string]bool{} // looked at already: whether to go below it
	look := func(p string) bool {
		if ok, seen := below[p]; seen {
			return ok
		}
		fi, err := os.Lstat(p)
		ok := err == nil
		if ok && !plain(fi.Mode()) {
			out = append(out, obstacle{p, describe(p, fi.Mode())})
			ok = false
		}
		below[p] = ok
		return ok
	}
	for _, rel := range rels {
		parts := strings.Split(rel, "/")
		for i := range parts {
			if !look(under(dir, strings.Join(parts[:i+1], "/"))) {
				break
			}
		}
	}
	return out
}

func plain(m fs.FileMode) bool { return m.IsRegular() || m.Type() == fs.ModeDir }

func describe(p string, m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		if to, err := os.Readlink(p); err == nil {
			return "a symbolic link to " + to
		}
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a link of another kind (a junction, a mount point)"
}

// refuseObstacles is the refusal of a run in dir that would meet obs, and
// what the user can do; nil when obs is empty.
func refuseObstacles(dir string, obs []obstacle) error {
	if len(obs) == 0 {
		return nil
	}
	if obs[0].path == dir {
		return fmt.Errorf("%s is %s, not a folder of install-skill's: it neither writes through it nor removes it, --force or not, and nothing was changed.\n"+
			"  To install into, or uninstall from, the folder it leads to, name that folder with --dir;\n"+
			"  to install here instead, remove the link (what it leads to stays) and run again", dir, obs[0].what)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s holds what install-skill neither writes through nor removes, --force or not:", dir)
	for _, o := range obs {
		fmt.Fprintf(&b, "\n  %s: %s", o.path, o.what)
	}
	b.WriteString("\nnothing was changed; remove each (what it leads to stays) and run again")
	return errors.New(b.String())
}
