package compat

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The checker is tested against itself: the "reference" is our own
// binaries behind tiny shell wrappers, so no bash reference and no network
// is needed. An identity wrapper must give a clean run; each mutating
// wrapper must be caught.

// mutationScenarios is how many scenarios each mutation runs, chosen to
// be able to show it.
const mutationScenarios = 20

// cleanScenarios is the size of a clean run: 40, or 12 under go test
// -short (make test; make test-full runs 40, make compat 500).
func cleanScenarios() int {
	if testing.Short() {
		return 12
	}
	return 40
}

// ours is the directory of the three commands, built once per test binary
// as they ship.
func ours(t *testing.T) string {
	t.Helper()
	dir, err := testutil.ToolBinaries()
	require.NoError(t, err)
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	os.Exit(code)
}

// wrappers writes a directory holding all three names (the reference calls
// its siblings): each runs our binary, and mutate[name], when given, is a
// bash snippet run in its place; it may use $OURS, the real binary.
func wrappers(t *testing.T, oursBin string, mutate map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range ship.DropIns {
		body, ok := mutate[c]
		if !ok {
			body = `exec "$OURS" "$@"`
		}
		script := "#!/usr/bin/env bash\nOURS=" + shellQuote(filepath.Join(oursBin, c)) + "\nSCRATCH=" + shellQuote(dir) + "\n" + body + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, c), []byte(script), 0o755))
	}
	return dir
}

// runChecker runs n scenarios of seed 1: the first ones, or with want, the
// first ones want accepts.
func runChecker(t *testing.T, ref, oursBin string, n int, want func(*Scenario) bool) (Summary, string) {
	t.Helper()
	cfg := Config{Seed: 1, N: n, Ref: ref, Ours: oursBin, WorkDir: DefaultWorkDir()}
	for id := 1; want != nil && len(cfg.Only) < n && id < 100*n; id++ {
		if want(genScenario(cfg.Seed, id)) {
			cfg.Only = append(cfg.Only, id)
		}
	}
	if want != nil {
		// A rare shape may have fewer than n scenarios among the first
		// 100*n; a handful is still a test.
		require.GreaterOrEqual(t, len(cfg.Only), min(n, 5), "too few scenarios show the shape")
		n = len(cfg.Only)
	}
	var out bytes.Buffer
	cfg.Out = &out
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NotEmpty(t, lines)
	assert.Regexp(t, fmt.Sprintf(`^compat: \d+ passed, \d+ failed \(%d scenarios, seed 1\)$`, n), lines[len(lines)-1])
	return sum, out.String()
}

// uses reports whether the scenario's last step runs cmd and, when data is
// not empty, some file of the scenario contains it.
func uses(cmd, data string) func(*Scenario) bool {
	return func(s *Scenario) bool {
		if s.steps[len(s.steps)-1].cmd != cmd || s.expect != "" {
			return false
		}
		for _, n := range s.nodes {
			if data == "" || n.kind == 'f' && strings.Contains(string(n.data), data) {
				return true
			}
		}
		return false
	}
}

// mutation is a bash snippet in place of a command (mutate, as
// wrappers takes it) and what catches it: the scenarios able to show it,
// and the command every FAIL line must then name.
type mutation struct {
	name      string
	mutate    map[string]string
	scenarios func(*Scenario) bool
	command   string
}

// requireCaught runs m's scenarios with ref as the reference and oursBin
// as ours, one of them mutated by m: the checker must fail some, and
// every failure must involve m's command.
func requireCaught(t *testing.T, ref, oursBin string, m mutation) {
	t.Helper()
	sum, out := runChecker(t, ref, oursBin, mutationScenarios, m.scenarios)
	require.Positive(t, sum.Failed, out)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			assert.Contains(t, l, m.command, "every failure involves the mutated command")
		}
	}
}

