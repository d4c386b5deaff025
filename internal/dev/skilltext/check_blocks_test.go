package skilltext

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Check 3: the blocks a controller runs. A host starts a new shell for
// every Bash call and keeps the working directory between calls, so a
// block must parse on its own, never cd, read only variables it sets, and
// keep its one destructive command literal; the controller types no sha,
// only the placeholders the text defines; and it finds a block by its
// bold name.
//
// Naming rule: every block of SKILL.md and resume.md is a step block and
// is named by the first bold phrase of the paragraph right before its
// fence; the one exception is a block that shows a ledger (it starts with
// the identity line: the Ledger lines block). manual.md's blocks are not
// steps: each stands in for a command inside a step's block, and its
// section says which.
//
// Placeholder rule: SKILL.md's blocks use the placeholders of its table
// (the table whose header cell is "Placeholder"). A side file (resume.md,
// manual.md) may also use placeholders it declares itself, by naming each
// alone in a code span of its prose, above the first block that uses it.

const manualMD = "skill/manual.md"

// runFiles are the files whose ```sh blocks a controller runs.
var runFiles = []string{skillMD, "skill/resume.md", manualMD}

// samples are the values the checks put in for the placeholders: several
// where the text allows several shapes (<minors> may be nothing).
var samples = map[string][]string{
	"<plan file>":     {"docs/plans/greet.md"},
	"<workspace>":     {"/src/shop/.superpowers/sdd/greet"},
	"<skill dir>":     {"/home/u/.claude/skills/subagent-driven-development"},
	"<N>":             {"2"},
	"<R>":             {"3"},
	"<X>":             {"1"},
	"<Y>":             {"1"},
	"<K>":             {"1"},
	"<start branch>":  {"main"},
	"<agent id>":      {"impl-2"},
	"<who>":           {"Task 2", "Final"},
	"<minors>":        {"'log message says retrys' 'naming drift - cli vs greet'", ""},
	"<open findings>": {"F2 off-by-one in Parse; F3 leak in Close", "none"},
	"<outcome>":       {"review clean", "1 parked"},
	"<check>":         {"true", "go test ./..."},
	"<first>":         {"1"},
	"<last>":          {"2"},
	"<old workspace>": {"/src/shop/.superpowers/sdd/greet-plans"},
	"<finding>":       {"F2 off-by-one in Parse"},
	"<why>":           {"the reviewer misread the loop bound"},
	"<reason>":        {"F3 leak in Close breaks the pool of Task 4"},
}

// instances are the block's body with its placeholders replaced, once
// per combination of the samples; an error names a placeholder without a
// sample.
func instances(body string) ([]string, error) {
	out := []string{body}
	seen := map[string]bool{}
	for _, p := range placeholderRe.FindAllString(body, -1) {
		if seen[p] {
			continue
		}
		seen[p] = true
		vals, ok := samples[p]
		if !ok {
			return nil, fmt.Errorf("no sample value for %s (add one to samples)", p)
		}
		var next []string
		for _, b := range out {
			for _, v := range vals {
				next = append(next, strings.ReplaceAll(b, p, v))
			}
		}
		out = next
	}
	return out, nil
}

func where(b block, line int) string { return fmt.Sprintf("%s:%d", b.File, b.Line+line) }

// allowedEnv are the variables a block may read without setting them.
var allowedEnv = map[string]bool{"HOME": true, "PATH": true, "PWD": true,
	"?": true, "#": true, "$": true, "!": true, "-": true, "0": true, "@": true, "*": true}

var (
	shaRe       = regexp.MustCompile(`(?:^|[^0-9A-Za-z_])([0-9a-f]{7,40})(?:[^0-9A-Za-z_]|$)`)
	hexDigitRe  = regexp.MustCompile(`[0-9]`)
	hexLetterRe = regexp.MustCompile(`[a-f]`)
)

var rmWordRe = regexp.MustCompile(`(^|[^A-Za-z0-9_-])rm($|[^A-Za-z0-9_-])`)

