package skilltext

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Check 4: every call of the commands in the text fits the built
// binaries' usage, read from their --help; nothing about the signatures
// is written here.

// Usage is a command's signature as its usage line states it.
type Usage struct {
	Cmd      string
	Required []string
	Optional []string
}

// ParseUsage reads a line of the form "usage: NAME ARG... [OPT]...".
func ParseUsage(line string) (Usage, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "usage: ")
	if !ok {
		return Usage{}, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return Usage{}, false
	}
	u := Usage{Cmd: f[0]}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			u.Optional = append(u.Optional, a[1:len(a)-1])
			continue
		}
		if len(u.Optional) > 0 {
			return Usage{}, false // a required argument after an optional one
		}
		u.Required = append(u.Required, a)
	}
	return u, true
}

// String gives the usage back in its own notation.
func (u Usage) String() string {
	parts := append([]string{u.Cmd}, u.Required...)
	for _, o := range u.Optional {
		parts = append(parts, "["+o+"]")
	}
	return strings.Join(parts, " ")
}

// Params lists the parameters in order, required first.
func (u Usage) Params() []string {
	return append(append([]string{}, u.Required...), u.Optional...)
}

func TestParseUsage(t *testing.T) {
	u, ok := ParseUsage("usage: review-package PLAN_FILE BASE HEAD [OUTFILE]\n")
	require.True(t, ok)
	assert.Equal(t, Usage{Cmd: "review-package", Required: []string{"PLAN_FILE", "BASE", "HEAD"}, Optional: []string{"OUTFILE"}}, u)
	assert.Equal(t, "review-package PLAN_FILE BASE HEAD [OUTFILE]", u.String())
	_, ok = ParseUsage("Usage: x")
	assert.False(t, ok)
	_, ok = ParseUsage("usage: x [A] B")
	assert.False(t, ok, "a required argument after an optional one")
}

// realUsages reads each built command's usage from the first line of its
// --help.
func realUsages(t *testing.T) map[string]Usage {
	t.Helper()
	requireBinaries(t)
	env := hermeticEnv(t.TempDir())
	out := map[string]Usage{}
	for _, name := range ship.Commands {
		r := runIn(t, t.TempDir(), env, binPath(name), "--help")
		require.Equal(t, 0, r.code, "%s --help: %s", name, r.stderr)
		first, _, _ := strings.Cut(r.stdout, "\n")
		u, ok := ParseUsage(first)
		require.True(t, ok, "%s --help starts with a usage line, got %q", name, first)
		require.Equal(t, name, u.Cmd)
		out[name] = u
	}
	return out
}

var quotedVarRe = regexp.MustCompile(`^"\$([A-Za-z_][A-Za-z0-9_]*)"$`)

// argFits says whether a block's argument is what the text must pass for
// a parameter: the plan as the placeholder, the task number as <N>, and a
// revision as a quoted variable the block computed (never a typed sha or
// HEAD~1). A parameter with no rule here is a change of the binary's
// usage that the text and this check must follow.
func argFits(param string, arg shWord, assigned map[string]bool) (bool, string) {
	switch param {
	case "PLAN_FILE":
		return arg.raw == "'<plan file>'", "'<plan file>'"
	case "TASK_NUMBER":
		return arg.raw == "<N>", "<N>"
	case "BASE", "HEAD":
		m := quotedVarRe.FindStringSubmatch(arg.raw)
		return m != nil && assigned[m[1]], "a quoted variable the block sets"
	}
	return false, "nothing: this check has no rule for " + param
}

// checkUsage: each call of a command in a block of SKILL.md, resume.md or
// manual.md passes exactly the required parameters (never OUTFILE: the
// text relies on the default names), each in the shape argFits asks; each
// call in inline code (the skill's files, docs/skill.md, docs/protocol.md)
// passes a number of arguments the command takes; and the step blocks use
// every command.
func checkUsage(x skillText, usages map[string]Usage) []string {
	var p []string
	used := map[string]bool{}
	for _, b := range x.shBlocks(runFiles...) {
		s, err := parseSh(b.Body)
		if err != nil {
			continue // checkShell reports it
		}
		for _, c := range s.cmds {
			u, ok := usages[c.name()]
			if !ok {
				continue
			}
			used[c.name()] = true
			args := c.words[1:]
			if len(args) != len(u.Required) {
				p = append(p, fmt.Sprintf("%s: %s takes %s and the text relies on the default OUTFILE; the block passes %d argument(s)", where(b, c.line), u.Cmd, u.String(), len(args)))
				continue
			}
			for i, a := range args {
				if ok, want := argFits(u.Required[i], a, s.assigned); !ok {
					p = append(p, fmt.Sprintf("%s: %s's %s is %s, not %s", where(b, c.line), u.Cmd, u.Required[i], a.raw, want))
				}
			}
		}
	}
	for _, name := range ship.Commands {
		if !used[name] {
			p = append(p, fmt.Sprintf("no block of the skill runs %s", name))
		}
	}
	files := append(x.files("skill"), "docs/skill.md", "docs/protocol.md")
	for _, f := range files {
		for _, sp := range InlineCode(x[f]) {
			if !mentionsCommand(sp.Text) {
				continue
			}
			s, err := parseSh(sp.Text)
			if err != nil {
				continue
			}
			for _, c := range s.cmds {
				u, ok := usages[c.name()]
				if !ok || len(c.words) < 2 {
					continue // a bare name is a mention, not a call
				}
				if n := len(c.words) - 1; n < len(u.Required) || n > len(u.Params()) {
					p = append(p, fmt.Sprintf("%s:%d: `%s` passes %d argument(s); %s takes %s", f, sp.Line, sp.Text, n, u.Cmd, u.String()))
				}
				for _, w := range c.words[1:] {
					if strings.Contains(w.raw, "HEAD~") {
						p = append(p, fmt.Sprintf("%s:%d: `%s` passes %s: only the recorded BASE shows every commit", f, sp.Line, sp.Text, w.raw))
					}
				}
			}
		}
	}
	return p
}

