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
