package skilltext

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const demoPlan = "# Demo plan\n" +
	"\n" +
	"## Global Constraints\n" +
	"- Plain text files only.\n" +
	"\n" +
	"### Task 1: Greeting\n" +
	"Create greet.txt containing `hello`.\n" +
	"```sh\n" +
	"### Task 2: this line is inside a fence, not a heading\n" +
	"```\n" +
	"\n" +
	"### Task 2: Farewell\n" +
	"Create bye.txt containing `bye`.\n" +
	"\n" +
	"## Final Review\n" +
	"Check both files.\n"

// sandbox is a throwaway repository with a hermetic environment.
type sandbox struct {
	t    *testing.T
	root string // as git prints it
	env  []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	requireBinaries(t)
	base := t.TempDir()
	home := filepath.Join(base, "home")
	repo := filepath.Join(base, "repo")
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.MkdirAll(repo, 0o755))
	s := &sandbox{t: t, root: repo, env: hermeticEnv(home)}
	s.git("init", "-q", "-b", "main")
	s.root = filepath.FromSlash(s.git("rev-parse", "--show-toplevel"))
	return s
}

func (s *sandbox) git(args ...string) string {
	s.t.Helper()
	r := runIn(s.t, s.root, s.env, "git", args...)
	require.Equal(s.t, 0, r.code, "git %q: %s", args, r.stderr)
	return strings.TrimSpace(r.stdout)
}

func (s *sandbox) cmd(name string, args ...string) result {
	s.t.Helper()
	return runIn(s.t, s.root, s.env, binPath(name), args...)
}

func (s *sandbox) write(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	require.NoError(s.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(s.t, os.WriteFile(p, []byte(content), 0o644))
}

func (s *sandbox) commit(rel, content, msg string) string {
	s.t.Helper()
	s.write(rel, content)
	s.git("add", rel)
	s.git("commit", "-q", "-m", msg)
	return s.git("rev-parse", "HEAD")
}

func (s *sandbox) short(rev string) string {
	s.t.Helper()
	return s.git("rev-parse", "--short", rev)
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// ledgerWriter appends lines built from the formats SKILL.md shows.
type ledgerWriter struct {
	t       *testing.T
	path    string
	formats []string
}

func (w *ledgerWriter) format(substr string) Format {
	w.t.Helper()
	for _, s := range w.formats {
		if strings.Contains(s, substr) {
			f, err := CompileFormat(s)
			require.NoError(w.t, err)
			return f
		}
	}
	w.t.Fatalf("SKILL.md shows no ledger format containing %q", substr)
	return Format{}
}

func (w *ledgerWriter) add(substr string, kv ...string) {
	w.t.Helper()
	v := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		v[kv[i]] = kv[i+1]
	}
	line := w.format(substr).Fill(v)
	require.NotContains(w.t, line, "<", "every field of %q filled", substr)
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	require.NoError(w.t, err)
	_, err = f.WriteString(line + "\n")
	require.NoError(w.t, err)
	require.NoError(w.t, f.Close())
}

func (w *ledgerWriter) parse() *Ledger {
	w.t.Helper()
	l, err := ParseLedger(readString(w.t, w.path), w.formats)
	require.NoError(w.t, err, "\n%s", readString(w.t, w.path))
	return l
}

// wroteLine checks a command's one-line report and returns the file and
// the rest of the line after "wrote <file>: ".
func wroteLine(t *testing.T, r result) (file, rest string) {
	t.Helper()
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, "wrote ") && strings.HasSuffix(r.stdout, "\n"), "%q", r.stdout)
	body := strings.TrimSuffix(strings.TrimPrefix(r.stdout, "wrote "), "\n")
	i := strings.LastIndex(body, ": ")
	require.Positive(t, i, "%q", r.stdout)
	return body[:i], body[i+2:]
}

// reviewPackage runs review-package the way the skill says and checks its
// output file: name from the short shas, the header, the commit count and
// byte count it reports.
func (s *sandbox) reviewPackage(ws, plan, base, head string, commits int) string {
	s.t.Helper()
	r := s.cmd("review-package", plan, base, head)
	file, rest := wroteLine(s.t, r)
	assert.Equal(s.t, filepath.Join(ws, "review-"+s.short(base)+".."+s.short(head)+".diff"), file)
	body := readString(s.t, file)
	assert.Equal(s.t, fmt.Sprintf("%d commit(s), %d bytes", commits, len(body)), rest)
	assert.True(s.t, strings.HasPrefix(body, "# Review package: "+base+".."+head+"\n\n## Commits\n"), "%.80q", body)
	assert.Contains(s.t, body, "\n## Files changed\n")
	assert.Contains(s.t, body, "\n## Diff\n")
	return body
}

// commitsSection is the "## Commits" part of a review package.
func commitsSection(pkg string) string {
	_, after, _ := strings.Cut(pkg, "## Commits\n")
	before, _, _ := strings.Cut(after, "\n## Files changed\n")
	return before
}