func TestIdentityReferenceIsClean(t *testing.T) {
	t.Parallel()
	o := ours(t)
	n := cleanScenarios()
	sum, out := runChecker(t, wrappers(t, o, nil), o, n, nil)
	assert.Equal(t, 0, sum.Failed, out)
	assert.Equal(t, n, sum.Passed)
	assert.Equal(t, fmt.Sprintf("compat: %d passed, 0 failed (%d scenarios, seed 1)\n", n, n), out)
}

func TestMutationsAreCaught(t *testing.T) {
	t.Parallel()
	o := ours(t)
	for _, m := range []mutation{
		{
			name: "task-brief strips carriage returns",
			mutate: map[string]string{"task-brief": `out=$("$OURS" "$@"); rc=$?
[ -n "$out" ] && printf '%s\n' "$out"
[ $rc -eq 0 ] || exit $rc
f=${out#wrote }; f=${f%: *}
tr -d '\r' < "$f" > "$SCRATCH/tmp.$$" && cat "$SCRATCH/tmp.$$" > "$f"`},
			scenarios: uses("task-brief", "\r"),
			command:   "task-brief",
		},
		{
			name:      "review-package with -U3",
			mutate:    map[string]string{"review-package": `GIT_DIFF_OPTS=-u3 exec "$OURS" "$@"`},
			scenarios: uses("review-package", ""),
			command:   "review-package",
		},
		{
			name: "sdd-workspace writes another .gitignore",
			mutate: map[string]string{"sdd-workspace": `out=$("$OURS" "$@") || exit $?
printf '%s\n' "$out"
printf '*\n!keep\n' > "$out/../.gitignore"`},
			scenarios: uses("sdd-workspace", ""),
			command:   "sdd-workspace",
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			requireCaught(t, wrappers(t, o, m.mutate), o, m)
		})
	}
}

func TestToolErrorEquivalent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ref, ours string
		want      bool
	}{
		{"bash redirection", "/x/ref/task-brief: line 28: out/x.md: No such file or directory\n", "task-brief: open out/x.md: no such file or directory\n", true},
		{"bash redirection, other path", "/x/ref/task-brief: line 28: out/x.md: No such file or directory\n", "task-brief: open out/y.md: no such file or directory\n", false},
		{"two lines from ours", "/x/ref/task-brief: line 28: d: Is a directory\n", "a d\nb d\n", false},
		{"mkdir", "mkdir: cannot create directory '/r/.superpowers': Not a directory\n", "sdd-workspace: mkdir /r/.superpowers/sdd/p: not a directory\n", true},
		{"git missing, shared suffix", "/x/review-package: line 22: git: command not found\nbad BASE: HEAD\n", "review-package: git: executable file not found in $PATH\nbad BASE: HEAD\n", true},
		{"git's #! interpreter missing", "/x/sdd-workspace: line 35: /t/git: cannot execute: required file not found\n", "sdd-workspace: /t/git: cannot execute: required file not found\n", true},
		{"git not an executable format", "/x/review-package: line 22: /t/git: cannot execute binary file: Exec format error\nbad BASE: HEAD\n", "review-package: /t/git: cannot execute binary file: exec format error\nbad BASE: HEAD\n", true},
		{"git not executable, ours names another path", "/x/sdd-workspace: line 35: /t/git: Permission denied\n", "sdd-workspace: /u/git: permission denied\n", false},
		{"git missing, ours does not say git", "/x/sdd-workspace: line 37: git: command not found\n", "sdd-workspace: not found\n", false},
		{"script's own message is never normalised", "no such plan file: p.md\n", "no such plan file: p.md \n", false},
		{"git's message is never normalised", "fatal: not a git repository (or any of the parent directories): .git\n", "fatal: not a git repository: .git\n", false},
		{"awk", "awk: cannot open a.md (No such file or directory)\n", "task-brief: open a.md: no such file\n", true},
		{"missing final newline", "mkdir: cannot create directory '/r': File exists\n", "mkdir /r: file exists", false},
		{"shared prefix kept exact", "fatal: x\nmkdir: cannot create directory '/r': File exists\n", "fatal: y\nmkdir /r: exists\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, toolErrorEquivalent([]byte(tc.ref), []byte(tc.ours)))
		})
	}
}