// typedShas are the 7- to 40-digit hex literals of a text that hold a
// digit and a letter (a word like "defaced" is not a sha).
func typedShas(s string) []string {
	var out []string
	for _, m := range shaRe.FindAllStringSubmatch(s, -1) {
		if hexDigitRe.MatchString(m[1]) && hexLetterRe.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// recursiveRm reports an rm with a recursive flag, and its operands.
func recursiveRm(c shCmd) (bool, []shWord) {
	if c.name() != "rm" {
		return false, nil
	}
	rec, opts := false, true
	var operands []shWord
	for _, w := range c.words[1:] {
		switch {
		case opts && w.raw == "--":
			opts = false
		case opts && w.raw == "--recursive":
			rec = true
		case opts && strings.HasPrefix(w.raw, "-") && !strings.HasPrefix(w.raw, "--"):
			rec = rec || strings.ContainsAny(w.raw, "rR")
		default:
			operands = append(operands, w)
		}
	}
	return rec, operands
}

// checkShell holds the blocks to what a fresh shell per call allows:
// (b) no cd (manual.md's recipe may cd inside $(…), which moves nothing),
// (c) no variable a block reads without setting it (manual.md's package
// block reads the $b and $h of the block it is spliced into), (d) a
// recursive rm only on the literal '<workspace>', anywhere in the skill's
// files, blocks and inline code alike, and (e) no typed sha in a step
// block or a recipe.
func checkShell(x skillText) []string {
	var p []string
	for _, b := range x.shBlocks(runFiles...) {
		s, err := parseSh(b.Body)
		if err != nil {
			p = append(p, fmt.Sprintf("%s: the block does not read as shell: %v", where(b, 0), err))
			continue
		}
		for _, c := range s.cmds {
			if n := c.name(); (n == "cd" || n == "pushd" || n == "popd") && (b.File != manualMD || c.depth == 0) {
				p = append(p, fmt.Sprintf("%s: the block runs %s: the host keeps the working directory for every later call", where(b, c.line), n))
			}
		}
		if b.File != manualMD {
			for _, r := range s.refs {
				if s.assigned[r.name] || allowedEnv[r.name] || isDigits(r.name) && s.assigned["@"] {
					continue
				}
				p = append(p, fmt.Sprintf("%s: the block reads $%s, which it never sets: a fresh shell has no such variable", where(b, r.line), r.name))
			}
		}
	}
	for _, b := range append(x.stepBlocks(), x.shBlocks(manualMD)...) {
		for _, sha := range typedShas(b.Body) {
			p = append(p, fmt.Sprintf("%s: the block holds the typed sha %s: blocks compute shas or read them from the ledger", where(b, 0), sha))
		}
	}
	rmCheck := func(at string, src string) {
		if !rmWordRe.MatchString(src) {
			return
		}
		s, err := parseSh(src)
		if err != nil {
			return // prose spans are not all shell; the blocks are checked above
		}
		for _, c := range s.cmds {
			rec, operands := recursiveRm(c)
			if !rec {
				continue
			}
			for _, o := range operands {
				if o.raw != "'<workspace>'" {
					p = append(p, fmt.Sprintf("%s: rm -r on %s: only the literal '<workspace>' may be deleted, never a variable, a substitution or an assembled path", at, o.raw))
				}
			}
		}
	}
	for _, f := range x.files("skill") {
		for _, b := range x.blocks(f) {
			if b.Lang() == "sh" || b.Lang() == "" || b.Lang() == "bash" {
				rmCheck(where(b, 0), b.Body)
			}
		}
		for _, sp := range InlineCode(x[f]) {
			rmCheck(fmt.Sprintf("%s:%d", f, sp.Line), sp.Text)
		}
	}
	return p
}

func TestShell(t *testing.T) {
	requireClean(t, checkShell(loadText(t)))
}

func TestShellCatches(t *testing.T) {
	x := loadText(t)
	const finish = "rm -rf '<workspace>'\n"
	for name, c := range map[string]struct {
		broken skillText
		want   string
	}{
		"a cd":                   {x.edit(t, skillMD, "L='<workspace>/progress.md'\nprintf 'Task <N>: implementer", "cd '<workspace>' && L=progress.md\nprintf 'Task <N>: implementer"), "runs cd"},
		"a cd in resume.md":      {x.edit(t, "skill/resume.md", "set -C\n", "set -C\ncd '<workspace>'\n"), "runs cd"},
		"a cd in a recipe":       {x.edit(t, manualMD, "mkdir -p \"$sdd\" || exit 1\n", "mkdir -p \"$sdd\" || exit 1\ncd \"$sdd\"\n"), "runs cd"},
		"a variable of another":  {x.edit(t, skillMD, "L='<workspace>/progress.md'\n<check> || exit 1\n", "<check> || exit 1\n"), "reads $L, which it never sets"},
		"a variable in a subst":  {x.edit(t, skillMD, "\"$(git rev-parse --short \"$b\")\" \"$(git rev-parse --short \"$h\")\" '<outcome>'", "\"$(git rev-parse --short \"$base\")\" \"$(git rev-parse --short \"$h\")\" '<outcome>'"), "reads $base"},
		"positionals never set":  {x.edit(t, skillMD, "set -- $(sed", "echo $(sed"), "reads $1"},
		"a variable in ${…}":     {x.edit(t, "skill/resume.md", "${f##*/}", "${g##*/}"), "reads $g"},
		"rm on a variable":       {x.edit(t, skillMD, finish, "ws='<workspace>'; rm -rf \"$ws\"\n"), "rm -r on \"$ws\""},
		"rm on a substitution":   {x.edit(t, skillMD, finish, "rm -rf \"$(sdd-workspace '<plan file>')\"\n"), "rm -r on \"$(sdd-workspace"},
		"rm on an assembled one": {x.edit(t, skillMD, finish, "rm -rf '<workspace>'/../sdd\n"), "rm -r on '<workspace>'/../sdd"},
		"rm -r -f split":         {x.edit(t, skillMD, finish, "rm -r -f -- .superpowers/sdd\n"), "rm -r on .superpowers/sdd"},
		"rm in prose":            {x.edit(t, skillMD, "deletes this plan's workspace,", "deletes this plan's workspace (`rm -rf \"$ws\"`),"), "rm -r on \"$ws\""},
		"a typed sha":            {x.edit(t, skillMD, "b=$(git merge-base '<start branch>' HEAD)", "b=ae3baa5c070bbbba209d1875d6dcd8899a3025aa"), "typed sha ae3baa5c070bbbba209d1875d6dcd8899a3025aa"},
		"a typed short sha":      {x.edit(t, "skill/resume.md", "\"$(git rev-parse --short \"$b\")\"", "'ae3baa5'"), "typed sha ae3baa5"},
		"a sha in a dispatch":    {x.edit(t, skillMD, "Package: <package> (<bytes> bytes)\nLedger:", "Package: review-ae3baa5..4524ac6.diff\nLedger:"), "typed sha ae3baa5"},
		"unreadable shell":       {x.edit(t, skillMD, "printf 'Final: base=%s\\n' \"$b\"", "printf 'Final: base=%s\\n' \"$b"), "does not read as shell"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, checkShell(c.broken), c.want) })
	}
}