func mentionsCommand(s string) bool {
	for _, name := range ship.Commands {
		if strings.Contains(s, name) {
			return true
		}
	}
	return false
}

// checkSignatures: SKILL.md shows each command's usage exactly as the
// binary prints it, in a code span.
func checkSignatures(x skillText, usages map[string]Usage) []string {
	var p []string
	spans := map[string]bool{}
	for _, s := range InlineCode(x[skillMD]) {
		spans[s.Text] = true
	}
	for _, name := range ship.Commands {
		if u := usages[name]; !spans[u.String()] {
			p = append(p, fmt.Sprintf("SKILL.md does not show `%s`, the usage %s prints", u.String(), name))
		}
	}
	return p
}

func TestUsage(t *testing.T) {
	usages := realUsages(t)
	x := loadText(t)
	requireClean(t, checkUsage(x, usages))
	requireClean(t, checkSignatures(x, usages))
}

func TestUsageCatches(t *testing.T) {
	usages := realUsages(t)
	x := loadText(t)
	const brief = "task-brief '<plan file>' <N>\n"
	const pkg = "review-package '<plan file>' \"$b\" \"$h\" && printf 'Task <N>: reviewed_head"
	for name, c := range map[string]struct {
		broken skillText
		want   string
	}{
		"an OUTFILE":               {x.edit(t, skillMD, brief, "task-brief '<plan file>' <N> '<workspace>/brief.md'\n"), "the block passes 3"},
		"a missing argument":       {x.edit(t, skillMD, "ws=$(sdd-workspace '<plan file>')", "ws=$(sdd-workspace)"), "the block passes 0"},
		"arguments swapped":        {x.edit(t, skillMD, brief, "task-brief <N> '<plan file>'\n"), "PLAN_FILE is <N>"},
		"HEAD~1":                   {x.edit(t, skillMD, pkg, "review-package '<plan file>' HEAD~1 \"$h\" && printf 'Task <N>: reviewed_head"), "BASE is HEAD~1"},
		"a variable never set":     {x.edit(t, skillMD, pkg, "review-package '<plan file>' \"$base\" \"$h\" && printf 'Task <N>: reviewed_head"), "BASE is \"$base\""},
		"an unquoted variable":     {x.edit(t, skillMD, pkg, "review-package '<plan file>' $b \"$h\" && printf 'Task <N>: reviewed_head"), "BASE is $b"},
		"the plan by another name": {x.edit(t, "skill/resume.md", "'<start branch>'..HEAD)\nfirst=", "'<start branch>'..HEAD)\ntask-brief plan.md <N>\nfirst="), "PLAN_FILE is plan.md"},
		"a span with one too many": {x.edit(t, "docs/protocol.md", "`task-brief PLAN_FILE N`", "`task-brief PLAN_FILE N OUT MORE`"), "passes 4 argument(s)"},
		"a span with HEAD~1":       {x.edit(t, manualMD, "`review-package '<plan file>' \"$b\" \"$h\"`", "`review-package '<plan file>' HEAD~1 HEAD`"), "passes HEAD~1"},
		"a command no block runs":  {x.edit(t, skillMD, brief, "echo\n").edit(t, "skill/resume.md", brief, "echo\n"), "no block of the skill runs task-brief"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, checkUsage(c.broken, usages), c.want) })
	}

	// The binaries change: the text no longer fits.
	grown := map[string]Usage{}
	for k, v := range usages {
		grown[k] = v
	}
	tb := grown["task-brief"]
	tb.Required = append(append([]string(nil), tb.Required...), "MODE")
	grown["task-brief"] = tb
	requireCatches(t, checkUsage(x, grown), "the block passes 2")
	requireCatches(t, checkSignatures(x, grown), "SKILL.md does not show `task-brief PLAN_FILE TASK_NUMBER MODE [OUTFILE]`")
	renamed := map[string]Usage{}
	for k, v := range usages {
		renamed[k] = v
	}
	rp := renamed["review-package"]
	rp.Required = []string{"PLAN_FILE", "FROM", "HEAD"}
	renamed["review-package"] = rp
	requireCatches(t, checkUsage(x, renamed), "no rule for FROM")

	requireCatches(t, checkSignatures(x.edit(t, skillMD, "`sdd-workspace PLAN_FILE`", "`sdd-workspace PLAN`"), usages), "SKILL.md does not show `sdd-workspace PLAN_FILE`")
}
