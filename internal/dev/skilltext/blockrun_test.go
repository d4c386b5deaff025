package skilltext

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The helpers here run a block of the text the way a host that starts a
// new shell per tool call would. They are shared with the walk-through
// and resume tests.

// angleRe matches a placeholder of the text: <N>, <plan file>.
var angleRe = regexp.MustCompile(`<[A-Za-z0-9][A-Za-z0-9 ]*>`)

// markdownSection is the text under the "## <title>" heading, up to the
// next heading of level two.
func markdownSection(t *testing.T, text, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n## "+title+"\n")
	require.True(t, ok, "a section ## %s", title)
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") && !insideFence(lines[:i]) {
			return strings.Join(lines[:i], "\n")
		}
	}
	return rest
}

func insideFence(lines []string) bool {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			n++
		}
	}
	return n%2 == 1
}

// shellBlocks are the top-level ```sh blocks of a markdown text.
func shellBlocks(text string) []Fence {
	var out []Fence
	for _, f := range Fences(text) {
		if f.Depth == 0 && f.Lang() == "sh" {
			out = append(out, f)
		}
	}
	return out
}

// blockRunner runs command blocks the way a host that starts a new shell
// per tool call would: sh with an environment holding only PATH (the
// commands and git) and HOME, in the repository root. -e and -u make a
// failing command or an unset variable fail the block.
type blockRunner struct {
	t      *testing.T
	sh     string
	dir    string
	env    []string
	values map[string]string // placeholder or literal → value
}

func newBlockRunner(t *testing.T, dir string) *blockRunner {
	t.Helper()
	requireBinaries(t)
	sh, err := exec.LookPath("sh")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("no POSIX shell on this host")
	}
	gitPath, err := exec.LookPath("git")
	require.NoError(t, err)
	home := t.TempDir()
	path := strings.Join([]string{binDir, filepath.Dir(gitPath), filepath.Dir(sh), "/usr/bin", "/bin"}, string(os.PathListSeparator))
	return &blockRunner{t: t, sh: sh, dir: dir, env: []string{"PATH=" + path, "HOME=" + home}, values: map[string]string{}}
}

// substitute replaces the placeholders and mapped literals of a block;
// the longest keys go first, so "<fix base sha>" is not read as "<base sha>".
func (b *blockRunner) substitute(body string) string {
	keys := make([]string, 0, len(b.values))
	for k := range b.values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		body = strings.ReplaceAll(body, k, b.values[k])
	}
	return body
}

func (b *blockRunner) run(f Fence) (string, result) {
	b.t.Helper()
	script := b.substitute(f.Body)
	require.NotRegexp(b.t, angleRe, script, "line %d: a placeholder left without a value", f.Line)
	return script, runIn(b.t, b.dir, b.env, b.sh, "-eu", "-c", script)
}
