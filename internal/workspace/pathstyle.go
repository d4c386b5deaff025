package workspace

import (
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
// may print /c/Users/me/repo, which Windows programs cannot open.
func (s pathStyle) nativeRoot(root string) string {
	if !s.drives {
		return root
	}
	if len(root) >= 3 && root[0] == '/' && isLetter(root[1]) && (len(root) == 2 || root[2] == '/') {
		root = strings.ToUpper(root[1:2]) + ":" + root[2:]
	} else if strings.HasPrefix(root, "/cygdrive/") && len(root) >= 11 && isLetter(root[10]) && (len(root) == 11 || root[11] == '/') {
		root = strings.ToUpper(root[10:11]) + ":" + root[11:]
	}
	return strings.ReplaceAll(root, "/", `\`)
}

// join appends elements to root with the OS separator and no cleaning, so
// the result starts with exactly what git printed, as the script's
// "$root/.superpowers/sdd" does.
func (s pathStyle) join(root string, elem ...string) string {
	var b strings.Builder
	b.WriteString(s.nativeRoot(root))
	for _, e := range elem {
		b.WriteByte(s.sep)
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
