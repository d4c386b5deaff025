// Package e2e runs the real, built binaries end to end: testscript files
// under testdata/script, one rule of docs/spec.md each, named after it (rule_ws3_…, rule_diff2_…), and Go tests for
// what a script cannot say well (concurrency, large inputs).
package e2e

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sdd-go/sdd-go/internal/gitenv"
	"github.com/sdd-go/sdd-go/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testscript golden files")

var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := testutil.BuildBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	testutil.CleanupBinaries()
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			env.Setenv("BIN", binDir)
			if v := os.Getenv("GORACE"); v != "" {
				env.Setenv("GORACE", v)
			}
			for _, kv := range gitenv.Hermetic(home) {
				k, v, _ := cut(kv)
				switch k {
				case "HOME", "XDG_CONFIG_HOME":
					env.Setenv(k, v)
				default:
					if len(k) > 4 && k[:4] == "GIT_" {
						env.Setenv(k, v)
					}
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": testutil.StatusCmd,
		},
	})
}

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
