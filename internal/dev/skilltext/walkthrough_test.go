package skilltext

import (
	"fmt"
	"os"
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

// threeTaskPlan is demoPlan with a third task before its final review.
var threeTaskPlan = strings.Replace(demoPlan,
	"## Final Review\nCheck both files.\n",
	"### Task 3: Index\nList both files in index.txt.\n\n## Final Review\nCheck all files.\n", 1)

// TestWalkThrough follows SKILL.md through a three-task plan with the real
// commands: workspace, ledger identity, BASE, brief, the implementer's id,
// a multi-commit task, its review package, a fix round with a scoped
// package over FIX_BASE..HEAD, a clean task, a task whose ⚠️ the
// controller's own check turns into ✅, the final review's lines, and
// deleting only this plan's workspace with the text's own command. At
// each step a resumed controller, reading only the ledger, git and the
// workspace, is sent to the step the run is really at.
func TestWalkThrough(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	s := newSandbox(t)
	const plan = "docs/plans/demo.md"
	s.write(plan, threeTaskPlan)
	s.write("docs/plans/other.md", "# Another plan\n\n### Task 1: Other\nx\n")
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	s.git("checkout", "-q", "-b", "feature/demo") // an isolated branch

	// Someone else's leftovers: the old flat ledger of another plan and
	// another plan's workspace. The skill leaves both alone.
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
	c := &controller{t: t, s: s, skill: skill, plan: plan, ws: ws, tasks: 3}
	requireAction(t, c.resume(), "no ledger", "create the ledger")

	// Setup: a fresh ledger, identity line first, made by the text's block.
	ledgerPath := filepath.Join(ws, "progress.md")
	runText(t, s, skill, "'# SDD ledger — plan: <plan file>'", map[string]string{"<plan file>": plan, "<workspace>": ws})
	assert.Equal(t, "# SDD ledger \u2014 plan: "+plan+"\n", readString(t, ledgerPath))
	w := &ledgerWriter{t: t, path: ledgerPath, formats: LedgerFormats(skill)}
	requireAction(t, c.resume(), "no line", "start it at step 1")

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

	// Step 3: the dispatch; the implementer's id goes to the ledger.
	w.add("implementer=", "N", "1", "id", "agent-1")
	requireAction(t, c.resume(), "base only", "git log --oneline '<base sha>'..HEAD")

	// Step 4: the implementer makes two commits, writes its report
	// beside the brief, returns DONE.
	s.commit("greet.txt", "helo\n", "task 1: add greet.txt")
	head1 := s.commit("greet_test.txt", "expect hello\n", "task 1: add a check")
	report := filepath.Join(ws, "task-1-report.md")
	writeFile(t, report, "Status: DONE\n")

	// Step 5: the package over BASE..HEAD holds both commits; HEAD~1
	// would have shown only the last one.
	pkg := s.reviewPackage(ws, plan, base1, head1, 2)
	assert.Contains(t, commitsSection(pkg), "task 1: add greet.txt")
	assert.Contains(t, commitsSection(pkg), "task 1: add a check")
	assert.NotContains(t, s.git("log", "--oneline", "HEAD~1..HEAD"), "add greet.txt", "why never HEAD~1")

	// Step 6: the review is in (one Important, one Minor); the reply is
	// saved, the head recorded.
	writeFile(t, filepath.Join(ws, "task-1-review.md"),
		"Spec: ✅\nCritical:\n- none\nImportant:\n- greet.txt:1 — misspelled — the brief says hello\nMinor:\n- greet_test.txt:1 — not a real test\n")
	w.add("reviewed_head=", "N", "1", "sha", head1)
	w.add("minor (deferred)", "N", "1", "one-liner", "greet_test.txt is not a real test - a plain note")
	requireAction(t, c.resume(), "next round", "round R+1's fix")

	// Step 7: fix round 1; the scoped package starts at FIX_BASE, the
	// head the review saw, as the ledger tells a resumed controller.
	fixBase := w.parse().FixBase(1)
	require.Equal(t, head1, fixBase)
	fixHead := s.commit("greet.txt", "hello\n", "task 1: fix spelling")
	requireAction(t, c.resume(), "fix not re-reviewed", "closes round R+1")
	scoped := s.reviewPackage(ws, plan, fixBase, fixHead, 1)
	assert.Contains(t, commitsSection(scoped), "task 1: fix spelling")
	assert.NotContains(t, commitsSection(scoped), "add greet.txt", "the re-review sees the fix only")
	assert.FileExists(t, filepath.Join(ws, "review-"+s.short(base1)+".."+s.short(head1)+".diff"), "the first package is kept")
	w.add("fix round", "N", "1", "R", "1", "X", "1", "Y", "0",
		"finding one-liners", "F1 greeting misspelled", "a7", s.short(fixBase), "b7", s.short(fixHead))
	l := w.parse()
	assert.False(t, l.Done(1))
	assert.Equal(t, 2, l.NextRound(1))
	assert.True(t, strings.HasPrefix(fixHead, l.FixBase(1)))
	requireAction(t, c.resume(), "complete it", "completion line")

	// Step 9: complete.
	w.add("review clean", "N", "1", "base7", s.short(base1), "head7", s.short(fixHead))

	// Task 2, clean on the first review.
	base2 := s.git("rev-parse", "HEAD")
	w.add("base=", "N", "2", "sha", base2)
	brief2, _ := wroteLine(t, s.cmd("task-brief", plan, "2"))
	assert.Equal(t, filepath.Join(ws, "task-2-brief.md"), brief2)
	assert.True(t, strings.HasPrefix(readString(t, brief2), "### Task 2: Farewell\n"))
	assert.NotContains(t, readString(t, brief2), "Index", "Task 3 ends Task 2")
	w.add("implementer=", "N", "2", "id", "agent-2")
	head2 := s.commit("bye.txt", "bye\n", "task 2: add bye.txt")
	s.reviewPackage(ws, plan, base2, head2, 1)
	writeFile(t, filepath.Join(ws, "task-2-review.md"), "Spec: ✅\nCritical:\n- none\nImportant:\n- none\nMinor:\n- none\n")
	w.add("reviewed_head=", "N", "2", "sha", head2)
	w.add("review clean", "N", "2", "base7", s.short(base2), "head7", s.short(head2))

	// Task 3: spec ⚠️, the tests could not be run by the reviewer; the
	// controller's own check is clean, so it counts as ✅.
	base3 := s.git("rev-parse", "HEAD")
	w.add("base=", "N", "3", "sha", base3)
	brief3, _ := wroteLine(t, s.cmd("task-brief", plan, "3"))
	assert.Contains(t, readString(t, brief3), "## Final Review", "a non-task heading does not end a task")
	w.add("implementer=", "N", "3", "id", "agent-3")
	head3 := s.commit("index.txt", "greet.txt\nbye.txt\n", "task 3: add index.txt")
	s.reviewPackage(ws, plan, base3, head3, 1)
	writeFile(t, filepath.Join(ws, "task-3-review.md"),
		"Spec: ⚠️\nNot verifiable from the diff:\n- the index lists files that exist\nCritical:\n- none\nImportant:\n- none\nMinor:\n- none\n")
	w.add("reviewed_head=", "N", "3", "sha", head3)
	for _, f := range strings.Fields(readString(t, filepath.Join(s.root, "index.txt"))) {
		assert.FileExists(t, filepath.Join(s.root, f), "the controller's check of the ⚠️ item")
	}
	requireAction(t, c.resume(), "complete it", "completion line")
	w.add("review clean", "N", "3", "base7", s.short(base3), "head7", s.short(head3))

	l = w.parse()
	assert.Equal(t, plan, l.Plan)
	for n := 1; n <= 3; n++ {
		assert.True(t, l.Done(n), "task %d", n)
	}
	requireAction(t, c.resume(), "final start", "Final: base=")

	// Final review over the whole branch, clean.
	mergeBase := s.git("merge-base", "main", "HEAD")
	w.add("Final: base=", "sha", mergeBase)
	head := s.git("rev-parse", "HEAD")
	final := s.reviewPackage(ws, plan, mergeBase, head, 5)
	assert.Contains(t, final, "bye.txt")
	assert.Contains(t, final, "greet.txt")
	writeFile(t, filepath.Join(ws, "final-review.md"), "Critical:\n- none\nImportant:\n- none\nMinor:\n- none\nDeferred and parked lines to fix now:\n- none\n")
	w.add("Final: reviewed_head=", "sha", head)
	requireAction(t, c.resume(), "final rulings", "`Final: complete`")
	w.add("Final: complete (commits <base7>..<head7>, review clean)", "base7", s.short(mergeBase), "head7", s.short(head))
	l = w.parse()
	require.NotNil(t, l.Final)
	assert.True(t, l.Final.Complete)
	requireAction(t, c.resume(), "final complete", "delete the workspace")

	// Finish: the text's command deletes this plan's workspace, nothing
	// else.
	runText(t, s, skill, "rm -rf '<workspace>'", map[string]string{"<workspace>": ws})
	assert.NoDirExists(t, ws)
	assert.DirExists(t, otherWS, "a sibling workspace stays")
	assert.Equal(t, "# SDD ledger — plan: docs/plans/old.md\n", readString(t, flat), "the flat ledger stays untouched")
	assert.Empty(t, s.git("status", "--porcelain"), "nothing of the run is left for git to see")
}

// manualCase is a state of .superpowers/sdd/ in which the text's manual
// workspace recipe must pick the directory sdd-workspace picks.
type manualCase struct {
	name  string
	plan  string
	setup func(s *sandbox)
	want  string // the directory's name, to check the case means what it says
}

func (m manualCase) prepare(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t)
	for _, p := range []string{"docs/a/plan.md", "docs/b/plan.md", "docs/x/a/plan.md", "plan.md"} {
		s.write(p, planText(p))
	}
	s.git("add", ".")
	s.git("commit", "-q", "-m", "plans")
	if m.setup != nil {
		m.setup(s)
	}
	return s
}

