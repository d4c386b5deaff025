package git_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/sdd-go/sdd-go/internal/git"
)

// inRepo makes a repository with one commit and runs the rest of the test
// in it (testutil.Repo.Enter): the Runner runs git in this process's
// directory and environment, as the commands do.
func inRepo(t *testing.T) *testutil.Repo {
	t.Helper()
	r := testutil.NewRepo(t)
	r.Enter()
	r.Commit("first", "f.txt", "one\n")
	return r
}

func TestOutputIsGitsStdout(t *testing.T) {
	r := inRepo(t)
	var stderr bytes.Buffer
	out, err := git.New(&stderr).Output(context.Background(), "rev-parse", "HEAD")
	require.NoError(t, err)
	assert.Equal(t, r.Git("rev-parse", "HEAD")+"\n", string(out))
	assert.Equal(t, r.Git("rev-parse", "HEAD"), git.TrimCommandSubstitution([]byte(r.Git("rev-parse", "HEAD")+"\n\n\n")))
	assert.Empty(t, stderr.String())
}

// Git's own failure: its status handed on, its message on the runner's
// stderr, nothing of ours added.
func TestGitsStatusAndMessagePassThrough(t *testing.T) {
	inRepo(t)
	var stderr bytes.Buffer
	g := git.New(&stderr)
	_, err := g.Output(context.Background(), "rev-parse", "--verify", "--quiet", "nope")
	var ge *git.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 1, ge.Status)
	assert.Empty(t, ge.Unstarted, "git ran")
	assert.Zero(t, ge.Signal)
	assert.Empty(t, stderr.String(), "--quiet says nothing")

	_, err = g.Output(context.Background(), "log", "nope")
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 128, ge.Status)
	assert.True(t, strings.HasPrefix(stderr.String(), "fatal: ambiguous argument 'nope'"), stderr.String())

	stderr.Reset()
	t.Chdir(t.TempDir())
	_, err = g.Output(context.Background(), "rev-parse", "--show-toplevel")
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 128, ge.Status)
	assert.Contains(t, stderr.String(), "not a git repository")
}

// ToFile hands git the file itself: git writes at the file's offset, which
// it shares with this process, so what is written before and after lines
// up without a copy.
func TestToFileWritesAtTheFilesOffset(t *testing.T) {
	r := inRepo(t)
	f, err := os.Create(t.TempDir() + "/out")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("before\n")
	require.NoError(t, err)
	require.NoError(t, git.New(os.Stderr).ToFile(context.Background(), f, "rev-parse", "HEAD"))
	_, err = f.WriteString("after\n")
	require.NoError(t, err)
	b, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	assert.Equal(t, "before\n"+r.Git("rev-parse", "HEAD")+"\nafter\n", string(b))
}

// Stream copies through a pipe and counts what arrived; a writer that
// fails is our failure (a *WriteError), not git's.
func TestStreamCountsAndReportsWriteFailures(t *testing.T) {
	r := inRepo(t)
	r.Commit("second", "f.txt", "two\n")
	g := git.New(os.Stderr)
	var buf bytes.Buffer
	n, err := g.Stream(context.Background(), &buf, "log", "--oneline")
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)
	assert.Equal(t, r.Git("log", "--oneline")+"\n", buf.String())

	broken := errors.New("disk on fire")
	n, err = g.Stream(context.Background(), failingWriter{broken}, "log", "--oneline")
	var we *git.WriteError
	require.ErrorAs(t, err, &we)
	assert.ErrorIs(t, err, broken)
	assert.Zero(t, n)
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// Git inherits this process's standard input; without one, git reads an
// empty one instead of hanging or failing.
func TestGitInheritsStandardInput(t *testing.T) {
	inRepo(t)
	in, err := os.Create(t.TempDir() + "/in")
	require.NoError(t, err)
	_, err = in.WriteString("from our stdin\n")
	require.NoError(t, err)
	_, err = in.Seek(0, 0)
	require.NoError(t, err)
	defer func(f *os.File) { os.Stdin = f }(os.Stdin)

	os.Stdin = in
	out, err := git.New(os.Stderr).Output(context.Background(), "hash-object", "--stdin")
	require.NoError(t, err)
	want := testutil.RunIn(".", os.Environ(), "git", "hash-object", in.Name())
	assert.Equal(t, want.Stdout, string(out))

	require.NoError(t, in.Close())
	out, err = git.New(os.Stderr).Output(context.Background(), "hash-object", "--stdin") // a closed stdin: nothing to read
	require.NoError(t, err)
	empty := t.TempDir() + "/empty"
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	assert.Equal(t, testutil.RunIn(".", os.Environ(), "git", "hash-object", empty).Stdout, string(out))
}

// Start runs git in the background, beside other runs: each with its own
// stdout and, when given, its own stderr (the runner's otherwise).
func TestStartRunsSideBySide(t *testing.T) {
	r := inRepo(t)
	var runnerErr, ownErr, out, discarded bytes.Buffer
	g := git.New(&runnerErr)
	f, err := os.Create(t.TempDir() + "/out")
	require.NoError(t, err)
	defer f.Close()
	toFile := g.Start(context.Background(), f, nil, "rev-parse", "HEAD")
	failing := g.Start(context.Background(), &discarded, &ownErr, "log", "nope")
	piped := g.Start(context.Background(), &out, nil, "rev-parse", "--short", "HEAD")

	n, err := piped.Wait()
	require.NoError(t, err)
	assert.Equal(t, r.Git("rev-parse", "--short", "HEAD")+"\n", out.String())
	assert.Equal(t, int64(out.Len()), n)
	_, err = failing.Wait()
	var ge *git.Error
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 128, ge.Status)
	assert.True(t, strings.HasPrefix(ownErr.String(), "fatal: ambiguous argument 'nope'"), ownErr.String())
	n, err = toFile.Wait()
	require.NoError(t, err)
	assert.Zero(t, n, "git wrote the file itself")
	b, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	assert.Equal(t, r.Git("rev-parse", "HEAD")+"\n", string(b))
	assert.Empty(t, runnerErr.String())
}

// Runs that share the runner's Stderr (a buffer, not a file git is handed)
// write to it one at a time.
func TestStartedRunsShareStderrSafely(t *testing.T) {
	inRepo(t)
	var stderr bytes.Buffer
	g := git.New(&stderr)
	var runs []*git.Started
	for range 4 {
		runs = append(runs, g.Start(context.Background(), &bytes.Buffer{}, nil, "log", "nope"))
	}
	for _, s := range runs {
		_, err := s.Wait()
		require.Error(t, err)
	}
	assert.Equal(t, 4, strings.Count(stderr.String(), "fatal: ambiguous argument 'nope'"), stderr.String())
}
