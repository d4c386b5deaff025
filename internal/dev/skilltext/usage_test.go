package skilltext

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/plaincmd"
)

// Check 4: every call of sdd-ledger in the text fits the built binary's
// usage of its verb, read from `sdd-ledger VERB --help`; nothing about
// the signatures is written here but the shape each parameter's argument
// takes in the text.

// Usage is a verb's signature as its usage line states it.
type Usage struct {
	Verb     string
	Required []string
	Optional []string
	Variadic bool // the last optional parameter repeats: [DECISION...]
}

// ParseUsage reads "usage: sdd-ledger VERB ARG... [OPT]...".
func ParseUsage(line string) (Usage, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "usage: sdd-ledger ")
	if !ok {
		return Usage{}, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return Usage{}, false
	}
	u := Usage{Verb: f[0]}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			o := a[1 : len(a)-1]
			if v, ok := strings.CutSuffix(o, "..."); ok {
				o, u.Variadic = v, true
			}
			u.Optional = append(u.Optional, o)
			continue
		}
		if len(u.Optional) > 0 {
			return Usage{}, false
		}
		u.Required = append(u.Required, a)
	}
	return u, true
}

func (u Usage) fits(n int) bool {
	return n >= len(u.Required) && (u.Variadic || n <= len(u.Required)+len(u.Optional))
}

func TestParseUsage(t *testing.T) {
	u, ok := ParseUsage("usage: sdd-ledger close PLAN_FILE N|final [DECISION...]\n")
	require.True(t, ok)
	assert.Equal(t, Usage{Verb: "close", Required: []string{"PLAN_FILE", "N|final"}, Optional: []string{"DECISION"}, Variadic: true}, u)
	assert.True(t, u.fits(5))
	assert.False(t, u.fits(1))
	_, ok = ParseUsage("usage: task-brief X")
	assert.False(t, ok)
}

var verbLineRe = regexp.MustCompile(`(?m)^  ([a-z][a-z-]*) +\S`)

// realUsages reads sdd-ledger's verbs from its --help, and each verb's
// usage from the first line of its own --help.
func realUsages(t *testing.T) map[string]Usage {
	t.Helper()
	requireBinaries(t)
	env := hermeticEnv(t.TempDir())
	r := runIn(t, t.TempDir(), env, binPath("sdd-ledger"), "--help")
	require.Equal(t, 0, r.code, r.stderr)
	_, verbs, ok := strings.Cut(r.stdout, "\nVerbs:\n")
	require.True(t, ok, "sdd-ledger --help lists its verbs:\n%s", r.stdout)
	out := map[string]Usage{}
	for _, m := range verbLineRe.FindAllStringSubmatch(verbs, -1) {
		v := runIn(t, t.TempDir(), env, binPath("sdd-ledger"), m[1], "--help")
		require.Equal(t, 0, v.code, "%s --help: %s", m[1], v.stderr)
		first, _, _ := strings.Cut(v.stdout, "\n")
		u, ok := ParseUsage(first)
		require.True(t, ok, "sdd-ledger %s --help starts with a usage line, got %q", m[1], first)
		out[m[1]] = u
	}
	require.NotEmpty(t, out)
	return out
}

// argShapes are what the text passes for a parameter: a placeholder, in
// quotes where its value may hold blanks. A parameter with no shape here
// is a change of the binary's usage that the text and this check must
// follow.
var argShapes = map[string]string{
	"PLAN_FILE": "'<plan file>'", "START_BRANCH": "'<start branch>'", "N": "<N>", "N|final": "<N>",
	"AGENT_ID": "<agent id>", "FIRST": "<first>", "LAST": "<last>", "LAST_TASK": "<last task>", "OLD_WORKSPACE": "'<old workspace>'",
	"ID": "<id>", "WHY": "'<why>'", "REASON": "'<reason>'", "TEXT": "'<what failed, one line>'", "DECISION": "<decisions>",
	"WHAT_CHANGED": "'<what changed>'", "WHAT_HAPPENED": "'<what happened>'", "K": "<K>",
}

