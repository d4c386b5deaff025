package workspace

import (
	"runtime"
	"strings"

	"github.com/sdd-go/sdd-go/internal/exit"
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

// rootArgs are the arguments of the one git call that finds the
// repository root. On Windows git is asked for the way up from the working
// directory too (--show-cdup): an MSYS or Cygwin git prints a repository
// inside one of its mounts in its own name space (/tmp/x, /home/me/repo),
// which names no Windows directory, and the way up is what places it. On
// Unix the top level is a path as it is, and git gets exactly the
// reference's arguments, so what git prints about its own call (GIT_TRACE)
// is the same too.
func (s pathStyle) rootArgs() []string {
	if s.drives {
		return []string{"rev-parse", "--show-toplevel", "--show-cdup"}
	}
	return []string{"rev-parse", "--show-toplevel"}
}

// root is the repository root as this OS spells it, from what git printed
// for rootArgs, run in the working directory getwd returns. Trailing
// newlines of the top level are dropped, as the shell's $(…) drops them.
//
// On Windows a drive path (C:/…, /c/…, /cygdrive/c/…) and a UNC path get
// their native spelling. Any other path starting with one "/" is an MSYS
// or Cygwin mount path: the root is the working directory taken up as many
// steps as the way up has "../", and it must end in the top level's last
// name. Otherwise git walked up through something Windows does not see (a
// mount inside the repository, a symlink), or the repository is a mounted
// directory with another Windows name: the root cannot be placed, and
// that is an error before anything is made, never a guess that might lie
// outside the repository.
func (s pathStyle) root(out string, getwd func() (string, error)) (string, error) {
	if !s.drives {
		return strings.TrimRight(out, "\n"), nil
	}
	// The way up is the last line: it never holds a newline, while a top
	// level may.
	body := strings.TrimSuffix(out, "\n")
	top, up, ok := body, "", false
	if i := strings.LastIndexByte(body, '\n'); i >= 0 {
		top, up, ok = body[:i], body[i+1:], true
	}
	top = strings.TrimRight(top, "\n")
	if letter, rest, drive := msysDrive(top); drive {
		if rest == "" {
			rest = "/" // the drive's root, not its current directory
		}
		return string(letter&^0x20) + ":" + strings.ReplaceAll(rest, "/", `\`), nil
	}
	if !strings.HasPrefix(top, "/") || strings.HasPrefix(top, "//") {
		return strings.ReplaceAll(top, "/", `\`), nil // C:/…, or UNC: //server/share/…
	}
	cwd, err := getwd()
	if err != nil {
		return "", err
	}
	steps := strings.Count(up, "../")
	vol := volumeLen(cwd)
	elems := splitElems(cwd[vol:], s.separators)
	want := splitElems(top, "/")
	// No way up (git printed the work tree instead: the directory is
	// outside it), too many steps, or another name at the end: no guess.
	if !ok || up != strings.Repeat("../", steps) || steps >= len(elems) || len(want) == 0 ||
		!strings.EqualFold(elems[len(elems)-steps-1], want[len(want)-1]) {
		return "", exit.Ownf(exit.IO, "git printed the repository root as %s, an MSYS or Cygwin path that cannot be placed from the current directory %s", top, cwd)
	}
	return cwd[:vol] + strings.Join(elems[:len(elems)-steps], string(s.sep)), nil
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

// join appends elements to root (as root returns it) with the OS
// separator and no cleaning, so the result starts with exactly the root,
// as the script's "$root/.superpowers/sdd" does. On Windows a root that is
// a drive's root (C:\) already ends in the separator and does not get a
// second one.
func (s pathStyle) join(root string, elem ...string) string {
	var b strings.Builder
	b.WriteString(root)
	for i, e := range elem {
		if i > 0 || !s.drives || !strings.HasSuffix(root, string(s.sep)) {
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
