package plaincmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	cmds, err := Parse(`sdd-ledger close 'docs/my plan.md' 2 'a $HOME; (x) — y' && sdd-ledger task "docs/p.md" 3`)
	require.NoError(t, err)
	assert.Equal(t, [][]string{
		{"sdd-ledger", "close", "docs/my plan.md", "2", "a $HOME; (x) — y"},
		{"sdd-ledger", "task", "docs/p.md", "3"},
	}, cmds)
	cmds, err = Parse("git add -- 'greet.txt' && git commit -m 'Task 1: greet'")
	require.NoError(t, err)
	assert.Len(t, cmds, 2)
}

// TestParseRefuses: each construct the host asks about is not plain.
func TestParseRefuses(t *testing.T) {
	for _, line := range []string{
		`ws=$(sdd-workspace p.md)`, "x `date`", `echo $HOME`, `echo ${x#'a'}`, `a=b sdd-ledger look p main`,
		`printf x >> progress.md`, `cat < p`, `git log | head`, `a; b`, "a\nb", `a & b`, `(cd x && ls)`,
		`{ a; }`, `for f in a; do b; done`, `ls *.md`, `echo "a $b"`, `echo 'open`, `echo a # c`, `cd ~`,
		`&& a`, `a &&`, ``, `echo a\ b`,
	} {
		_, err := Parse(line)
		assert.Error(t, err, "%q", line)
	}
}

func TestCheck(t *testing.T) {
	rules := Rules([]string{"Skill", "Read", "Bash(sdd-ledger:*)", "Bash(git add:*)", "Bash(git commit:*)", "Bash(sh check1.sh)"})
	require.Len(t, rules, 4)
	requireAllows(t, rules, map[string]bool{
		"sdd-ledger look 'docs/p.md' 'main'":        true,
		"sh check1.sh && sdd-ledger close 'p.md' 1": true,
		"sh check1.sh -x":                           false,
		"git add -- 'a' && git commit -m 'b'":       true,
		"git push":                                  false,
		"/abs/bin/sdd-ledger look p main":           false,
		"sdd-ledger look p main && rm -rf x":        false,
		"sdd-ledger look p main && echo $x":         false,
		"git  add  x":                               true,
	})
	// Claude Code's wildcard words, as measured in 2.1.328: a quoted path
	// with blanks is one word.
	requireAllows(t, Rules([]string{"Bash(git -C * add *)", "Bash(git -C * commit *)"}), map[string]bool{
		"git -C '/r/my repo' add a.txt":         true,
		"git -C '/r/my repo' commit -m 'x'":     true,
		"git -C '/r/my repo' push":              false,
		"git add a.txt":                         false,
		"git -C '/r' add a && git -C '/r' push": false,
	})
}

// requireAllows requires Check with rules to pass each line marked true
// and refuse each marked false.
func requireAllows(t *testing.T, rules []Rule, lines map[string]bool) {
	t.Helper()
	for line, ok := range lines {
		err := Check(line, rules)
		assert.Equal(t, ok, err == nil, "%q: %v", line, err)
	}
}
