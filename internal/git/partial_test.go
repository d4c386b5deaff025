package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/sdd-go/sdd-go/internal/git"
)

// clone clones src into dir with the extra arguments (a filter) and
// returns the clone's path.
func clone(t *testing.T, src *testutil.Repo, dir string, args ...string) string {
	t.Helper()
	url := filepath.ToSlash(src.Root)
	if !strings.HasPrefix(url, "/") {
		url = "/" + url // C:/… on Windows
	}
	res := testutil.RunIn(filepath.Dir(dir), src.Env, "git", append(append([]string{"clone", "-q"}, args...), "file://"+url, dir)...)
	require.Equal(t, 0, res.Code, res.Stderr)
	return dir
}

// writeConfig appends text to the configuration of the clone in dir.
func writeConfig(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func gitIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	res := testutil.RunIn(dir, env, "git", args...)
	require.Equal(t, 0, res.Code, res.Stderr)
}

// PartialClone tells, from the repository's configuration files alone (no
// git run), whether git may fetch missing objects there; where it cannot
// tell, it says yes.
func TestPartialClone(t *testing.T) {
	src := testutil.NewRepo(t)
	src.Commit("first", "f.txt", "one\n", "sub/g.txt", "two\n")
	gitIn(t, src.Root, src.Env, "config", "uploadpack.allowFilter", "true")
	tmp := testutil.RealTempDir(t)
	plain := clone(t, src, filepath.Join(tmp, "plain"))
	partial := clone(t, src, filepath.Join(tmp, "partial"), "--filter=blob:none")
	bare := clone(t, src, filepath.Join(tmp, "bare.git"), "--bare", "--filter=blob:none")
	gitIn(t, plain, src.Env, "worktree", "add", "-q", filepath.Join(tmp, "plain-wt"))
	gitIn(t, partial, src.Env, "worktree", "add", "-q", filepath.Join(tmp, "partial-wt"))
	included := clone(t, src, filepath.Join(tmp, "included"))
	gitIn(t, included, src.Env, "config", "include.path", filepath.Join(tmp, "more.config"))
	mixedCase := clone(t, src, filepath.Join(tmp, "mixed-case"))
	writeConfig(t, mixedCase, "[Remote \"origin\"]\n\tPromisor\n")
	notPromisor := clone(t, src, filepath.Join(tmp, "promisor-partialclone-include"))
	writeConfig(t, notPromisor, "[remote \"promisor\"]\n\turl = /partialclone/promisor\n\tfetch = +refs/heads/*:refs/remotes/promisor/* \\\n[include]\n")
	outside := filepath.Join(tmp, "outside")
	require.NoError(t, os.Mkdir(outside, 0o755))

	for _, c := range []struct {
		name string
		dir  string
		env  []string
		want bool
	}{
		{"a clone", plain, nil, false},
		{"a clone's subdirectory", filepath.Join(plain, "sub"), nil, false},
		{"inside a clone's .git", filepath.Join(plain, ".git"), nil, false},
		{"a clone's linked worktree", filepath.Join(tmp, "plain-wt", "sub"), nil, false},
		{"a partial clone", partial, nil, true},
		{"a partial clone's subdirectory", filepath.Join(partial, "sub"), nil, true},
		{"a partial clone's linked worktree", filepath.Join(tmp, "partial-wt", "sub"), nil, true},
		{"a bare partial clone", bare, nil, true},
		{"GIT_DIR naming a partial clone", plain, []string{"GIT_DIR=" + filepath.Join(partial, ".git")}, true},
		{"GIT_DIR naming a clone", partial, []string{"GIT_DIR=" + filepath.Join(plain, ".git")}, false},
		{"git -c remote.origin.promisor=true", plain, []string{"GIT_CONFIG_PARAMETERS='remote.origin.promisor'='true'"}, true},
		{"a configuration that includes another file", included, nil, true},
		{"a promisor in other letters", mixedCase, nil, true},
		{"the words in names and values only", notPromisor, nil, false},
		{"no repository", outside, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"GIT_DIR", "GIT_CONFIG_PARAMETERS"} {
				t.Setenv(k, "")
				require.NoError(t, os.Unsetenv(k))
			}
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			t.Chdir(c.dir)
			assert.Equal(t, c.want, git.PartialClone())
		})
	}
}