// checkParses runs sh -n and bash -n on every block of SKILL.md,
// resume.md and manual.md, with every combination of sample values.
func checkParses(x skillText, shells []string) []string {
	var p []string
	for _, b := range x.shBlocks(runFiles...) {
		insts, err := instances(b.Body)
		if err != nil {
			p = append(p, fmt.Sprintf("%s: %v", where(b, 0), err))
			continue
		}
		for _, sh := range shells {
			for _, script := range insts {
				out, err := exec.Command(sh, "-n", "-c", script).CombinedOutput()
				if err != nil {
					p = append(p, fmt.Sprintf("%s: %s -n refuses the block (%v): %s\n%s", where(b, 0), sh, err, strings.TrimSpace(string(out)), script))
				}
			}
		}
	}
	return p
}

func TestBlocksParse(t *testing.T) {
	requireClean(t, checkParses(loadText(t), posixShells(t)))
}

func TestBlocksParseCatches(t *testing.T) {
	shells := posixShells(t)
	x := loadText(t)
	for name, c := range map[string]struct {
		broken skillText
		want   string
	}{
		"an unclosed if": {x.edit(t, skillMD, "else review-package '<plan file>' \"$f\" \"$h\" || exit 1; fi", "else review-package '<plan file>' \"$f\" \"$h\" || exit 1"), "-n refuses"},
		"a bad case":     {x.edit(t, manualMD, "    *) ws=$sdd/$slug-$parent-$i ;;\n  esac", "    *) ws=$sdd/$slug-$parent-$i ;;\n  esca"), "-n refuses"},
		"no sample":      {x.edit(t, skillMD, "'<agent id>' >> \"$L\"", "'<agent name>' >> \"$L\""), "no sample value for <agent name>"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, checkParses(c.broken, shells), c.want) })
	}
}

