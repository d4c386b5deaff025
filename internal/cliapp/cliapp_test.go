package cliapp_test

import (
	"bytes"
	"context"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/cliapp"
)

// tool is a command of two arguments that records what it was given and
// prints one line.
func tool(got *[]string) cliapp.Command {
	return cliapp.Command{
		Name: "tool", Args: "A B", Description: "Does nothing.", MinArgs: 2, MaxArgs: 2,
		Run: func(_ context.Context, env *cliapp.Env, args []string) error {
			*got = args
			_, err := env.Stdout.Write([]byte("wrote x\n"))
			return err
		},
	}
}

// Arguments are positional whatever they look like; a sole -h, --help or
// --version is the one exception (docs/spec.md every-positional, diff1).
func TestArgumentsArePositional(t *testing.T) {
	for _, args := range [][]string{
		{"-h", "--help"},
		{"--version", "x"},
		{"-v", "x"},
		{"--", "-"},
		{"a=b.md", "-p.md"},
	} {
		var got []string
		var stdout, stderr bytes.Buffer
		status := cliapp.Run(context.Background(), tool(&got), append([]string{"tool"}, args...), &stdout, &stderr)
		assert.Equal(t, 0, status, "%q", args)
		assert.Equal(t, args, got, "%q", args)
		assert.Equal(t, "wrote x\n", stdout.String(), "%q", args)
		assert.Empty(t, stderr.String(), "%q", args)
	}

	for _, args := range [][]string{{"-v"}, {"--"}, {"-h", "x", "y"}} {
		var got []string
		var stdout, stderr bytes.Buffer
		status := cliapp.Run(context.Background(), tool(&got), append([]string{"tool"}, args...), &stdout, &stderr)
		assert.Equal(t, 2, status, "%q", args)
		assert.Equal(t, "usage: tool A B\n", stderr.String(), "%q: the script's usage line", args)
		assert.Nil(t, got, "%q", args)
	}

	var got []string
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, cliapp.Run(context.Background(), tool(&got), []string{"tool", "--help"}, &stdout, &stderr))
	assert.Equal(t, "usage: tool A B\n\nDoes nothing.\n", stdout.String())
	assert.Nil(t, got)
}

// A stdout that is open but cannot take the success line fails the
// command, in bash's echo's words (docs/spec.md diff10).
func TestStdoutThatCannotTakeTheLine(t *testing.T) {
	var got []string
	var stderr bytes.Buffer
	status := cliapp.Run(context.Background(), tool(&got), []string{"tool", "a", "b"}, failing{syscall.ENOSPC}, &stderr)
	assert.Equal(t, 1, status)
	assert.Equal(t, "tool: write error: no space left on device\n", stderr.String())
}

type failing struct{ err error }

func (f failing) Write([]byte) (int, error) { return 0, f.err }
