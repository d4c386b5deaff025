package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// pathStyle is what differs between the file systems the binaries run on.
// The functions below take it as a value, so the Windows rules are tested
// on every OS; host is the style of the running OS.
type pathStyle struct {
	sep        byte   // the separator the OS prints
	separators string // every byte that separates path elements
	fold       bool   // names compare case-insensitively
	drives     bool   // paths start with a drive letter
}

var (
	unixStyle    = pathStyle{sep: '/', separators: "/"}
	darwinStyle  = pathStyle{sep: '/', separators: "/", fold: true}
	windowsStyle = pathStyle{sep: '\\', separators: `\/`, fold: true, drives: true}
)

// host is the path style of the OS this binary was built for.
var host = styleOf(runtime.GOOS)

func styleOf(goos string) pathStyle {
	switch goos {
	case "windows":
		return windowsStyle
	case "darwin", "ios":
		return darwinStyle
	}
	return unixStyle
}

// slug is the workspace name of plan: its last path element (trailing
// separators dropped, as POSIX basename does) with one trailing ".md"
// removed when something is left, then trailing newlines dropped as the
// shell's command substitution drops them. ok is false for a name no
// directory can have ("", "." or "..").
func (s pathStyle) slug(plan string) (slug string, ok bool) {
	slug = strings.TrimRight(s.basename(plan, ".md"), "\n")
	return slug, slug != "" && slug != "." && slug != ".."
}

// basename follows POSIX basename(1), with this style's separators: "/"
// stays "/", and suffix is removed unless it is the whole name.
func (s pathStyle) basename(p, suffix string) string {
	if p == "" {
		return ""
	}
	t := strings.TrimRight(p, s.separators)
	if t == "" {
		return p[:1]
	}
	if i := strings.LastIndexAny(t, s.separators); i >= 0 {
		t = t[i+1:]
	}
	if s.drives && len(t) >= 2 && t[1] == ':' && isLetter(t[0]) {
		t = t[2:] // "C:plan.md" names plan.md on drive C
	}
	if suffix != "" && t != suffix && strings.HasSuffix(t, suffix) {
		t = t[:len(t)-len(suffix)]
	}
	return t
}

// nativeRoot turns the top level git printed into this OS's spelling:
// on Windows git prints C:/Users/me/repo, and a git from MSYS or Cygwin
// may print /c/Users/me/repo or /home/me/repo, which Windows programs
// cannot open. A mount path is placed by the working directory git ran in
// (see nativeRootIn).
func (s pathStyle) nativeRoot(root string) string {
	if !s.drives || !isMountPath(root) {
		return s.nativeRootIn(root, "", nil)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return s.nativeRootIn(root, "", nil)
	}
	if len(s.mountCandidates(root, cwd)) == 0 {
		// The working directory may have been entered through a junction
		// or a symlink; git saw the physical one.
		if phys, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = phys
		}
	}
	return s.nativeRootIn(root, cwd, hasDotGit)
}

// hasDotGit reports whether dir holds a .git (a directory, or the file of
// a linked worktree or submodule).
func hasDotGit(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// nativeRootIn is nativeRoot for a git run in cwd. A drive path (/c/…,
// /cygdrive/c/…, with or without more) gets its drive letter; any other
// path starting with a single "/" is an MSYS or Cygwin mount (/home/me/repo,
// /tmp/x, "/" for the installation's root) and becomes the ancestor of cwd
// that ends in the same elements: git ran in cwd, so its top level is an
// ancestor of it. When several ancestors fit (always so for "/"), the
// nearest for which isTop is true wins, else the nearest. When none fits,
// the path keeps its elements with backslashes, and the failure that
// follows names it.
func (s pathStyle) nativeRootIn(root, cwd string, isTop func(dir string) bool) string {
	if !s.drives {
		return root
	}
	if letter, rest, ok := msysDrive(root); ok {
		if rest == "" {
			rest = "/" // the drive's root, not its current directory
		}
		root = string(letter&^0x20) + ":" + rest
	} else if isMountPath(root) {
		c := s.mountCandidates(root, cwd)
		for _, dir := range c {
			if len(c) > 1 && isTop != nil && isTop(dir) {
				return dir
			}
		}
		if len(c) > 0 {
			return c[0]
		}
	}
	return strings.ReplaceAll(root, "/", `\`)
}

// msysDrive splits an MSYS (/c/…) or Cygwin (/cygdrive/c/…) drive path
// into its letter and the rest ("" or "/…").
func msysDrive(root string) (letter byte, rest string, ok bool) {
	p, _ := strings.CutPrefix(root, "/cygdrive")
	if len(p) >= 2 && p[0] == '/' && isLetter(p[1]) && (len(p) == 2 || p[2] == '/') {
		rest = p[2:]
		if rest == "/" {
			rest = ""
		}
		return p[1], rest, true
	}
	return 0, "", false
}

// isMountPath reports whether a top level is in MSYS's or Cygwin's own
// name space: one leading slash (two make a UNC path) and no drive.
func isMountPath(root string) bool {
	if !strings.HasPrefix(root, "/") || strings.HasPrefix(root, "//") {
		return false
	}
	_, _, drive := msysDrive(root)
	return !drive
}

// mountCandidates lists the ancestors of cwd (cwd included) whose last
// elements equal those of the mount path root, compared as Windows
// compares names, nearest first: git looks for the top level upwards from
// the working directory, so the nearest is the one it found.
func (s pathStyle) mountCandidates(root, cwd string) []string {
	want := splitElems(root, s.separators)
	vol := volumeLen(cwd)
	have := splitElems(cwd[vol:], s.separators)
	var out []string
	for end := len(have); end >= len(want); end-- {
		match := true
		for i := range want {
			if !strings.EqualFold(have[end-len(want)+i], want[i]) {
				match = false
				break
			}
		}
		if match {
			out = append(out, cwd[:vol]+strings.Join(have[:end], string(s.sep)))
		}
	}
	return out
}

// splitElems splits p at any of seps, dropping empty elements.
func splitElems(p, seps string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune(seps, r) })
}

// volumeLen is the length of the volume at the start of a Windows path
// with its separator: "C:\" or "\\\\server\\share\\".
func volumeLen(p string) int {
	if len(p) >= 2 && isLetter(p[0]) && p[1] == ':' {
		if len(p) >= 3 && (p[2] == '\\' || p[2] == '/') {
			return 3
		}
		return 2
	}
	if len(p) >= 2 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/') {
		// \\server\share\: the two elements after the leading separators.
		n, i := 0, 2
		for ; i < len(p); i++ {
			if p[i] == '\\' || p[i] == '/' {
				if n++; n == 2 {
					return i + 1
				}
			}
		}
		return len(p)
	}
	return 0
}

// join appends elements to root with the OS separator and no cleaning, so
// the result starts with exactly what git printed, as the script's
// "$root/.superpowers/sdd" does. On Windows a root that is a drive's root
// (C:\) already ends in the separator and does not get a second one.
func (s pathStyle) join(root string, elem ...string) string {
	var b strings.Builder
	native := s.nativeRoot(root)
	b.WriteString(native)
	for i, e := range elem {
		if i > 0 || !s.drives || !strings.HasSuffix(native, string(s.sep)) {
			b.WriteByte(s.sep)
		}
		b.WriteString(e)
	}
	return b.String()
}

// same compares two plan identities the way the file system compares names.
func (s pathStyle) same(a, b string) bool {
	if s.fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