// TestWalkThrough runs the sequence SKILL.md prescribes, with the real
// commands, through a two-task plan: workspace, ledger identity, BASE,
// brief, a multi-commit task, its review package, a fix round with a
// scoped package over FIX_BASE..HEAD, the completion line, a clean second
// task, the final package, and deleting only this plan's workspace.
func TestWalkThrough(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	const plan = "docs/plans/demo.md"
	s.write(plan, demoPlan)
	s.write("docs/plans/other.md", "# Another plan\n\n### Task 1: Other\nx\n")
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	s.git("checkout", "-q", "-b", "feature/demo") // an isolated branch

	// Someone else's leftovers: the old flat ledger and another plan's
	// workspace. The skill leaves both alone.
	flat := filepath.Join(s.root, ".superpowers", "sdd", "progress.md")
	s.write(".superpowers/sdd/progress.md", "# SDD ledger — plan: docs/plans/old.md\n")
	other := s.cmd("sdd-workspace", "docs/plans/other.md")
	require.Equal(t, 0, other.code, other.stderr)
	otherWS := strings.TrimSuffix(other.stdout, "\n")

	// Setup: the workspace.
	r := s.cmd("sdd-workspace", plan)
	require.Equal(t, 0, r.code, r.stderr)
	ws := strings.TrimSuffix(r.stdout, "\n")
	assert.Equal(t, filepath.Join(s.root, ".superpowers", "sdd", "demo"), ws)
	assert.NotEqual(t, otherWS, ws)
	assert.Equal(t, "*\n", readString(t, filepath.Join(s.root, ".superpowers", "sdd", ".gitignore")))
	assert.Empty(t, s.git("status", "--porcelain"), "the workspace is ignored by git")

	// Setup: no ledger yet, so a fresh one with its identity line first.
	ledgerPath := filepath.Join(ws, "progress.md")
	_, err := os.Stat(ledgerPath)
	require.True(t, os.IsNotExist(err))
	w := &ledgerWriter{t: t, path: ledgerPath, formats: LedgerFormats(skill)}
	w.add("# SDD ledger", "plan file path", plan)
	assert.Equal(t, "# SDD ledger \u2014 plan: "+plan+"\n", readString(t, ledgerPath))

	// Task 1, step 1: BASE, recorded at once.
	base1 := s.git("rev-parse", "HEAD")
	w.add("base=", "N", "1", "sha", base1)

	// Step 2: the brief.
	r = s.cmd("task-brief", plan, "1")
	brief, rest := wroteLine(t, r)
	assert.Equal(t, filepath.Join(ws, "task-1-brief.md"), brief)
	briefText := readString(t, brief)
	assert.Equal(t, strconv.Itoa(strings.Count(briefText, "\n"))+" lines", rest)
	assert.True(t, strings.HasPrefix(briefText, "### Task 1: Greeting\n"))
	assert.NotContains(t, briefText, "Farewell", "the brief holds one task, not the plan")

	// Step 3-4: the implementer makes two commits, writes its report
	// beside the brief, returns DONE.
	s.commit("greet.txt", "helo\n", "task 1: add greet.txt")
	head1 := s.commit("greet_test.txt", "expect hello\n", "task 1: add a check")
	report := filepath.Join(ws, "task-1-report.md")
	require.NoError(t, os.WriteFile(report, []byte("Status: DONE\n"), 0o644))

	// Step 5: the package over BASE..HEAD holds both commits; HEAD~1
	// would have shown only the last one.
	pkg := s.reviewPackage(ws, plan, base1, head1, 2)
	assert.Contains(t, commitsSection(pkg), "task 1: add greet.txt")
	assert.Contains(t, commitsSection(pkg), "task 1: add a check")
	assert.NotContains(t, s.git("log", "--oneline", "HEAD~1..HEAD"), "add greet.txt", "why never HEAD~1")

	// Step 6: the review is in (one Important, one Minor).
	w.add("reviewed_head=", "N", "1", "sha", head1)
	w.add("minor (deferred)", "N", "1", "one-liner", "greet_test.txt is not a real test")

	// Step 7: fix round 1; the scoped package starts at FIX_BASE, the
	// head the review saw, as the ledger tells a resumed controller.
	fixBase := w.parse().FixBase(1)
	require.Equal(t, head1, fixBase)
	fixHead := s.commit("greet.txt", "hello\n", "task 1: fix spelling")
	scoped := s.reviewPackage(ws, plan, fixBase, fixHead, 1)
	assert.Contains(t, commitsSection(scoped), "task 1: fix spelling")
	assert.NotContains(t, commitsSection(scoped), "add greet.txt", "the re-review sees the fix only")
	assert.FileExists(t, filepath.Join(ws, "review-"+s.short(base1)+".."+s.short(head1)+".diff"), "the first package is kept")
	w.add("fix round", "N", "1", "R", "1", "X", "1", "Y", "0",
		"finding one-liners", "F1 greeting misspelled", "a7", s.short(fixBase), "b7", s.short(fixHead))

	// A controller resuming here would go on at round 2 from fixHead.
	l := w.parse()
	assert.False(t, l.Done(1))
	assert.Equal(t, 2, l.NextRound(1))
	assert.True(t, strings.HasPrefix(fixHead, l.FixBase(1)))

	// Step 9: complete.
	w.add("review clean", "N", "1", "base7", s.short(base1), "head7", s.short(fixHead))

	// Task 2, clean on the first review.
	base2 := s.git("rev-parse", "HEAD")
	w.add("base=", "N", "2", "sha", base2)
	brief2, _ := wroteLine(t, s.cmd("task-brief", plan, "2"))
	assert.Equal(t, filepath.Join(ws, "task-2-brief.md"), brief2)
	assert.True(t, strings.HasPrefix(readString(t, brief2), "### Task 2: Farewell\n"))
	assert.Contains(t, readString(t, brief2), "## Final Review", "a non-task heading does not end a task")
	head2 := s.commit("bye.txt", "bye\n", "task 2: add bye.txt")
	s.reviewPackage(ws, plan, base2, head2, 1)
	w.add("reviewed_head=", "N", "2", "sha", head2)
	w.add("review clean", "N", "2", "base7", s.short(base2), "head7", s.short(head2))

	l = w.parse()
	assert.Equal(t, plan, l.Plan)
	assert.True(t, l.Done(1))
	assert.True(t, l.Done(2))

	// Final review over the whole branch.
	mergeBase := s.git("merge-base", "main", "HEAD")
	final := s.reviewPackage(ws, plan, mergeBase, s.git("rev-parse", "HEAD"), 4)
	assert.Contains(t, final, "bye.txt")
	assert.Contains(t, final, "greet.txt")

	// Finish: delete this plan's workspace, nothing else.
	require.NoError(t, os.RemoveAll(ws))
	assert.NoDirExists(t, ws)
	assert.DirExists(t, otherWS, "a sibling workspace stays")
	assert.Equal(t, "# SDD ledger — plan: docs/plans/old.md\n", readString(t, flat), "the flat ledger stays untouched")
	assert.Empty(t, s.git("status", "--porcelain"), "nothing of the run is left for git to see")
}

