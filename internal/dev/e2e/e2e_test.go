// Package e2e runs the real, built binaries end to end: testscript files
// under testdata/script, one rule of docs/spec.md each, named after it (rule_ws3_…, rule_diff2_…), and Go tests for
// what a script cannot say well (concurrency, large inputs).
package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

var update = flag.Bool("update", false, "rewrite testscript golden files")

var binDir string

func TestMain(m *testing.M) {
	testutil.MainWithBinaries(m, func(dir string) error {
		binDir = dir
		return nil
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			// Bytes a script line cannot hold, for the texts sdd-ledger
			// refuses (rule_ld8_*): $NL, $CR, $ESC, $DEL.
			for k, v := range map[string]string{"NL": "\n", "CR": "\r", "ESC": "\x1b", "DEL": "\x7f"} {
				env.Setenv(k, v)
			}
			return testutil.ScriptEnv(env, binDir)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "wine" {
				return testutil.UnderWine(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":  testutil.StatusCmd,
			"entries": testutil.EntriesCmd,
		},
	})
}

// eachBuild runs f as a subtest once per build that the tests of output
// files cover (testutil.OutputBuilds), with the directory of its binaries.
func eachBuild(t *testing.T, f func(t *testing.T, bins string)) {
	for _, b := range testutil.OutputBuilds(t) {
		t.Run(b.Name, func(t *testing.T) { f(t, b.Dir) })
	}
}

// readFile is the file at p, which must be there.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// assertNoTemps fails if an atomic write left a temporary file anywhere.
func assertNoTemps(t *testing.T, root string) {
	t.Helper()
	var left []string
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(info.Name(), ".sdd-") {
			left = append(left, p)
		}
		return nil
	})
	sort.Strings(left)
	assert.Empty(t, left)
}

// failedPackage runs review-package (through run) on plan.md's base..head
// twice, each run to exit with status: to an OUTFILE holding an old
// package, which must keep it, and to the default OUTFILE, which must not
// be made; neither may leave a temporary file. It returns the first run.
func failedPackage(t *testing.T, r *testutil.Repo, run func(args ...string) testutil.Result, base, head string, status int) testutil.Result {
	t.Helper()
	r.Write("old.diff", "old package\n")
	res := run("plan.md", base, head, "old.diff")
	assert.Equal(t, status, res.Code)
	assert.Equal(t, "old package\n", readFile(t, filepath.Join(r.Root, "old.diff")))
	assert.Equal(t, status, run("plan.md", base, head).Code)
	assertNoPackages(t, ws(r, "plan"))
	assertNoTemps(t, r.Root)
	return res
}

// assertNoPackages fails if dir, a workspace, holds a review package.
func assertNoPackages(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "review-"), "left %s", e.Name())
	}
}
