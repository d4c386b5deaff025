package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/hostcli"
)

// list is the table, a row a CLI; a call of another shape is the usage,
// exit 2, before anything is installed.
func TestRun(t *testing.T) {
	var out, errOut strings.Builder
	code, err := run([]string{"list"}, &out, &errOut)
	assert.NoError(t, err)
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^claude +\S+ +SDD_CLAUDE_CODE +@anthropic-ai/claude-code-\{platform\}@\{version\}$`, out.String())
	assert.Len(t, strings.Split(strings.TrimSpace(out.String()), "\n"), len(hostcli.All))

	for _, args := range [][]string{nil, {"install"}, {"install", "claude", "x"}, {"run", "claude", "x"}, {"remove", "claude"}} {
		code, err := run(args, &out, &errOut)
		assert.Equal(t, 2, code, "%q", args)
		assert.EqualError(t, err, usage, "%q", args)
	}
	code, err = run([]string{"env", "claude-code"}, &out, &errOut)
	assert.Equal(t, 2, code)
	assert.ErrorContains(t, err, `no host CLI "claude-code"`)
}
