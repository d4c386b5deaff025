package skilltext

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A host may run every tool call in a new shell, so the text's commands
// must not lean on shell variables set by an earlier command, and a
// destructive one must never take a variable at all (`rm -rf "$WS"` with
// WS unset deletes nothing, or, one slip away, far too much). The tests
// here hold the text to that: statically, and by running every command
// block of SKILL.md, in order, each in its own shell with an empty
// environment, against the real commands in a real repository.

var angleRe = regexp.MustCompile(`<[A-Za-z0-9][A-Za-z0-9 ]*>`)

// documentedPlaceholders reads the placeholder table of SKILL.md's
// "Writing commands" section: the rows whose first cell is a code span
// holding one <placeholder>.
func documentedPlaceholders(t *testing.T, skill string) map[string]bool {
	t.Helper()
	section := markdownSection(t, skill, "Writing commands")
	out := map[string]bool{}
	span := regexp.MustCompile("`(<[^`>]+>)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		for _, m := range span.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = true
		}
	}
	require.NotEmpty(t, out, "SKILL.md's Writing commands section has a placeholder table")
	return out
}

// markdownSection is the text under the "## <title>" heading, up to the
// next heading of level two.
func markdownSection(t *testing.T, text, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n## "+title+"\n")
	require.True(t, ok, "a section ## %s", title)
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") && !insideFence(lines[:i]) {
			return strings.Join(lines[:i], "\n")
		}
	}
	return rest
}

func insideFence(lines []string) bool {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			n++
		}
	}
	return n%2 == 1
}

// shellBlocks are the top-level ```sh blocks of a markdown text.
func shellBlocks(text string) []Fence {
	var out []Fence
	for _, f := range Fences(text) {
		if f.Depth == 0 && f.Lang() == "sh" {
			out = append(out, f)
		}
	}
	return out
}

func TestShellBlocksUseOnlyDocumentedPlaceholders(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	documented := documentedPlaceholders(t, skill)
	used := map[string]bool{}
	for _, name := range skillFiles(t) {
		for _, f := range shellBlocks(readSkillFile(t, name)) {
			for _, p := range angleRe.FindAllString(f.Body, -1) {
				used[p] = true
				assert.True(t, documented[p], "%s:%d: %s is not in the placeholder table of Writing commands", name, f.Line, p)
			}
		}
	}
	for p := range documented {
		assert.True(t, used[p], "the table documents %s, which no command block uses", p)
	}
}

var (
	rmRecursiveRe = regexp.MustCompile(`\brm\s+(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)\b`)
	varRefRe      = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	assignRe      = regexp.MustCompile(`(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=`)
	forVarRe      = regexp.MustCompile(`\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b`)
	literalRmRe   = regexp.MustCompile(`^rm -rf '(?:<workspace>|/[^'$` + "`" + `]*/\.superpowers/sdd/[^'/$` + "`" + `]+)'$`)
)

// TestNoDestructiveCommandTakesAVariable: every recursive rm in the
// skill's files, in a command block or in inline code, names its target
// literally, as the single-quoted path sdd-workspace printed, never
// through a variable or a substitution. (A bare `rm -rf` in prose, with
// no target, is a mention, not a command.)
func TestNoDestructiveCommandTakesAVariable(t *testing.T) {
	var seen int
	check := func(where, cmd string) {
		seen++
		assert.NotContains(t, cmd, "$", "%s: a recursive rm takes a variable or a substitution: %s", where, cmd)
		assert.Regexp(t, literalRmRe, cmd, "%s: a recursive rm whose target is not the literal workspace path", where)
	}
	for _, name := range skillFiles(t) {
		text := readSkillFile(t, name)
		for _, f := range Fences(text) {
			for i, line := range strings.Split(f.Body, "\n") {
				if rmRecursiveRe.MatchString(line) {
					check(fmt.Sprintf("%s:%d", name, f.Line+1+i), strings.TrimSpace(line))
				}
			}
		}
		for _, sp := range InlineCode(text) {
			if rmRecursiveRe.MatchString(sp.Text) && len(strings.Fields(sp.Text)) > 2 {
				check(fmt.Sprintf("%s:%d", name, sp.Line), sp.Text)
			}
		}
		for i, line := range strings.Split(Prose(text), "\n") {
			assert.NotRegexp(t, `rm -[a-z]*r[a-z]* +"?\$`, line, "%s:%d", name, i+1)
		}
	}
	assert.GreaterOrEqual(t, seen, 2, "the text deletes the workspace (Finish, worked example)")
}

