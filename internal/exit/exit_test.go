package exit_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"a script's line", exit.Errorf(exit.Usage, "bad BASE: %s", "x"), 2},
		{"wrapped", fmt.Errorf("context: %w", exit.Errorf(exit.NotFound, "task 1 not found")), 3},
		{"git's own status", &git.Error{Status: 129}, 129},
		{"git killed by SIGKILL", &git.Error{Status: 128 + 9, Signal: syscall.SIGKILL}, 137},
		{"a signal", &exit.Signaled{Signal: syscall.SIGTERM}, 143},
		{"anything else", errors.New("disk on fire"), 1},
	} {
		assert.Equal(t, tc.want, exit.Status(tc.err), tc.name)
	}
}

// The three kinds of line of docs/spec.md every-messages: the script's own
// words as they are, ours after the program's name, and a file's failure
// (below).
func TestScriptLinesArePrintedAsTheyAre(t *testing.T) {
	e := exit.Errorf(exit.Usage, "no such plan file: %s", "-p.md")
	assert.Equal(t, "no such plan file: -p.md", e.Msg)
	assert.False(t, e.Prefixed, "the script's own words carry no program name")
	assert.Equal(t, e.Msg, e.Error())

	o := exit.Ownf(exit.Usage, "refusing to write %s", "plan.md")
	assert.Equal(t, "refusing to write plan.md", o.Msg)
	assert.True(t, o.Prefixed, "our own words follow the program's name")
}

// A failed file is named as the user gave it, whatever path the error
// holds (a temporary file, the end of a symlink chain), with the reason
// alone after it.
func TestFileNamesTheUsersPath(t *testing.T) {
	dir := t.TempDir()
	_, err := os.OpenFile(filepath.Join(dir, "missing", ".sdd-123.tmp"), os.O_RDWR|os.O_CREATE, 0o666)
	require.Error(t, err)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	e := exit.File(exit.IO, "missing/out.md", err)
	assert.Equal(t, "missing/out.md: "+pe.Err.Error(), e.Msg)
	assert.True(t, e.Prefixed)
	assert.Equal(t, exit.IO, e.Code)
	assert.ErrorIs(t, e, err, "the cause is kept")

	// Not a path error at all: the reason is the error.
	assert.Equal(t, "out.md: file too large", exit.File(exit.IO, "out.md", syscall.EFBIG).Msg)
}

// FileOf names the path the error names: the new name of a link, the file
// of a path error; "file exists" in the same words on every OS.
func TestFileOfNamesTheErrorsPath(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, nil, 0o666))
	require.NoError(t, os.WriteFile(b, nil, 0o666))
	err := os.Link(a, b)
	require.Error(t, err)
	assert.Equal(t, b+": file exists", exit.FileOf(exit.IO, err).Msg)

	err = os.Mkdir(a, 0o777)
	assert.Equal(t, a+": file exists", exit.FileOf(exit.IO, err).Msg)

	assert.Equal(t, "no free name", exit.FileOf(exit.IO, errors.New("no free name")).Msg, "no path: the reason alone")
}

func TestSilentSaysNothing(t *testing.T) {
	cause := errors.New("git said it")
	e := exit.Silent(128, cause)
	assert.Empty(t, e.Msg)
	assert.Equal(t, 128, exit.Status(e))
	assert.Equal(t, "git said it", e.Error(), "still describes itself to a developer")
}
