package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/exit"
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

// On Windows `\` separates path elements too, and a drive prefix is not
// part of the name (docs/spec.md ws3, diff7).
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
	assert.Equal(t, `C:\Users\me\repo\.superpowers\sdd`, windowsStyle.join(`C:\Users\me\repo`, ".superpowers", "sdd"))
	// One separator after a drive's root.
	assert.Equal(t, `C:\.superpowers\sdd`, windowsStyle.join(`C:\`, ".superpowers", "sdd"))
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
		got = append(got, candidateName("plan", "b", i, 255))
	}
	assert.Equal(t, []string{"plan", "plan-b", "plan-b-2", "plan-b-3"}, got)
	got = got[:0]
	for i := 0; i < 3; i++ {
		got = append(got, candidateName("plan", "", i, 255))
	}
	assert.Equal(t, []string{"plan", "plan-2", "plan-3"}, got)
}

// diff2 (2026-12-04): a later candidate longer than the file system's
// longest name is cut to fit, its -N kept, never inside a UTF-8 character;
// the first, the script's name, is never cut.
func TestLongCandidateNamesAreCutToFit(t *testing.T) {
	slug := strings.Repeat("p", 240)
	for _, c := range []struct {
		slug, parent string
		i, limit     int
		want         string
	}{
		{slug, "a", 1, 255, slug + "-a"},
		{slug + "pppppppppppppppppp", "a", 0, 20, slug + "pppppppppppppppppp"},
		{slug, strings.Repeat("b", 20), 1, 255, slug + "-" + strings.Repeat("b", 14)},
		{slug, strings.Repeat("b", 20), 2, 255, slug + "-" + strings.Repeat("b", 12) + "-2"},
		{slug, strings.Repeat("b", 20), 12, 255, slug + "-" + strings.Repeat("b", 11) + "-12"},
		{slug, "x" + strings.Repeat("é", 15), 1, 255, slug + "-x" + strings.Repeat("é", 6)},
		{slug, "x" + strings.Repeat("€", 15), 1, 255, slug + "-x" + strings.Repeat("€", 4)},
		{slug, "x" + strings.Repeat("😀", 15), 1, 255, slug + "-x" + strings.Repeat("😀", 3)},
		{slug, "", 1, 242, strings.Repeat("p", 240) + "-2"},
		{slug, "", 1, 241, strings.Repeat("p", 239) + "-2"},
		{strings.Repeat("é", 127), "", 1, 255, strings.Repeat("é", 126) + "-2"},
		{"plan", "b", 2, 2, "plan-b-2"},                 // no room for anything: the kernel says so
		{"\x80\x80\x80\x80\x80\x80", "b", 1, 3, "\x80"}, // not UTF-8: never an empty name
		{"a\x80\x80\x80\x80\x80", "b", 1, 5, "a\x80"},
	} {
		got := candidateName(c.slug, c.parent, c.i, c.limit)
		assert.Equal(t, c.want, got, "%q %q %d %d", c.slug, c.parent, c.i, c.limit)
	}
}

func TestStyleOf(t *testing.T) {
	assert.Equal(t, windowsStyle, styleOf("windows"))
	assert.Equal(t, darwinStyle, styleOf("darwin"))
	assert.Equal(t, unixStyle, styleOf("linux"))
	assert.Equal(t, unixStyle, styleOf("freebsd"))
}

// On Unix git gets exactly the reference's arguments; on Windows it is asked
// for the way up in the same call.
func TestRootArgs(t *testing.T) {
	assert.Equal(t, []string{"rev-parse", "--show-toplevel"}, unixStyle.rootArgs())
	assert.Equal(t, []string{"rev-parse", "--show-toplevel"}, darwinStyle.rootArgs())
	assert.Equal(t, []string{"rev-parse", "--show-toplevel", "--show-cdup"}, windowsStyle.rootArgs())
}

// cwdIs is a getwd that returns dir; noCwd fails the test if asked.
func cwdIs(dir string) func() (string, error) { return func() (string, error) { return dir, nil } }

func noCwd(t *testing.T) func() (string, error) {
	return func() (string, error) {
		t.Error("the working directory was asked for a path that needs none")
		return "", errors.New("no")
	}
}

// On Unix the top level is used as git printed it, trailing newlines
// dropped as $(…) drops them, newlines inside kept.
func TestRootUnix(t *testing.T) {
	for out, want := range map[string]string{
		"/home/me/repo\n":   "/home/me/repo",
		"/home/me/repo\n\n": "/home/me/repo",
		"/a\nb\n":           "/a\nb",
		"/c/Users\n":        "/c/Users", // not a drive on Unix
		"/\n":               "/",
	} {
		root, err := unixStyle.root(out, noCwd(t))
		require.NoError(t, err, "%q", out)
		assert.Equal(t, want, root, "%q", out)
	}
}

// On Windows a drive path has one native spelling, whatever the working
// directory: Git for Windows' C:/…, MSYS's /c/…, Cygwin's /cygdrive/c/…,
// a drive's root (C:\, never the drive-relative C:), and UNC paths.
func TestRootWindowsDrivePaths(t *testing.T) {
	for out, want := range map[string]string{
		"C:/Users/me/repo\n\n":        `C:\Users\me\repo`,
		"C:/Users/me/repo\n../../\n":  `C:\Users\me\repo`,
		"/c/Users/me/repo\n../\n":     `C:\Users\me\repo`,
		"/cygdrive/d/work\n\n":        `D:\work`,
		"//server/share/repo\n\n":     `\\server\share\repo`,
		"/c\n\n":                      `C:\`,
		"/c/\n\n":                     `C:\`,
		"/D\n\n":                      `D:\`,
		"/cygdrive/c\n\n":             `C:\`,
		"/cygdrive/e/\n\n":            `E:\`,
		"C:/\n\n":                     `C:\`,
		"C:/a\nb\n\n":                 "C:\\a\nb", // the way up is the last line
		"C:/x\n\n\n":                  `C:\x`,     // the top level's own trailing newline
		"C:/Users/me/repo\n":          `C:\Users\me\repo`,
		"/cygdrive/c/Users/me/repo\n": `C:\Users\me\repo`,
	} {
		root, err := windowsStyle.root(out, noCwd(t))
		require.NoError(t, err, "%q", out)
		assert.Equal(t, want, root, "%q", out)
	}
	// One separator between a drive's root and the workspace.
	root, err := windowsStyle.root("/c\n\n", noCwd(t))
	require.NoError(t, err)
	assert.Equal(t, `C:\.superpowers\sdd`, windowsStyle.join(root, ".superpowers", "sdd"))
}

// An MSYS2 or Cygwin git prints a repository inside one of its mounts in
// its own name space. The root is then the working directory taken up the
// way git printed (--show-cdup), never guessed from the names: MSYS2 mounts
// %TEMP% at /tmp, where no ancestor of the working directory ends in tmp\x.
func TestRootWindowsMountPaths(t *testing.T) {
	const temp = `C:\Users\me\AppData\Local\Temp`
	cases := []struct{ out, cwd, want string }{
		{"/tmp/x\n\n", temp + `\x`, temp + `\x`},
		{"/tmp/x\n../\n", temp + `\x\src`, temp + `\x`},
		{"/tmp/x\n../../\n", temp + `\x\src\pkg\`, temp + `\x`},
		{"/home/me/repo\n../../\n", `C:\msys64\home\me\repo\src\pkg`, `C:\msys64\home\me\repo`},
		{"/home/Me/Repo\n../\n", `C:\msys64\home\me\repo\docs`, `C:\msys64\home\me\repo`},
		{"/home/me/my repo/é\n../\n", `D:\cygwin64\home\me\my repo\é\a`, `D:\cygwin64\home\me\my repo\é`},
		{"/home/me/repo\n../\n", `\\server\share\msys\home\me\repo\x`, `\\server\share\msys\home\me\repo`},
		// The same trailing names twice on the way up: git's count decides.
		{"/ab\n../../\n", `C:\ab\x\ab\y\z`, `C:\ab\x\ab`},
	}
	for _, c := range cases {
		root, err := windowsStyle.root(c.out, cwdIs(c.cwd))
		require.NoError(t, err, "%q in %s", c.out, c.cwd)
		assert.Equal(t, c.want, root, "%q in %s", c.out, c.cwd)
	}
}

// A mount path the working directory does not lead to is an error (exit 1,
// before anything is made), never a guess that could lie outside the
// repository.
func TestRootWindowsMountPathsThatCannotBePlaced(t *testing.T) {
	const temp = `C:\Users\me\AppData\Local\Temp`
	cases := []struct{ out, cwd string }{
		// The repository is the mount itself: its Windows name is another.
		{"/tmp\n\n", temp},
		// Outside the work tree (GIT_WORK_TREE): git prints the work tree
		// where the way up would be.
		{"/tmp/x\n/tmp/x\n", `C:\elsewhere`},
		// More steps up than the working directory has.
		{"/tmp/x\n../../\n", `C:\x`},
		{"/tmp/x\n../\n", `C:\`},
		// The directory reached has another name: git walked up through a
		// mount inside the repository, or a symlink.
		{"/home/me/repo\n../../\n", `C:\other\sub`},
		{"/home/me/repo\n../\n", `C:\link\sub`},
		// The MSYS root has no name to check.
		{"/\n\n", `C:\msys64`},
		// No way up at all.
		{"/tmp/x\n", temp + `\x`},
		{"/tmp/x\nsrc/\n", temp + `\x`},
	}
	for _, c := range cases {
		root, err := windowsStyle.root(c.out, cwdIs(c.cwd))
		require.Error(t, err, "%q in %s gave %s", c.out, c.cwd, root)
		assert.Equal(t, exit.IO, exit.Status(err))
		top, _, _ := strings.Cut(c.out, "\n")
		assert.Equal(t, "git printed the repository root as "+top+", an MSYS or Cygwin path that cannot be placed from the current directory "+c.cwd, err.Error())
	}
	_, err := windowsStyle.root("/tmp/x\n\n", func() (string, error) { return "", errors.New("getwd failed") })
	assert.EqualError(t, err, "getwd failed")
}