// TestNoShellVariableCrossesBlocks: a variable a command block reads is
// set in that same block.
func TestNoShellVariableCrossesBlocks(t *testing.T) {
	for _, name := range skillFiles(t) {
		for _, f := range shellBlocks(readSkillFile(t, name)) {
			set := map[string]bool{}
			for _, m := range assignRe.FindAllStringSubmatch(f.Body, -1) {
				set[m[1]] = true
			}
			for _, m := range forVarRe.FindAllStringSubmatch(f.Body, -1) {
				set[m[1]] = true
			}
			for _, m := range varRefRe.FindAllStringSubmatch(f.Body, -1) {
				assert.True(t, set[m[1]], "%s:%d: the block reads $%s, which it does not set: a fresh shell has no such variable", name, f.Line, m[1])
			}
		}
	}
}

// TestNoBlockUsesAValueItPrints: a command that prints a value the text
// names (a sha, the workspace) and a command that needs that value written
// in cannot share a block: the value is unknown until the first has run.
func TestNoBlockUsesAValueItPrints(t *testing.T) {
	printers := map[string][]string{
		"git rev-parse HEAD": {"<head sha>", "<base sha>"},
		"git merge-base":     {"<merge base sha>"},
		"sdd-workspace '":    {"<workspace>"},
	}
	for _, name := range skillFiles(t) {
		for _, f := range shellBlocks(readSkillFile(t, name)) {
			for cmd, values := range printers {
				if !strings.Contains(f.Body, cmd) {
					continue
				}
				for _, v := range values {
					assert.NotContains(t, f.Body, v, "%s:%d: the block runs %s and already needs %s, which it prints", name, f.Line, cmd, v)
				}
			}
		}
	}
}

// blockRunner runs command blocks the way a host that starts a new shell
// per tool call would: sh with an environment holding only PATH (the
// commands and git) and HOME, in the repository root. -e and -u make a
// failing command or an unset variable fail the block.
type blockRunner struct {
	t      *testing.T
	sh     string
	dir    string
	env    []string
	values map[string]string // placeholder or literal → value
}

func newBlockRunner(t *testing.T, dir string) *blockRunner {
	t.Helper()
	requireBinaries(t)
	sh, err := exec.LookPath("sh")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("no POSIX shell on this host")
	}
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	home := t.TempDir()
	path := strings.Join([]string{binDir, filepath.Dir(gitPath), filepath.Dir(sh), "/usr/bin", "/bin"}, string(os.PathListSeparator))
	return &blockRunner{t: t, sh: sh, dir: dir, env: []string{"PATH=" + path, "HOME=" + home}, values: map[string]string{}}
}

// substitute replaces the placeholders and mapped literals of a block;
// the longest keys go first, so "<fix base sha>" is not read as "<base sha>".
func (b *blockRunner) substitute(body string) string {
	keys := make([]string, 0, len(b.values))
	for k := range b.values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		body = strings.ReplaceAll(body, k, b.values[k])
	}
	return body
}

func (b *blockRunner) run(f Fence) (string, result) {
	b.t.Helper()
	script := b.substitute(f.Body)
	require.NotRegexp(b.t, angleRe, script, "SKILL.md:%d: a placeholder left without a value", f.Line)
	return script, runIn(b.t, b.dir, b.env, b.sh, "-eu", "-c", script)
}

const searchPlan = "# Search\n\n### Task 1: Index\nBuild the index.\n\n### Task 2: Query\nAnswer queries.\n"

