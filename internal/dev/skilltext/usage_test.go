package skilltext

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realUsages runs each built command the wrong way and with -h, and parses
// the usage line it prints. Nothing about the signatures is hard-coded.
func realUsages(t *testing.T) map[string]Usage {
	t.Helper()
	requireBinaries(t)
	env := hermeticEnv(t.TempDir())
	out := map[string]Usage{}
	for _, name := range commandNames {
		r := runIn(t, t.TempDir(), env, binPath(name))
		require.Equal(t, 2, r.code, "%s with no argument exits 2", name)
		require.Empty(t, r.stdout, "%s with no argument prints nothing on stdout", name)
		u, ok := ParseUsage(r.stderr)
		require.True(t, ok, "%s with no argument prints a usage line on stderr, got %q", name, r.stderr)
		require.Equal(t, name, u.Cmd)
		require.Equal(t, "usage: "+u.String()+"\n", r.stderr, "%s: the usage line is all of stderr", name)

		h := runIn(t, t.TempDir(), env, binPath(name), "-h")
		require.Equal(t, 0, h.code, "%s -h exits 0", name)
		assert.Contains(t, h.stdout, "usage: "+u.String(), "%s -h shows the same usage on stdout", name)
		assert.Greater(t, len(strings.TrimSpace(h.stdout)), len("usage: "+u.String()), "%s -h adds a description", name)

		// One argument too many is refused the same way.
		args := make([]string, len(u.Params())+1)
		for i := range args {
			args[i] = "x"
		}
		r = runIn(t, t.TempDir(), env, binPath(name), args...)
		require.Equal(t, 2, r.code, "%s with %d arguments", name, len(args))
		require.Equal(t, "usage: "+u.String()+"\n", r.stderr)
		out[name] = u
	}
	return out
}

// aliases are the other names the text may give a parameter. A name that
// ends in _<PARAM> (FIX_BASE, MERGE_BASE) also stands for PARAM.
var aliases = map[string][]string{
	"TASK_NUMBER": {"N"},
}

// placeholderParam says which parameter each placeholder of the skill
// text's command blocks stands for.
var placeholderParam = map[string]string{
	"plan file":      "PLAN_FILE",
	"N":              "TASK_NUMBER",
	"base sha":       "BASE",
	"fix base sha":   "BASE",
	"merge base sha": "BASE",
	"head sha":       "HEAD",
}

var (
	textPlaceholderRe = regexp.MustCompile(`^<([A-Za-z0-9 ]+)>$`)
	symbolRe          = regexp.MustCompile(`^\$?\{?([A-Z][A-Z0-9_]*)\}?$`)
	optionRe          = regexp.MustCompile(`^\[([A-Z][A-Z0-9_]*)\]$`)
	revLitRe          = regexp.MustCompile(`^(?:[0-9a-f]{7,40}|[A-Za-z][A-Za-z0-9/._-]*)$`)
	substRe           = regexp.MustCompile(`^\$\((git (?:rev-parse|merge-base)\b[^)]*)\)$`)
	digitsRe          = regexp.MustCompile(`^[0-9]+$`)
	mdLiteral         = regexp.MustCompile(`^[^$\[\]"' ]+\.md$`)
)

// checkInvocation says what is wrong with one command line of the text
// against the command's real usage, or "" when it fits: the argument count
// must be one the command accepts, and each argument must fit the
// parameter at its position: the same name (or an alias, or a name ending
// in _PARAM), an [OPTIONAL] only where the usage has that optional
// parameter, or a literal of the right kind (a .md plan, a task number, a
// revision or a $(git rev-parse …) for BASE and HEAD; never HEAD~1).
func checkInvocation(u Usage, inv Invocation) string {
	params := u.Params()
	if len(inv.Args) < len(u.Required) || len(inv.Args) > len(params) {
		return "takes " + u.String() + ", the text passes " + strings.Join(inv.Args, " ")
	}
	for i, raw := range inv.Args {
		p := params[i]
		arg := strings.Trim(raw, `"'`)
		if m := textPlaceholderRe.FindStringSubmatch(arg); m != nil {
			if placeholderParam[m[1]] != p {
				return "passes " + raw + " where the usage has " + p
			}
			continue
		}
		if m := optionRe.FindStringSubmatch(arg); m != nil {
			if i < len(u.Required) || m[1] != p {
				return "shows [" + m[1] + "] where the usage has " + p
			}
			continue
		}
		if m := symbolRe.FindStringSubmatch(arg); m != nil && (strings.HasPrefix(arg, "$") || strings.ToUpper(arg) == arg) {
			if !nameFits(m[1], p) {
				return "passes " + m[1] + " where the usage has " + p
			}
			continue
		}
		var ok bool
		switch p {
		case "PLAN_FILE":
			ok = mdLiteral.MatchString(arg)
		case "TASK_NUMBER":
			ok = digitsRe.MatchString(arg)
		case "BASE", "HEAD":
			ok = substRe.MatchString(arg) && !strings.Contains(arg, "~") ||
				revLitRe.MatchString(arg) && !strings.HasSuffix(arg, ".md")
		default:
			ok = arg != ""
		}
		if !ok {
			return "passes " + raw + " where the usage has " + p
		}
	}
	return ""
}

