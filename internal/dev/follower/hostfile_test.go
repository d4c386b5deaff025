package follower

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestByName(t *testing.T) {
	for in, want := range map[string]string{
		"sdd-ledger look 'p.md' 'main'":                          "sdd-ledger look 'p.md' 'main'",
		"'/home/u/.codex/skills/x/bin/sdd-ledger' finish 'p.md'": "sdd-ledger finish 'p.md'",
		"'/a b/bin/task-brief' 'p.md' 1":                         "task-brief 'p.md' 1",
		"'/a/bin/other' x":                                       "'/a/bin/other' x",
		"sh check1.sh":                                           "sh check1.sh",
		"sh check1.sh && '/c/bin/sdd-ledger' close 'p.md' 1":     "sh check1.sh && sdd-ledger close 'p.md' 1",
		"'unclosed": "'unclosed",
	} {
		assert.Equal(t, want, ByName(in), in)
	}
}