// TestEveryShellBlockRunsInAFreshShell runs every command block of
// SKILL.md, in the order the text gives them, each in its own empty
// shell, with the documented placeholders replaced by real values (and
// the worked example's literal repository path and shas by real ones).
// Every block must succeed, and the blocks whose result the text names
// must give it: the workspace path, a fresh ledger, "this plan", the
// deletion of the workspace, and manual recipes that make what the
// commands make.
func TestEveryShellBlockRunsInAFreshShell(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	const plan = "docs/plans/demo.md"
	// Task 12 after Task 1: a brief of Task 1 must not run on into it.
	s.write(plan, demoPlan+"\n### Task 12: Later\nNot part of Task 1.\n")
	s.write("docs/plans/search.md", searchPlan)
	s.write("docs/plans/other.md", "# Other\n\n### Task 1: x\nx\n")
	// A long file the branch changes in its middle, so the package's
	// context width shows in the diff.
	var long strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	m0 := s.commit("greet.txt", long.String(), "plans")
	s.git("checkout", "-q", "-b", "feature/demo")
	s.commit("greet.txt", strings.Replace(long.String(), "line 20\n", "helo\n", 1), "Task 1: greet")
	t2 := s.commit("greet_test.txt", "check\n", "Task 1: check")
	head := s.commit("greet.txt", strings.Replace(long.String(), "line 20\n", "hello\n", 1), "Task 1: fix spelling")

	// Leftovers the run must not touch: another plan's workspace and the
	// old flat ledger.
	r := s.cmd("sdd-workspace", "docs/plans/other.md")
	require.Equal(t, 0, r.code, r.stderr)
	otherWS := strings.TrimSuffix(r.stdout, "\n")
	flat := filepath.Join(s.root, ".superpowers", "sdd", "progress.md")
	s.write(".superpowers/sdd/progress.md", "# SDD ledger — plan: docs/plans/old.md\n")

	b := newBlockRunner(t, s.root)
	for k, v := range map[string]string{
		"<plan file>": plan, "<N>": "1", "<base sha>": m0, "<head sha>": head,
		"<fix base sha>": t2, "<merge base sha>": m0, "<start branch>": "main",
		"<agent id>": "agent-1", "<ledger path>": "./" + plan,
		"<base7>": s.short(m0), "<head7>": s.short(head),
	} {
		b.values[k] = v
	}
	// The worked example writes its values in: its repository root and its
	// shas, in the order they first appear (BASE, the reviewed head, the
	// fix), stand for this repository's.
	_, example, ok := strings.Cut(skill, "\n## Worked example\n")
	require.True(t, ok)
	example, _, _ = strings.Cut(example, "\n## Without the commands\n")
	var shas []string
	for _, f := range shellBlocks(example) {
		for _, m := range regexp.MustCompile(`\b[0-9a-f]{40}\b`).FindAllString(f.Body, -1) {
			if !contains(shas, m) {
				shas = append(shas, m)
			}
		}
	}
	require.Len(t, shas, 3, "the worked example's commands carry BASE, the reviewed head and the fix head in full")
	for i, real := range []string{m0, t2, head} {
		b.values[shas[i]] = real
	}
	b.values["/src/shop"] = filepath.ToSlash(s.root)

	blocks := shellBlocks(skill)
	require.GreaterOrEqual(t, len(blocks), 15)
	var ran []string
	var ledger string
	fired := map[string]int{}
	formats := LedgerFormats(skill)
	for _, f := range blocks {
		if angleRe.MatchString(f.Body) && strings.Contains(f.Body, "<workspace>") {
			require.Contains(t, b.values, "<workspace>", "SKILL.md:%d uses <workspace> before any block ran sdd-workspace", f.Line)
		}
		script, r := b.run(f)
		require.Equal(t, 0, r.code, "SKILL.md:%d: the block fails in a fresh shell\n%s\nstderr: %s", f.Line, script, r.stderr)
		ran = append(ran, script)
		body := strings.TrimSpace(f.Body)
		hook := func(name string) bool { fired[name]++; return true }
		switch {
		case body == "sdd-workspace '<plan file>'" && hook("workspace"):
			ws := strings.TrimSuffix(r.stdout, "\n")
			require.Equal(t, filepath.Join(s.root, ".superpowers", "sdd", "demo"), ws)
			b.values["<workspace>"] = ws
			ledger = filepath.Join(ws, "progress.md")
		case strings.HasPrefix(body, "sdd-workspace docs/plans/search.md") && hook("example workspace"):
			assert.Equal(t, filepath.Join(s.root, ".superpowers", "sdd", "search")+"\n", r.stdout, "the example's printed path, in this repository")
		case strings.Contains(body, "'<workspace>/progress.md'") && !strings.Contains(body, "printf") && hook("ledger check"):
			assert.Equal(t, "no ledger\n", r.stdout, "SKILL.md:%d on a first run", f.Line)
		case strings.Contains(body, "'<ledger path>'") && hook("identity check"):
			assert.Equal(t, "this plan\n", r.stdout, "SKILL.md:%d: ./%s and %s are one plan", f.Line, plan, plan)
		case strings.Contains(body, "'# SDD ledger — plan: <plan file>'") && hook("ledger creation"):
			assert.Equal(t, IdentityPrefix+plan+"\n", readString(t, ledger))
			// Run again: the ledger exists, and the block must refuse to
			// overwrite it.
			_, again := b.run(f)
			assert.NotEqual(t, 0, again.code, "SKILL.md:%d overwrites an existing ledger", f.Line)
			assert.Equal(t, IdentityPrefix+plan+"\n", readString(t, ledger))
		case strings.HasPrefix(body, "rm -rf '<workspace>'") && hook("finish"):
			assert.NoDirExists(t, b.values["<workspace>"], "Finish deletes the workspace")
			assert.DirExists(t, otherWS, "a sibling workspace stays")
			assert.Equal(t, "# SDD ledger — plan: docs/plans/old.md\n", readString(t, flat), "the flat ledger stays")
		case strings.HasPrefix(body, "rm -rf '/src/shop/") && hook("example finish"):
			assert.NoDirExists(t, filepath.Join(s.root, ".superpowers", "sdd", "search"))
			assert.DirExists(t, otherWS)
		case strings.Contains(body, "plan-path") && hook("manual workspace"):
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			assert.Equal(t, b.values["<workspace>"], lines[len(lines)-1], "the manual workspace is the one sdd-workspace printed")
			assert.Equal(t, plan+"\n", readString(t, filepath.Join(b.values["<workspace>"], "plan-path")), "the manual marker")
			assert.Equal(t, "*\n", readString(t, filepath.Join(s.root, ".superpowers", "sdd", ".gitignore")))
		case strings.Contains(body, "task-<N>-brief.md") && hook("manual brief"):
			manual := readString(t, filepath.Join(b.values["<workspace>"], "task-1-brief.md"))
			want, _ := wroteLine(t, s.cmd("task-brief", plan, "1"))
			assert.Equal(t, readString(t, want), manual, "the manual brief is the one task-brief writes")
		case strings.Contains(body, "# Review package:") && hook("manual package"):
			name := filepath.Join(b.values["<workspace>"], "review-"+s.short(m0)+".."+s.short(head)+".diff")
			manual := readString(t, name)
			want, _ := wroteLine(t, s.cmd("review-package", plan, m0, head))
			assert.Equal(t, name, want, "the manual package has review-package's file name")
			assert.Equal(t, readString(t, want), manual, "the manual package is the one review-package writes")
		}
		// Every line the blocks append to the ledger has a ledger format.
		if strings.Contains(body, ">> '<workspace>/progress.md'") {
			lines := strings.Split(strings.TrimSuffix(readString(t, ledger), "\n"), "\n")
			last := lines[len(lines)-1]
			assert.True(t, matchesSomeFormat(t, formats, last), "SKILL.md:%d appends %q, which has no ledger format", f.Line, last)
		}
	}
	for _, h := range []string{"workspace", "example workspace", "ledger check", "identity check", "ledger creation",
		"finish", "example finish", "manual workspace", "manual brief", "manual package"} {
		assert.Equal(t, 1, fired[h], "one block of SKILL.md does the %s", h)
	}
	all := strings.Join(ran, "\n")
	for _, want := range []string{"sdd-workspace ", "task-brief ", "review-package ", "rm -rf ", "git rev-parse HEAD", "git merge-base "} {
		assert.Contains(t, all, want, "the blocks run %s", want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func matchesSomeFormat(t *testing.T, formats []string, line string) bool {
	t.Helper()
	for _, s := range formats {
		f, err := CompileFormat(s)
		require.NoError(t, err)
		if _, ok := f.Match(line); ok {
			return true
		}
	}
	return false
}