func nameFits(name, param string) bool {
	if name == param || strings.HasSuffix(name, "_"+param) {
		return true
	}
	for _, a := range aliases[param] {
		if a == name {
			return true
		}
	}
	return false
}

// textFiles are the markdown files whose command lines are checked.
func textFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range skillFiles(t) {
		out["skill/"+name] = readSkillFile(t, name)
	}
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "skill.md"))
	require.NoError(t, err)
	out["docs/skill.md"] = string(b)
	return out
}

func TestEveryCommandLineFitsTheRealUsage(t *testing.T) {
	usages := realUsages(t)
	seen := map[string]int{}
	for file, text := range textFiles(t) {
		for _, inv := range Invocations(text, commandNames) {
			seen[inv.Cmd]++
			if msg := checkInvocation(usages[inv.Cmd], inv); msg != "" {
				t.Errorf("%s:%d: %s %s\n\t%s", file, inv.Line, inv.Cmd, msg, inv.Code)
			}
		}
	}
	for _, name := range commandNames {
		assert.GreaterOrEqual(t, seen[name], 2, "the text shows %s in use", name)
	}
}

// TestSkillShowsEachSignatureVerbatim: the tools table of SKILL.md gives
// each command's full usage exactly as the binary prints it.
func TestSkillShowsEachSignatureVerbatim(t *testing.T) {
	usages := realUsages(t)
	spans := map[string]bool{}
	for _, s := range InlineCode(readSkillFile(t, "SKILL.md")) {
		spans[s.Text] = true
	}
	for _, name := range commandNames {
		assert.True(t, spans[usages[name].String()], "SKILL.md shows `%s`", usages[name].String())
	}
}

// TestCheckerCatchesDrift shows the check is not vacuous: a renamed,
// re-ordered, missing or extra argument in the text fails it, and so does
// a renamed parameter in the binary's usage.
func TestCheckerCatchesDrift(t *testing.T) {
	u := map[string]Usage{}
	for _, line := range []string{
		"usage: sdd-workspace PLAN_FILE",
		"usage: task-brief PLAN_FILE TASK_NUMBER [OUTFILE]",
		"usage: review-package PLAN_FILE BASE HEAD [OUTFILE]",
	} {
		p, ok := ParseUsage(line)
		require.True(t, ok)
		u[p.Cmd] = p
	}
	good := []string{
		"`review-package PLAN_FILE BASE HEAD [OUTFILE]`",
		"`review-package PLAN_FILE FIX_BASE HEAD`",
		"`task-brief PLAN_FILE N`",
		"`task-brief docs/plans/x.md 3`",
		"```sh\nreview-package \"$PLAN_FILE\" \"$BASE\" \"$(git rev-parse HEAD)\"\n```",
		"```sh\nWS=$(sdd-workspace docs/plans/x.md)\n```",
		"```sh\ntask-brief '<plan file>' <N>\n```",
		"```sh\nreview-package '<plan file>' '<fix base sha>' '<head sha>'\n```",
		"`review-package '<plan file>' '<merge base sha>' '<head sha>'`",
	}
	bad := []string{
		"`review-package BASE HEAD`",
		"`review-package PLAN_FILE HEAD BASE`",
		"`review-package BASE PLAN_FILE HEAD`",
		"`review-package PLAN_FILE BASE HEAD OUT extra`",
		"`review-package PLAN_FILE HEAD~1 HEAD`",
		"`task-brief PLAN_FILE TASK`",
		"`task-brief PLAN_FILE [OUTFILE]`",
		"`task-brief N PLAN_FILE`",
		"`sdd-workspace PLAN_FILE N`",
		"```sh\nreview-package \"$PLAN_FILE\" HEAD~1 HEAD\n```",
		"```sh\ntask-brief \"$PLAN\" 1\n```",
		"```sh\ntask-brief <N> '<plan file>'\n```",
		"```sh\nreview-package '<plan file>' '<head sha>' '<base sha>'\n```",
		"```sh\nreview-package '<plan file>' '<base sha>'\n```",
		"`sdd-workspace '<workspace>'`",
	}
	check := func(text string) []string {
		var msgs []string
		invs := Invocations(text, commandNames)
		require.Len(t, invs, 1, "%q", text)
		for _, inv := range invs {
			if m := checkInvocation(u[inv.Cmd], inv); m != "" {
				msgs = append(msgs, m)
			}
		}
		return msgs
	}
	for _, s := range good {
		assert.Empty(t, check(s), s)
	}
	for _, s := range bad {
		assert.NotEmpty(t, check(s), s)
	}
	// The binary renames BASE to FROM: the text's BASE no longer fits.
	renamed := u["review-package"]
	renamed.Required = []string{"PLAN_FILE", "FROM", "HEAD"}
	inv := Invocations("`review-package PLAN_FILE BASE HEAD`", commandNames)[0]
	assert.NotEmpty(t, checkInvocation(renamed, inv))
}
