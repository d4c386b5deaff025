package workspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSlug(t *testing.T) {
	cases := []struct {
		plan, slug string
		ok         bool
	}{
		{"plan.md", "plan", true},
		{"docs/plans/plan.md", "plan", true},
		{"plan.md.md", "plan.md", true},
		{"plan.MD", "plan.MD", true},
		{".md", ".md", true},
		{"..md", ".", false},
		{"...md", "..", false},
		{"\n.md", "", false},
		{"x\n.md", "x", true},
		{"x\n\n", "x", true},
		{"plan", "plan", true},
		{"dir/plan.md/", "plan", true},
		{"-p.md", "-p", true},
		{"--", "--", true},
		{"a=b.md", "a=b", true},
		{"", "", false},
		{"/", "/", true}, // never reached: "/" is not a plan file
		{`docs\plan.md`, `docs\plan`, true},
	}
	for _, c := range cases {
		slug, ok := unixStyle.slug(c.plan)
		assert.Equal(t, c.slug, slug, "%q", c.plan)
		assert.Equal(t, c.ok, ok, "%q", c.plan)
	}
}

func TestSlugWindows(t *testing.T) {
	cases := []struct{ plan, slug string }{
		{`docs\plans\plan.md`, "plan"},
		{`docs/plans\plan.md`, "plan"},
		{`C:\Users\me\repo\docs\Plan.md`, "Plan"},
		{`C:plan.md`, "plan"},
		{`docs\plan.md\`, "plan"},
		{`\\server\share\plan.md`, "plan"},
	}
	for _, c := range cases {
		slug, ok := windowsStyle.slug(c.plan)
		assert.True(t, ok, c.plan)
		assert.Equal(t, c.slug, slug, "%q", c.plan)
	}
}

func TestJoin(t *testing.T) {
	assert.Equal(t, "/home/me/repo/.superpowers/sdd", unixStyle.join("/home/me/repo", ".superpowers", "sdd"))
	// Lexical: nothing git printed is cleaned away, as "$root/…" in bash.
	assert.Equal(t, "//.superpowers/sdd", unixStyle.join("/", ".superpowers", "sdd"))
	assert.Equal(t, `C:\Users\me\repo\.superpowers\sdd`, windowsStyle.join("C:/Users/me/repo", ".superpowers", "sdd"))
	// An MSYS or Cygwin git's path becomes one a Windows program can open.
	assert.Equal(t, `C:\Users\me\repo\.superpowers`, windowsStyle.join("/c/Users/me/repo", ".superpowers"))
	assert.Equal(t, `D:\work\.superpowers`, windowsStyle.join("/cygdrive/d/work", ".superpowers"))
	assert.Equal(t, `\\server\share\repo\.superpowers`, windowsStyle.join("//server/share/repo", ".superpowers"))
	// On Unix a path that looks like MSYS is just a path.
	assert.Equal(t, "/c/Users/.superpowers", unixStyle.join("/c/Users", ".superpowers"))
}

func TestSame(t *testing.T) {
	assert.True(t, windowsStyle.same("Docs/Plan.md", "docs/plan.md"))
	assert.True(t, darwinStyle.same("Docs/Plan.md", "docs/plan.md"))
	assert.False(t, unixStyle.same("Docs/Plan.md", "docs/plan.md"))
	assert.True(t, unixStyle.same("docs/plan.md", "docs/plan.md"))
}

func TestCandidateNames(t *testing.T) {
	var got []string
	for i := 0; i < 4; i++ {
		got = append(got, candidateName("plan", "b", i))
	}
	assert.Equal(t, []string{"plan", "plan-b", "plan-b-2", "plan-b-3"}, got)
	got = got[:0]
	for i := 0; i < 3; i++ {
		got = append(got, candidateName("plan", "", i))
	}
	assert.Equal(t, []string{"plan", "plan-2", "plan-3"}, got)
}

func TestStyleOf(t *testing.T) {
	assert.Equal(t, windowsStyle, styleOf("windows"))
	assert.Equal(t, darwinStyle, styleOf("darwin"))
	assert.Equal(t, unixStyle, styleOf("linux"))
	assert.Equal(t, unixStyle, styleOf("freebsd"))
}

// TestNativeRootBareDrive: an MSYS or Cygwin git at the top of a drive
// prints /c or /cygdrive/c; that is the drive's root, C:\, never the
// drive-relative "C:" nor "\c".
func TestNativeRootBareDrive(t *testing.T) {
	for root, want := range map[string]string{
		"/c":           `C:\`,
		"/c/":          `C:\`,
		"/D":           `D:\`,
		"/cygdrive/c":  `C:\`,
		"/cygdrive/e/": `E:\`,
		"C:/":          `C:\`,
	} {
		assert.Equal(t, want, windowsStyle.nativeRootIn(root, `C:\anywhere`, nil), root)
	}
	// One separator between the drive root and the workspace, as Git for
	// Windows' "C:/" gives too.
	assert.Equal(t, `C:\.superpowers\sdd`, windowsStyle.join("/c", ".superpowers", "sdd"))
	assert.Equal(t, `C:\.superpowers\sdd`, windowsStyle.join("C:/", ".superpowers", "sdd"))
	// Not drive paths: a longer first element, and Unix.
	assert.Equal(t, `C:\msys64\cc\repo`, windowsStyle.nativeRootIn("/cc/repo", `C:\msys64\cc\repo`, nil))
	assert.Equal(t, "/c", unixStyle.nativeRootIn("/c", "/c", nil))
}

// TestNativeRootMount: an MSYS2 or Cygwin git prints a repository under
// one of its mounts (/home, /tmp, its root) as /home/me/repo; git ran in
// the current directory, so the repository is the ancestor of the working
// directory that ends in those elements, compared as Windows compares
// names.
func TestNativeRootMount(t *testing.T) {
	cases := []struct{ root, cwd, want string }{
		{"/home/me/repo", `C:\msys64\home\me\repo`, `C:\msys64\home\me\repo`},
		{"/home/me/repo", `C:\msys64\home\me\repo\src\pkg`, `C:\msys64\home\me\repo`},
		{"/tmp/x", `C:\msys64\tmp\x\y`, `C:\msys64\tmp\x`},
		{"/home/Me/Repo", `C:\msys64\home\me\repo\docs`, `C:\msys64\home\me\repo`},
		{"/home/me/my repo/é", `D:\cygwin64\home\me\my repo\é\a`, `D:\cygwin64\home\me\my repo\é`},
		{"/home/me/repo", `\\server\share\msys\home\me\repo\x`, `\\server\share\msys\home\me\repo`},
		// The root of the MSYS installation itself, from there.
		{"/", `C:\msys64`, `C:\msys64`},
		// No ancestor fits (git and the cwd disagree): left as it was, so the
		// failure names what git printed.
		{"/home/me/repo", `C:\work\other`, `\home\me\repo`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, windowsStyle.nativeRootIn(c.root, c.cwd, nil), "%s in %s", c.root, c.cwd)
	}
}

// TestMountCandidates: when the same trailing elements occur twice on the
// way up, the nearest ancestor is git's top level, as git looks upwards from
// the working directory.
func TestMountCandidates(t *testing.T) {
	assert.Equal(t, []string{`C:\ab\x\ab`, `C:\ab`}, windowsStyle.mountCandidates("/ab", `C:\ab\x\ab\y`))
	assert.Equal(t, []string{`C:\r\ab\cd`}, windowsStyle.mountCandidates("/ab/cd", `C:\r\ab\cd\e`))
	assert.Equal(t, []string{`C:\ab`, `C:\`}, windowsStyle.mountCandidates("/", `C:\ab`))
	assert.Empty(t, windowsStyle.mountCandidates("/ab/cd/ef", `C:\ab\cd`))
	assert.Empty(t, windowsStyle.mountCandidates("/ab", `C:\cd`))
}

// TestNativeRootMountAmbiguous: where several ancestors end in git's
// elements (always so for the MSYS root "/"), the nearest that is a
// repository's top level is git's.
func TestNativeRootMountAmbiguous(t *testing.T) {
	tops := map[string]bool{`C:\msys64`: true, `C:\ab`: true}
	isTop := func(dir string) bool { return tops[dir] }
	assert.Equal(t, `C:\msys64`, windowsStyle.nativeRootIn("/", `C:\msys64\home\me`, isTop))
	assert.Equal(t, `C:\ab`, windowsStyle.nativeRootIn("/ab", `C:\ab\x\ab\y`, isTop))
	// No candidate is a top level (git found it through GIT_DIR): the nearest.
	assert.Equal(t, `C:\bc\x\bc`, windowsStyle.nativeRootIn("/bc", `C:\bc\x\bc\y`, isTop))
	// A single letter is a drive, not a mount.
	assert.Equal(t, `A:\`, windowsStyle.nativeRootIn("/a", `C:\a\x\a\y`, isTop))
}