// checkPlaceholders: SKILL.md's blocks use only the table's placeholders,
// a side file's blocks those and the ones it declares above them, and
// every placeholder of the table is used by some block.
func checkPlaceholders(x skillText) []string {
	var p []string
	table := placeholderTable(x[skillMD])
	if len(table) == 0 {
		return []string{"SKILL.md: no placeholder table (a table whose first header cell is Placeholder)"}
	}
	own := map[string]map[string]int{}
	for _, f := range sideDeclaring {
		own[f] = declared(x[f])
	}
	for _, b := range x.shBlocks(runFiles...) {
		for _, ph := range placeholderRe.FindAllString(b.Body, -1) {
			if table[ph] {
				continue
			}
			line, ok := own[b.File][ph]
			switch {
			case !ok && b.File == skillMD:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which the placeholder table does not list", where(b, 0), ph))
			case !ok:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which neither the placeholder table nor %s's prose (a code span holding it alone, above the block) declares", where(b, 0), ph, b.File))
			case line > b.Line:
				p = append(p, fmt.Sprintf("%s: the block uses %s, which %s declares only below it, on line %d", where(b, 0), ph, b.File, line))
			}
		}
	}
	used := map[string]bool{}
	for _, f := range x.files("skill") {
		for _, b := range x.blocks(f) {
			for _, ph := range placeholderRe.FindAllString(b.Body, -1) {
				used[ph] = true
			}
		}
	}
	var unused []string
	for ph := range table {
		if !used[ph] {
			unused = append(unused, ph)
		}
	}
	sort.Strings(unused)
	for _, ph := range unused {
		p = append(p, fmt.Sprintf("SKILL.md: the placeholder table lists %s, which no block uses", ph))
	}
	return p
}

func TestPlaceholders(t *testing.T) {
	requireClean(t, checkPlaceholders(loadText(t)))
}

func TestPlaceholdersCatch(t *testing.T) {
	x := loadText(t)
	for name, c := range map[string]struct {
		broken skillText
		want   string
	}{
		"one not in the table":    {x.edit(t, skillMD, "'<agent id>' >> \"$L\"", "'<agent name>' >> \"$L\""), "uses <agent name>, which the placeholder table does not list"},
		"one the table lost":      {x.edit(t, skillMD, "| `<start branch>` |", "| start branch |"), "uses <start branch>, which the placeholder table does not list"},
		"an unused table row":     {x.edit(t, skillMD, "| `<agent id>` |", "| `<agent id>`, `<model>` |"), "lists <model>, which no block uses"},
		"a side file undeclared":  {x.edit(t, "skill/resume.md", "`<first>` and `<last>` are", "The first and the last are"), "uses <first>, which neither"},
		"declared below":          {x.edit(t, "skill/resume.md", "\nThen run **Look** again", "\n(`<old workspace>`: the old one.)\nThen run **Look** again").edit(t, "skill/resume.md", "that\n`<old workspace>` belongs", "that\nan old workspace belongs"), "declares only below it"},
		"no table":                {x.edit(t, skillMD, "| Placeholder | Value |", "| Name | Value |"), "no placeholder table"},
		"manual.md's own unknown": {x.edit(t, manualMD, "plan='<plan file>'", "plan='<plan path>'"), "uses <plan path>"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, checkPlaceholders(c.broken), c.want) })
	}
}

