package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExpandMatchesPrintf: the stand-in writes what printf(1) writes for
// every format the e2e testscripts use, and a few edges.
func TestExpandMatchesPrintf(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf(1) to compare with")
	}
	for _, f := range []string{
		`\x00\x01\x02PNG\xff\x00binary`,
		`## Task 1 \xff\xfe\n\x80\x81 latin1: \xe9t\xe9 nul:\000:  \n\t\n\n## Task 2\n`,
		`## Task 1\rone\r## Task 2\r\n`,
		`# Plan\r\n## Task 1\r\none\r\n## Task 2\r\ntwo\r\n`,
		`## Task 1\none\n##\vTask 2\n## Task\v2\n## Task\f2\n##\rTask 2\nend\n`,
		`## Task 7`,
		`100%% \\ \" \' \a\b \z \0123 \18 \x4g`,
	} {
		want, err := exec.Command(printf, f).Output()
		require.NoError(t, err, f)
		got, err := expand(f)
		require.NoError(t, err, f)
		assert.Equal(t, want, got, f)
	}
}

func TestExpandRefusesDirectives(t *testing.T) {
	for _, f := range []string{`%s`, `x %d`, `\x`} {
		_, err := expand(f)
		assert.Error(t, err, f)
	}
}
