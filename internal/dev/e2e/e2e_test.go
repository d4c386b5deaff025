// Package e2e runs the real, built binaries end to end: testscript files
// under testdata/script, one rule of docs/spec.md each, named after it (rule_ws3_…, rule_diff2_…), and Go tests for
// what a script cannot say well (concurrency, large inputs).
package e2e

import (
	"flag"
	"fmt"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

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