// TestManualWorkspaceMatchesTheCommand runs the "Without the commands"
// workspace recipe and sdd-workspace in twin repositories, case by case,
// and requires the same directory and the same files under
// .superpowers/sdd/ (markers included), so a later run with the commands
// finds what the recipe made.
func TestManualWorkspaceMatchesTheCommand(t *testing.T) {
	skill := readSkillFile(t, "SKILL.md")
	recipe := textBlock(t, skill, "plan-path")
	marker := func(s *sandbox, dir, plan string) { s.write(".superpowers/sdd/"+dir+"/plan-path", plan+"\n") }
	ledger := func(s *sandbox, dir, first string) {
		s.write(".superpowers/sdd/"+dir+"/progress.md", first+"Task 1: base="+strings.Repeat("a", 40)+"\n")
	}
	for _, m := range []manualCase{
		{name: "fresh", plan: "docs/a/plan.md", want: "plan"},
		{name: "in the repository root", plan: "plan.md", want: "plan"},
		{name: "spelled with ./", plan: "./docs/a/plan.md", want: "plan"},
		{name: "taken by another plan's marker", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(s *sandbox) { marker(s, "plan", "docs/b/plan.md") }},
		{name: "two names taken", plan: "docs/a/plan.md", want: "plan-a-2",
			setup: func(s *sandbox) { marker(s, "plan", "docs/b/plan.md"); marker(s, "plan-a", "docs/x/a/plan.md") }},
		{name: "its own marker", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(s *sandbox) { marker(s, "plan", "docs/b/plan.md"); marker(s, "plan-a", "docs/a/plan.md") }},
		{name: "no marker, no ledger: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(s *sandbox) { s.write(".superpowers/sdd/plan/task-1-brief.md", "x\n") }},
		{name: "no marker, a ledger without an identity line: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(s *sandbox) { ledger(s, "plan", "# notes\n") }},
		{name: "no marker, its own ledger: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(s *sandbox) { ledger(s, "plan", IdentityPrefix+"./docs/a/plan.md\n") }},
		{name: "no marker, its own ledger with CR and blanks: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(s *sandbox) { ledger(s, "plan", IdentityPrefix+"docs/a/plan.md \t\r\n") }},
		{name: "no marker, another plan's ledger: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(s *sandbox) { ledger(s, "plan", IdentityPrefix+"docs/b/plan.md\n") }},
		{name: "no marker, another plan's ledger by absolute path: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(s *sandbox) {
				ledger(s, "plan", IdentityPrefix+filepath.ToSlash(filepath.Join(s.root, "docs/b/plan.md"))+"\n")
			}},
		{name: "no marker, its own ledger by absolute path: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(s *sandbox) {
				ledger(s, "plan", IdentityPrefix+filepath.ToSlash(filepath.Join(s.root, "docs/a/plan.md"))+"\n")
			}},
		{name: "no marker, a ledger of a plan that is gone: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(s *sandbox) { ledger(s, "plan", IdentityPrefix+"docs/old/plan.md\n") }},
	} {
		t.Run(m.name, func(t *testing.T) {
			manual, binary := m.prepare(t), m.prepare(t)
			b := newBlockRunner(t, manual.root)
			b.values["<plan file>"] = m.plan
			script, mr := b.run(recipe)
			require.Equal(t, 0, mr.code, "%s\n%s", script, mr.stderr)
			lines := strings.Split(strings.TrimSuffix(mr.stdout, "\n"), "\n")
			got := lines[len(lines)-1]

			br := binary.cmd("sdd-workspace", m.plan)
			require.Equal(t, 0, br.code, br.stderr)
			want := strings.TrimSuffix(br.stdout, "\n")
			assert.Equal(t, filepath.Join(binary.root, ".superpowers", "sdd", m.want), want, "sdd-workspace's choice")
			relGot, err := filepath.Rel(manual.root, got)
			require.NoError(t, err)
			relWant, err := filepath.Rel(binary.root, want)
			require.NoError(t, err)
			assert.Equal(t, relWant, relGot, "the recipe picks sdd-workspace's directory")
			// Files compare with each repository's root written as ROOT.
			snap := func(s *sandbox) map[string]string {
				out := snapshotDir(t, filepath.Join(s.root, ".superpowers"))
				for k, v := range out {
					out[k] = strings.ReplaceAll(v, filepath.ToSlash(s.root), "ROOT")
				}
				return out
			}
			assert.Equal(t, snap(binary), snap(manual), "the recipe leaves the files sdd-workspace leaves")

			// A later run with the command finds the recipe's directory.
			again := manual.cmd("sdd-workspace", m.plan)
			require.Equal(t, 0, again.code, again.stderr)
			assert.Equal(t, got+"\n", again.stdout)
		})
	}
}