// TestForeignLedgerIsNotResumed: a progress.md whose identity line names
// another plan does not parse as this plan's ledger.
func TestForeignLedgerIsNotResumed(t *testing.T) {
	formats := LedgerFormats(readSkillFile(t, "SKILL.md"))
	l, err := ParseLedger("# SDD ledger — plan: docs/plans/old.md\n", formats)
	require.NoError(t, err)
	assert.NotEqual(t, "docs/plans/demo.md", l.Plan)
}

// TestManualEquivalentsMatchTheCommands runs the shell recipes of the
// "Without the commands" section and compares what they make with what
// the commands make: same workspace, same .gitignore, same review package
// file name and bytes.
func TestManualEquivalentsMatchTheCommands(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell on this host")
	}
	skill := readSkillFile(t, "SKILL.md")
	_, section, ok := strings.Cut(skill, "\n## Without the commands\n")
	require.True(t, ok)
	var script strings.Builder
	for _, f := range Fences(section) {
		if f.Depth == 0 && f.Lang() == "sh" {
			script.WriteString(f.Body)
		}
	}
	require.Contains(t, script.String(), "git rev-parse --show-toplevel")
	require.Contains(t, script.String(), "git diff -U10")
	script.WriteString("printf '%s\\n%s\\n' \"$WS\" \"$OUT\"\n")

	s := newSandbox(t)
	const plan = "docs/plans/manual.md"
	s.write(plan, demoPlan)
	s.git("add", ".")
	base := s.commit("a.txt", "a\n", "one")
	s.commit("a.txt", "a\nb\n", "two")
	head := s.commit("c.txt", "c\n", "three")

	r := s.cmd("review-package", plan, base, head)
	want, _ := wroteLine(t, r)
	wantBytes := readString(t, want)
	require.NoError(t, os.RemoveAll(filepath.Join(s.root, ".superpowers")))

	env := append(append([]string{}, s.env...), "PLAN_FILE="+plan, "BASE="+base, "HEAD="+head)
	m := runIn(t, s.root, env, sh, "-c", script.String())
	require.Equal(t, 0, m.code, m.stderr)
	lines := strings.Split(strings.TrimSuffix(m.stdout, "\n"), "\n")
	require.Len(t, lines, 2, m.stdout)
	assert.Equal(t, filepath.Dir(want), filepath.FromSlash(lines[0]), "same workspace")
	assert.Equal(t, want, filepath.FromSlash(lines[1]), "same package file name")
	assert.Equal(t, wantBytes, readString(t, lines[1]), "same package bytes")
	assert.Equal(t, "*\n", readString(t, filepath.Join(s.root, ".superpowers", "sdd", ".gitignore")))
}
