package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPattern(t *testing.T) {
	pat := runPattern([]string{"TestScripts/rule_tb4_task_10_not_1", "TestScripts/win_a.b"})
	assert.Equal(t, `^(TestScripts)$/^(rule_tb4_task_10_not_1|win_a\.b)$`, pat)
	assert.Equal(t, `^(TestA|TestB)$`, runPattern([]string{"TestA", "TestB"}))
	// go test splits -run at slashes and matches each level.
	top := regexp.MustCompile(`^(TestScripts)$`)
	assert.True(t, top.MatchString("TestScripts"))
	assert.False(t, top.MatchString("TestScriptsX"))
}

func TestWineStartFailure(t *testing.T) {
	assert.True(t, wineStartFailure([]string{
		"> status 3 task-brief plan.md 9",
		`FAIL: testdata\script\x.txtar:3: status: fork/exec Z:\tmp\bin\task-brief.exe: Internal error.`,
	}))
	assert.True(t, wineStartFailure([]string{`[fork/exec Z:\tmp\toolbin\git.exe: Internal error.]`}))
	assert.False(t, wineStartFailure([]string{"> cmp stdout want", "FAIL: x.txtar:5: stdout and want differ"}))
	assert.False(t, wineStartFailure([]string{`[fork/exec Z:\tmp\bin\x.exe: Path not found.]`}))
}

// The harness builds the DLL from a source it names by path; a move of
// the tree must move the name with it.
func TestPrngSourceExists(t *testing.T) {
	_, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(prngSource)))
	assert.NoError(t, err)
}

// TestEveryScriptButTheLedgersRunsUnderWine: the e2e suite's pattern
// leaves out only sdd-ledger's rule scripts but carry's, so a script of a
// new prefix is not dropped from the Windows suite unseen.
func TestEveryScriptButTheLedgersRunsUnderWine(t *testing.T) {
	top, sub, ok := strings.Cut(suites[0].run, "/")
	require.True(t, ok, suites[0].run)
	require.Equal(t, "^TestScripts$", top)
	pat := regexp.MustCompile(sub)
	names, err := filepath.Glob(filepath.Join("..", "..", "internal", "dev", "e2e", "testdata", "script", "*.txtar"))
	require.NoError(t, err)
	require.Greater(t, len(names), 100)
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		assert.Equal(t, !strings.HasPrefix(name, "rule_ld") || name == "rule_ld7_carry", pat.MatchString(name), name)
	}
}
