package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Check 7: manual.md's recipes make what the commands make, so a run
// without the commands and a later run with them meet in the same
// directory and read the same files. Each recipe runs under sh in a real
// repository, beside the command in a twin repository (the workspace) or
// in the same one (the brief, the package), and the results must be
// byte for byte the same.

// manualRecipe is the one block of manual.md that holds marker.
func manualRecipe(x skillText, marker string) (string, error) {
	var found []string
	for _, b := range x.shBlocks(manualMD) {
		if strings.Contains(b.Body, marker) {
			found = append(found, b.Body)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("manual.md has %d blocks holding %q, not one", len(found), marker)
	}
	return found[0], nil
}

// runRecipe runs a recipe as a host's Bash call would: one shell, no
// options, in the repository root, with the repository's environment.
func runRecipe(r *testutil.Repo, shell, script string) testutil.Result {
	return testutil.RunIn(r.Root, r.Env, shell, "-c", script)
}

// wsCase is a state of .superpowers/sdd/ in which the recipe must pick
// the directory sdd-workspace picks.
type wsCase struct {
	name    string
	plan    string
	planFor func(r *testutil.Repo) string // the plan, when it depends on where the repository is
	setup   func(r *testutil.Repo)
	want    string // the directory's name, so the case means what it says
}

func (c wsCase) planIn(r *testutil.Repo) string {
	if c.planFor != nil {
		return c.planFor(r)
	}
	return c.plan
}

// outsidePlan is a plan beside the repository, not in it.
func outsidePlan(r *testutil.Repo) string {
	p := filepath.Join(filepath.Dir(r.Root), "outside", "plan.md")
	if _, err := os.Stat(p); err != nil {
		require.NoError(r.T(), os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(r.T(), os.WriteFile(p, []byte("# Outside\n\n### Task 1: One\nDo it.\n"), 0o644))
	}
	return p
}

// long is a slug that leaves 15 bytes of a 255-byte name for the rest.
var long = strings.Repeat("p", 240)

// manyE is a directory name of two-byte characters.
var manyE = "x" + strings.Repeat("é", 15)

var wsPlans = []string{"docs/a/plan.md", "docs/b/plan.md", "docs/x/a/plan.md", "plan.md",
	"docs/a/" + long + ".md", "docs/bbbbbbbbbbbbbbbbbbbb/" + long + ".md", "docs/" + manyE + "/" + long + ".md"}

func wsCases() []wsCase {
	marker := func(r *testutil.Repo, dir, plan string) { r.Write(".superpowers/sdd/"+dir+"/plan-path", plan+"\n") }
	ledger := func(r *testutil.Repo, dir, first string) {
		r.Write(".superpowers/sdd/"+dir+"/progress.md", first+"Task 1: base="+strings.Repeat("a", 40)+"\n")
	}
	abs := func(r *testutil.Repo, rel string) string { return filepath.ToSlash(filepath.Join(r.Root, rel)) }
	return []wsCase{
		{name: "fresh", plan: "docs/a/plan.md", want: "plan"},
		{name: "in the repository root", plan: "plan.md", want: "plan"},
		{name: "spelled with ./", plan: "./docs/a/plan.md", want: "plan"},
		{name: "taken by another plan's marker", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { marker(r, "plan", "docs/b/plan.md") }},
		{name: "two names taken", plan: "docs/a/plan.md", want: "plan-a-2",
			setup: func(r *testutil.Repo) { marker(r, "plan", "docs/b/plan.md"); marker(r, "plan-a", "docs/x/a/plan.md") }},
		{name: "its own marker", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { marker(r, "plan", "docs/b/plan.md"); marker(r, "plan-a", "docs/a/plan.md") }},
		{name: "no marker, no ledger: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(r *testutil.Repo) { r.Write(".superpowers/sdd/plan/task-1-brief.md", "x\n") }},
		{name: "no marker, a ledger without an identity line: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(r *testutil.Repo) { ledger(r, "plan", "# notes\n") }},
		{name: "no marker, its own ledger: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+"./docs/a/plan.md\n") }},
		{name: "no marker, its own ledger with CR and blanks: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+"docs/a/plan.md \t\r\n") }},
		{name: "no marker, another plan's ledger: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+"docs/b/plan.md\n") }},
		{name: "no marker, another plan's ledger by absolute path: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+abs(r, "docs/b/plan.md")+"\n") }},
		{name: "no marker, its own ledger by absolute path: adopted", plan: "docs/a/plan.md", want: "plan",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+abs(r, "docs/a/plan.md")+"\n") }},
		{name: "no marker, a ledger of a plan that is gone: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+"docs/old/plan.md\n") }},
		{name: "no marker, a ledger of a plan that is gone, by absolute path: skipped", plan: "docs/a/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) { ledger(r, "plan", IdentityPrefix+abs(r, "docs/old/plan.md")+"\n") }},
		{name: "a plan outside the repository", want: "plan",
			planFor: func(r *testutil.Repo) string { return outsidePlan(r) }},
		{name: "a plan outside the repository, its name taken", want: "plan-outside",
			planFor: func(r *testutil.Repo) string { return outsidePlan(r) },
			setup:   func(r *testutil.Repo) { marker(r, "plan", "docs/b/plan.md") }},
		{name: "a long name taken", plan: "docs/bbbbbbbbbbbbbbbbbbbb/" + long + ".md", want: long + "-" + strings.Repeat("b", 14),
			setup: func(r *testutil.Repo) { marker(r, long, "docs/a/"+long+".md") }},
		{name: "two long names taken", plan: "docs/bbbbbbbbbbbbbbbbbbbb/" + long + ".md", want: long + "-" + strings.Repeat("b", 12) + "-2",
			setup: func(r *testutil.Repo) {
				marker(r, long, "docs/a/"+long+".md")
				marker(r, long+"-"+strings.Repeat("b", 14), "docs/x/a/plan.md")
			}},
		{name: "a long name taken, cut before a character", plan: "docs/" + manyE + "/" + long + ".md", want: long + "-x" + strings.Repeat("é", 6),
			setup: func(r *testutil.Repo) { marker(r, long, "docs/a/"+long+".md") }},
		{name: "through a symlinked directory, its name taken", plan: "docs/link/plan.md", want: "plan-a",
			setup: func(r *testutil.Repo) {
				marker(r, "plan", "docs/b/plan.md")
				require.NoError(r.T(), os.Symlink("a", filepath.Join(r.Root, "docs", "link")))
			}},
	}
}

func (c wsCase) prepare(t *testing.T) *testutil.Repo {
	t.Helper()
	r := testutil.NewRepo(t)
	for _, p := range wsPlans {
		r.Write(p, "# "+p+"\n\n### Task 1: One\nDo it.\n") // sdd-workspace needs no commit
	}
	if c.setup != nil {
		c.setup(r)
	}
	return r
}

// snapshot is every file and directory under dir, by slash path, files
// with their bytes (the directory holding the repository written as
// TMP), directories as "<dir>".
func snapshot(t *testing.T, dir, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)] = "<dir>"
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = strings.ReplaceAll(string(b), filepath.ToSlash(filepath.Dir(root)), "TMP")
		return err
	}))
	return out
}

func diffSnapshots(want, got map[string]string) string {
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		if want[k] != got[k] {
			fmt.Fprintf(&b, "    %s: command %q, recipe %q\n", k, want[k], got[k])
		}
	}
	return b.String()
}

// manualWorkspaceProblems runs the workspace recipe and sdd-workspace in
// twin repositories for each case, and says where they differ: the
// directory, any file under .superpowers/ (markers, .gitignore), or the
// directory a later sdd-workspace run finds.
func manualWorkspaceProblems(t *testing.T, x skillText, shell string, cases []wsCase) []string {
	t.Helper()
	recipe, err := manualRecipe(x, "plan-path")
	if err != nil {
		return []string{err.Error()}
	}
	var p []string
	for _, c := range cases {
		at := fmt.Sprintf("%s, %s", filepath.Base(shell), c.name)
		manual, binary := c.prepare(t), c.prepare(t)
		mr := runRecipe(manual, shell, strings.ReplaceAll(recipe, "<plan file>", c.planIn(manual)))
		if mr.Code != 0 {
			p = append(p, fmt.Sprintf("%s: the recipe exits %d: %s", at, mr.Code, mr.Stderr))
			continue
		}
		lines := strings.Split(strings.TrimSuffix(mr.Stdout, "\n"), "\n")
		got := lines[len(lines)-1]

		br := binary.Run("", "sdd-workspace", c.planIn(binary))
		require.Equal(t, 0, br.Code, br.Stderr)
		want := strings.TrimSuffix(br.Stdout, "\n")
		require.Equal(t, filepath.Join(binary.Root, ".superpowers", "sdd", c.want), want, "%s: sdd-workspace's choice", at)

		if rel, err := filepath.Rel(manual.Root, got); err != nil || rel != filepath.Join(".superpowers", "sdd", c.want) {
			p = append(p, fmt.Sprintf("%s: the recipe picks %s, sdd-workspace %s", at, got, want))
		}
		if d := diffSnapshots(snapshot(t, filepath.Join(binary.Root, ".superpowers"), binary.Root),
			snapshot(t, filepath.Join(manual.Root, ".superpowers"), manual.Root)); d != "" {
			p = append(p, fmt.Sprintf("%s: the recipe leaves other files than sdd-workspace:\n%s", at, d))
		}
		if again := manual.Run("", "sdd-workspace", c.planIn(manual)); again.Code != 0 || again.Stdout != got+"\n" {
			p = append(p, fmt.Sprintf("%s: after the recipe, sdd-workspace finds %q (exit %d), not %s", at, again.Stdout, again.Code, got))
		}
	}
	return p
}

// requireRecipeClean requires the recipe problems runs to make, in each
// POSIX shell, what the commands make.
func requireRecipeClean(t *testing.T, problems func(t *testing.T, x skillText, shell string) []string) {
	t.Helper()
	requireBinaries(t)
	x := loadText(t)
	for _, sh := range posixShells(t) {
		requireClean(t, problems(t, x, sh))
	}
}

func TestManualWorkspace(t *testing.T) {
	requireRecipeClean(t, func(t *testing.T, x skillText, sh string) []string {
		return manualWorkspaceProblems(t, x, sh, wsCases())
	})
}

// briefPlans are plans whose task boundaries are easy to get wrong.
var briefPlans = map[string]string{
	"fences and Task 12": "# Demo\n\n## Global Constraints\n- Plain text.\n\n### Task 1: Greeting\nCreate greet.txt.\n```sh\n### Task 2: inside a fence, not a heading\n```\n\n### Task 2: Farewell\nCreate bye.txt.\n\n## Final Review\nCheck both.\n\n### Task 12: Later\nNot Task 1.\n",
	"CRLF":               "# Plan\r\n\r\n## Task 1: One\r\nDo one.\r\n\r\n## Task 2: Two\r\nDo two.\r\n",
	"no final newline":   "# Plan\n\n## Task 1: One\nDo one.\n\n## Task 2: Two\nDo two.",
	"tabs and depth":     "# Plan\n\n#\tTask\t1\nOne.\n####   Task  2 — two\nTwo.\n#Task 3\nnot a heading\n## Task 3\nThree.\n",
	"other fences":       "# Plan\n\n## Task 1\n~~~\n## Task 2\n~~~\n  ```\n## Task 3\n  ```\nend\n",
}

// manualBriefProblems runs the brief recipe for tasks 1, 2, 3 and 12 of
// each plan and compares its file with the one task-brief writes; where
// task-brief finds no such task, the recipe's file must be empty.
func manualBriefProblems(t *testing.T, x skillText, shell string) []string {
	t.Helper()
	recipe, err := manualRecipe(x, "task-<N>-brief.md")
	if err != nil {
		return []string{err.Error()}
	}
	var p []string
	for _, name := range sortedKeys(briefPlans) {
		r := testutil.NewRepo(t)
		r.Commit("plan", "docs/plan.md", briefPlans[name])
		ws := r.Run("", "sdd-workspace", "docs/plan.md")
		require.Equal(t, 0, ws.Code, ws.Stderr)
		workspace := strings.TrimSuffix(ws.Stdout, "\n")
		for _, n := range []string{"1", "2", "3", "12"} {
			at := fmt.Sprintf("%s, plan %q, task %s", filepath.Base(shell), name, n)
			script := strings.NewReplacer("<N>", n, "<plan file>", "docs/plan.md", "<workspace>", workspace).Replace(recipe)
			if mr := runRecipe(r, shell, script); mr.Code != 0 {
				p = append(p, fmt.Sprintf("%s: the recipe exits %d: %s", at, mr.Code, mr.Stderr))
				continue
			}
			file := filepath.Join(workspace, "task-"+n+"-brief.md")
			manual := fileText(t, file)
			require.NoError(t, os.Remove(file))
			var want string
			switch br := r.Run("", "task-brief", "docs/plan.md", n); br.Code {
			case 0:
				want = fileText(t, file)
			case 3:
			default:
				t.Fatalf("%s: task-brief exits %d: %s", at, br.Code, br.Stderr)
			}
			if manual != want {
				p = append(p, fmt.Sprintf("%s: the recipe writes %q, task-brief %q", at, manual, want))
			}
		}
	}
	return p
}

func TestManualBrief(t *testing.T) {
	requireRecipeClean(t, manualBriefProblems)
}

// manualPackageProblems runs the package recipe, with $b and $h set as
// the block it stands in sets them, on a branch whose commits change a
// long file in its middle, add, rename and delete files, one with a blank
// in its name and one binary, and compares its file, name and bytes, with
// the one review-package writes.
func manualPackageProblems(t *testing.T, x skillText, shell string) []string {
	t.Helper()
	recipe, err := manualRecipe(x, "git diff")
	if err != nil {
		return []string{err.Error()}
	}
	r := testutil.NewRepo(t)
	var long strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	base := r.Commit("base", "docs/plan.md", "# Plan\n\n## Task 1\nx\n", "long.txt", long.String(), "old name.txt", "moved\n", "gone.txt", "bye\n")
	r.Commit("change the middle", "long.txt", strings.Replace(long.String(), "line 30\n", "line thirty\n", 1))
	r.Git("mv", "old name.txt", "new name.txt")
	r.Git("rm", "-q", "gone.txt")
	r.Commit("move and remove", "blob.bin", "\x00\x01\x02binary\x00")
	head := r.Commit("add", "née.txt", "accent\n")
	ws := r.Run("", "sdd-workspace", "docs/plan.md")
	require.Equal(t, 0, ws.Code, ws.Stderr)
	workspace := strings.TrimSuffix(ws.Stdout, "\n")

	var p []string
	for _, rng := range [][2]string{{base, head}, {r.Git("rev-parse", "HEAD~1"), head}} {
		b, h := rng[0], rng[1]
		at := fmt.Sprintf("%s, %s..%s", filepath.Base(shell), b[:7], h[:7])
		script := "b=" + b + "\nh=" + h + "\n" + strings.ReplaceAll(recipe, "<workspace>", workspace)
		if mr := runRecipe(r, shell, script); mr.Code != 0 {
			p = append(p, fmt.Sprintf("%s: the recipe exits %d: %s", at, mr.Code, mr.Stderr))
			continue
		}
		made := takePackages(t, workspace, r.Root)
		rp := r.Run("", "review-package", "docs/plan.md", b, h)
		require.Equal(t, 0, rp.Code, rp.Stderr)
		if d := diffSnapshots(takePackages(t, workspace, r.Root), made); d != "" {
			p = append(p, fmt.Sprintf("%s: the recipe writes other files than review-package:\n%s", at, d))
		}
	}
	return p
}

// takePackages removes the review packages of the workspace and returns
// them, by name.
func takePackages(t *testing.T, workspace, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range snapshot(t, workspace, root) {
		if strings.HasPrefix(k, "review-") {
			out[k] = v
			require.NoError(t, os.Remove(filepath.Join(workspace, k)))
		}
	}
	return out
}

func TestManualPackage(t *testing.T) {
	requireRecipeClean(t, manualPackageProblems)
}

func TestManualCatches(t *testing.T) {
	requireBinaries(t)
	sh := posixShells(t)[0]
	x := loadText(t)
	cases := wsCases()
	// workspace runs the workspace recipe on the cases of these names.
	workspace := func(names ...string) func(*testing.T, skillText, string) []string {
		return func(t *testing.T, x skillText, sh string) []string {
			var picked []wsCase
			for _, c := range cases {
				if slices.Contains(names, c.name) {
					picked = append(picked, c)
				}
			}
			require.Len(t, picked, len(names))
			return manualWorkspaceProblems(t, x, sh, picked)
		}
	}
	for _, c := range []struct {
		name, old, new string
		problems       func(*testing.T, skillText, string) []string
		want           string
	}{
		{"no .gitignore", "printf '*\\n' > \"$sdd/.gitignore\"\n", "", workspace("fresh"), "other files than sdd-workspace"},
		{"a gone plan adopted", "[ \"${rel#./}\" = \"$id\" ] || continue", "true", workspace("no marker, a ledger of a plan that is gone: skipped"), "the recipe picks"},
		{"no second name", "1) ws=$sdd/$(fit \"$slug-$parent\" '') ;;", "1) ws=$sdd/$(fit \"$slug-$parent\" '-1') ;;", workspace("taken by another plan's marker"), "the recipe picks"},
		{"a marker without a newline", "mkdir \"$ws\" && printf '%s\\n' \"$id\"", "mkdir \"$ws\" && printf '%s' \"$id\"", workspace("fresh"), "plan-path"},
		{"long names not cut", "  STEM=$1 TAIL=$2 MAX=$max", "  STEM=$1 TAIL=$2 MAX=9999", workspace("a long name taken"), "the recipe exits"},
		{"a character split", "k < 3 && n > 1", "k < 0 && n > 1", workspace("a long name taken, cut before a character"), "the recipe picks"},
		{"headings in fences", "/^```/ { fenced = !fenced } ", "", manualBriefProblems, "fences and Task 12"},
		{"Task 1 runs into Task 12", `(h want "([^0-9]|$)")`, `(h want)`, manualBriefProblems, "task 1: the recipe writes"},
		{"less context", "git diff -U10", "git diff -U3", manualPackageProblems, "other files than review-package"},
		{"full shas in the name", "review-$(git rev-parse --short \"$b\")", "review-$b", manualPackageProblems, "other files than review-package"},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireCatches(t, c.problems(t, x.edit(t, manualMD, c.old, c.new), sh), c.want)
		})
	}
}