// checkNames: every step block has a name, no two share one, and every
// bold phrase of the skill's prose that mentions a block (one that starts
// with a capital and does not open its paragraph or list item; in a table
// cell, any) is the name of a block.
func checkNames(x skillText) []string {
	var p []string
	names := map[string]string{}
	for _, b := range x.stepBlocks() {
		switch prev, dup := names[b.Name]; {
		case b.Name == "":
			p = append(p, fmt.Sprintf("%s: a block without a name (no bold phrase in the paragraph right before it)", where(b, 0)))
		case dup:
			p = append(p, fmt.Sprintf("%s: a second block named %q (the first at %s)", where(b, 0), b.Name, prev))
		default:
			names[b.Name] = where(b, 0)
		}
	}
	for _, f := range x.files("skill") {
		for _, u := range bolds(x[f]) {
			if u.Leading || u.Text == "" || !strings.ContainsAny(u.Text[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				continue
			}
			if _, ok := names[u.Text]; !ok {
				p = append(p, fmt.Sprintf("%s:%d: **%s** names no block", f, u.Line, u.Text))
			}
		}
	}
	return p
}

func TestNames(t *testing.T) {
	requireClean(t, checkNames(loadText(t)))
}

func TestNamesCatch(t *testing.T) {
	x := loadText(t)
	for name, c := range map[string]struct {
		broken skillText
		want   string
	}{
		"a block without a name": {x.edit(t, skillMD, "**Record the round**:", "record the round:"), "a block without a name"},
		"two blocks, one name":   {x.edit(t, "skill/resume.md", "**Carry over** a plan", "**Look** a plan"), "a second block named \"Look\""},
		"a mention of no block":  {x.edit(t, "skill/example.md", "Bash: **Build the package** with", "Bash: **Build package** with"), "**Build package** names no block"},
		"a renamed block":        {x.edit(t, skillMD, "When it is DONE, **Build the package** records", "When it is DONE, **Package** records"), "**Build the package** names no block"},
		"a mention in resume.md": {x.edit(t, "skill/resume.md", "Then run **Look** again", "Then run **Look again**"), "**Look again** names no block"},
		"a mention in a table":   {x.edit(t, skillMD, "| **Build the package** (no report", "| **Build package** (no report"), "**Build package** names no block"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, checkNames(c.broken), c.want) })
	}
}

// namedBlock is the step block called name.
func (x skillText) namedBlock(t *testing.T, name string) block {
	t.Helper()
	var found []block
	for _, b := range x.stepBlocks() {
		if b.Name == name {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d step blocks are named %q, not one", len(found), name)
	}
	return found[0]
}

// constraintsPlan has a Global Constraints section with a subsection and
// a fenced block whose shell comment looks like a heading, and a task
// whose fenced comment mentions constraints.
const constraintsPlan = "# Plan\n\n## Global Constraints\n- Use Go 1.22.\n```sh\n# build everything\ngo build ./...\n```\n- Never log secrets.\n\n### Limits\n- 1 MB.\n\n## Task 1: One\nDo one.\n```sh\n# check the constraints hold\nmake lint\n```\n"

const constraintsWant = "## Global Constraints\n- Use Go 1.22.\n```sh\n# build everything\ngo build ./...\n```\n- Never log secrets.\n\n### Limits\n- 1 MB.\n\n"

// startTheRunConstraints runs Start the run in a scratch workspace and
// returns the constraints file it writes for constraintsPlan.
func startTheRunConstraints(t *testing.T, x skillText, shell string) string {
	t.Helper()
	dir := testutil.RealTempDir(t)
	ws := filepath.Join(dir, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	plan := filepath.Join(dir, "plan.md")
	require.NoError(t, os.WriteFile(plan, []byte(constraintsPlan), 0o644))
	script := strings.NewReplacer("<workspace>", ws, "<plan file>", plan).Replace(x.namedBlock(t, "Start the run").Body)
	r := testutil.RunIn(dir, hermeticEnv(filepath.Join(dir, "home")), shell, "-c", script)
	require.Equal(t, 0, r.Code, r.Stderr)
	return fileText(t, filepath.Join(ws, "constraints.md"))
}

// TestStartTheRunKeepsTheConstraints: the Global Constraints the
// subagents get are the plan's section whole, fenced blocks included,
// and nothing of a task; a line starting with # inside a fence is code,
// not a heading (as for task-brief).
func TestStartTheRunKeepsTheConstraints(t *testing.T) {
	sh := posixShells(t)[0]
	x := loadText(t)
	assert.Equal(t, constraintsWant, startTheRunConstraints(t, x, sh))

	// What a fence-blind extraction loses shows on the plan; the
	// fence-aware one the report proposes keeps it.
	const blind = "awk '/^#+ / {"
	if strings.Contains(x[skillMD], blind) {
		fixed := x.edit(t, skillMD, blind, "awk '/^```/ { f = !f } !f && /^#+ / {")
		assert.Equal(t, constraintsWant, startTheRunConstraints(t, fixed, sh), "the proposed fix")
	}
}