// checkUsage: each sdd-ledger call in a step block passes a number of
// arguments its verb takes, each in its shape; every verb is used by a
// step; calls in inline code (the skill's files, docs/skill.md,
// docs/protocol.md) name a verb and pass a number it takes.
func checkUsage(x skillText, usages map[string]Usage) []string {
	var p []string
	used := map[string]bool{}
	for _, b := range x.shBlocks(stepFiles...) {
		for _, line := range strings.Split(strings.TrimSpace(b.Body), " && ") {
			words := rawWords(line)
			if len(words) < 2 || words[0] != "sdd-ledger" {
				continue
			}
			u, ok := usages[words[1]]
			if !ok {
				p = append(p, fmt.Sprintf("%s: sdd-ledger has no verb %q", where(b, 0), words[1]))
				continue
			}
			used[u.Verb] = true
			args := words[2:]
			if !u.fits(len(args)) && !(u.Variadic && len(args) == len(u.Required)+1) {
				p = append(p, fmt.Sprintf("%s: sdd-ledger %s takes %s; the block passes %d argument(s)", where(b, 0), u.Verb, strings.Join(u.Required, " "), len(args)))
				continue
			}
			params := append(append([]string(nil), u.Required...), u.Optional...)
			for i, a := range args {
				if i >= len(params) {
					break
				}
				want, ok := argShapes[params[i]]
				if !ok {
					p = append(p, fmt.Sprintf("%s: sdd-ledger %s's %s: this check has no shape for it", where(b, 0), u.Verb, params[i]))
				} else if a != want {
					p = append(p, fmt.Sprintf("%s: sdd-ledger %s's %s is %s, not %s", where(b, 0), u.Verb, params[i], a, want))
				}
			}
		}
	}
	for v := range usages {
		if !used[v] {
			p = append(p, fmt.Sprintf("no step of the skill runs sdd-ledger %s", v))
		}
	}
	for _, f := range append(x.files("skill"), "docs/skill.md", "docs/protocol.md") {
		for _, sp := range InlineCode(x[f]) {
			if !strings.HasPrefix(sp.Text, "sdd-ledger ") {
				continue
			}
			cmds, err := plaincmd.Parse(sp.Text)
			if err != nil {
				continue
			}
			for _, w := range cmds {
				if len(w) < 2 || w[0] != "sdd-ledger" || strings.HasPrefix(w[1], "-") || w[1] == "VERB" {
					continue
				}
				u, ok := usages[w[1]]
				if !ok {
					p = append(p, fmt.Sprintf("%s:%d: `%s`: sdd-ledger has no verb %q", f, sp.Line, sp.Text, w[1]))
				} else if len(w) > 2 && !u.fits(len(w)-2) {
					p = append(p, fmt.Sprintf("%s:%d: `%s` passes %d argument(s); sdd-ledger %s takes %s", f, sp.Line, sp.Text, len(w)-2, u.Verb, strings.Join(u.Required, " ")))
				}
			}
		}
	}
	return p
}

func TestUsage(t *testing.T) {
	requireClean(t, checkUsage(loadText(t), realUsages(t)))
}

func TestUsageCatches(t *testing.T) {
	usages := realUsages(t)
	x := loadText(t)
	const task = "sdd-ledger task '<plan file>' <N>\n"
	requireCatchesEach(t, func(x skillText) []string { return checkUsage(x, usages) }, map[string]broken{
		"an extra argument":  {x.edit(t, skillMD, "sdd-ledger round '<plan file>' <N>\n", "sdd-ledger round '<plan file>' <N> 2\n"), "the block passes 3"},
		"a missing argument": {x.edit(t, skillMD, "sdd-ledger look '<plan file>' '<start branch>'", "sdd-ledger look '<plan file>'"), "the block passes 1"},
		"arguments swapped":  {x.edit(t, skillMD, task, "sdd-ledger task <N> '<plan file>'\n"), "PLAN_FILE is <N>"},
		"a typed head":       {x.edit(t, skillMD, "sdd-ledger package '<plan file>' <N> <agent id>", "sdd-ledger package '<plan file>' <N> HEAD~1"), "AGENT_ID is HEAD~1"},
		"an unknown verb":    {x.edit(t, skillMD, "sdd-ledger round '<plan file>' <N>", "sdd-ledger record '<plan file>' <N>"), "no verb \"record\""},
		"a verb no step":     {x.edit(t, "skill/rare.md", "sdd-ledger carry '<plan file>' '<old workspace>'", "sdd-ledger look '<plan file>' '<start branch>'"), "no step of the skill runs sdd-ledger carry"},
	})
}

// rawWords splits a command at the blanks outside single quotes, keeping
// the quotes: the arguments as the text writes them.
func rawWords(s string) []string {
	var out []string
	var w strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
			w.WriteRune(r)
		case r == '<' && !quoted:
			quoted = true // a placeholder is one word, blanks and all
			w.WriteRune(r)
		case r == '>' && quoted && !strings.Contains(w.String(), "'"):
			quoted = false
			w.WriteRune(r)
		case r == ' ' && !quoted:
			if w.Len() > 0 {
				out = append(out, w.String())
				w.Reset()
			}
		default:
			w.WriteRune(r)
		}
	}
	if w.Len() > 0 {
		out = append(out, w.String())
	}
	return out
}