// newShape reports whether a scenario exercises one of these shapes of
// the generator: a symlinked or ".." path, a ledger, a path TASK_NUMBER,
// a git that cannot start, a revision shaped like an option.
func newShape(s *Scenario) bool {
	if s.ledger != nil || s.git != gitOK && s.git != gitMissing {
		return true
	}
	for _, st := range s.steps {
		if strings.HasPrefix(st.dir, "lnk-") {
			return true
		}
		for _, a := range st.args {
			if strings.Contains(a, "/../") || strings.Contains(a, "ld/") || strings.HasPrefix(a, "--output=") {
				return true
			}
		}
	}
	return false
}

func TestIdentityReferenceIsCleanOnNewShapes(t *testing.T) {
	t.Parallel()
	o := ours(t)
	sum, out := runChecker(t, wrappers(t, o, nil), o, cleanScenarios(), newShape)
	assert.Equal(t, 0, sum.Failed, out)
}

// TestMutationsOfOursAreCaught mutates OUR side (the reference is our
// binaries unchanged): the invariants and the kernel's paths must catch
// what a differential check against the scripts alone could miss.
func TestMutationsOfOursAreCaught(t *testing.T) {
	t.Parallel()
	o := ours(t)
	for _, m := range []mutation{
		{
			name: "sdd-workspace marks a workspace whose ledger names another plan",
			mutate: map[string]string{"sdd-workspace": `out=$("$OURS" "$@") || exit $?
printf '%s\n' "$out"
for d in "$out"/../*/; do
  [ -f "$d/progress.md" ] && [ ! -e "$d/plan-path" ] && printf 'x\n' > "$d/plan-path"
done
exit 0`},
			scenarios: func(s *Scenario) bool {
				return s.ledger != nil && s.git == gitOK && s.steps[0].cmd == "sdd-workspace" && !strings.HasPrefix(physical(s.steps[0].dir), "outside") && physical(s.steps[0].dir) != "repo/.git" && !strings.HasPrefix(s.steps[0].dir, "wt")
			},
			command: "sdd-workspace",
		},
		{
			name: "review-package hands an --output= revision to git",
			mutate: map[string]string{"review-package": `for a in "$2" "$3"; do
  case $a in --output=*) : > "${a#--output=}..HEAD" ;; esac
done
exec "$OURS" "$@"`},
			scenarios: func(s *Scenario) bool {
				st := s.steps[len(s.steps)-1]
				return st.cmd == "review-package" && len(st.args) >= 3 && (strings.HasPrefix(st.args[1], "--output=") || strings.HasPrefix(st.args[2], "--output="))
			},
			command: "review-package",
		},
		{
			name: "task-brief cleans OUTFILE lexically",
			mutate: map[string]string{"task-brief": `[ $# -eq 3 ] || exec "$OURS" "$@"
out=$3
if [[ $out == */../* ]]; then
  pre=${out%%/../*}; rest=${out#*/../}
  if [[ $pre == */* ]]; then out=${pre%/*}/$rest; else out=$rest; fi
fi
res=$("$OURS" "$1" "$2" "$out"); rc=$?
[ -n "$res" ] && printf '%s\n' "${res/"wrote $out:"/"wrote $3:"}"
exit $rc`},
			scenarios: func(s *Scenario) bool {
				st := s.steps[len(s.steps)-1]
				return st.cmd == "task-brief" && len(st.args) == 3 && strings.Contains(st.args[2], "/../") && !s.excuses()
			},
			command: "task-brief",
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			requireCaught(t, wrappers(t, o, nil), wrappers(t, o, m.mutate), m)
		})
	}
}
