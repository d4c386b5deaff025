package codexhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/scripted"
)

// The adapter's pure parts, without the CLI.

func TestKeptLines(t *testing.T) {
	out := "Warning: truncated output (original token count: 5974)\nTotal output lines: 5000\n\n1\n2\n12…13893 chars truncated…4001\n4002\n"
	kept, ok := keptLines(out)
	assert.True(t, ok)
	assert.Equal(t, "1\n2\n", kept)
	_, ok = keptLines("Warning: truncated output\nTotal output lines: 1\n\nno marker")
	assert.False(t, ok)
}

// WriteCommands write the content exactly, a long one in parts of whole
// characters, each command well under Linux's 128 KiB for one argument.
func TestWriteCommands(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é'x\n", writeChunk/2) // 2-byte letters, quotes, a part boundary inside a letter
	for name, content := range map[string]string{"empty": "", "short": "a 'quoted' line\n", "no newline": "x", "long": long,
		"quotes": strings.Repeat("'", 3*writeChunk)} {
		path := filepath.Join(dir, "sub dir", name+".txt")
		cmds := WriteCommands(path, content)
		if len(content) <= writeChunk {
			assert.Len(t, cmds, 1, name)
		}
		for _, c := range cmds {
			assert.True(t, utf8.ValidString(c), name)
			assert.Less(t, len(c), 128*1024, name)
			out, err := exec.Command("sh", "-c", c).CombinedOutput()
			require.NoError(t, err, "%s: %s", name, out)
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, content, string(got), name)
	}
}

// A part that comes back empty with code 0 is read again (the CLI may
// answer before a fast command's output reached it), at most twice; one
// that is empty every time is empty.
func TestReadAgainWhenEmpty(t *testing.T) {
	srv, ask := scripted.PlayerOf(scripted.Responses{}).Fake(t, promptOf, true)
	srv.Handle("read", func(a *scripted.Turns) {
		a.Say("read: " + adapter{}.Read(a, "/r/f.diff", 1, 2000).Text)
	})
	// answers plays the reads, each answered with the next output, and
	// returns the commands and the last words.
	answers := func(outputs ...string) (cmds []string, said string) {
		var results []string
		for _, o := range outputs {
			results = append(results, execText(0, o))
		}
		calls, said := scripted.Answer(t, ask, []scripted.Entry{user("read")}, results...)
		for _, c := range calls {
			cmds = append(cmds, string(c.Input))
		}
		return cmds, said
	}
	cmds, said := answers("", "a\nb\n")
	assert.Len(t, cmds, 2)
	assert.Equal(t, cmds[0], cmds[1], "the same read again")
	assert.Equal(t, "read: 1\ta\n2\tb\n3\t", said)

	cmds, said = answers("", "", "")
	assert.Len(t, cmds, 3)
	assert.Equal(t, "read:", strings.TrimSpace(said))
	assert.Empty(t, srv.Failures())
}
