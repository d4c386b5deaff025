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

	"github.com/sdd-go/sdd-go/internal/dev/follower"
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

// numbered shows what was read so that the follower reads it back
// exactly: a whole read keeps the piece after the last newline, a read of
// limit lines that got them all does not.
func TestNumbered(t *testing.T) {
	for _, text := range []string{"", "a\n", "a\nb", "a\n\nb\n"} {
		assert.Equal(t, text, follower.FileText(numbered(text, 1, 0)), "%q", text)
	}
	assert.Equal(t, "3\tc\n4\td", numbered("c\nd\n", 3, 2))
	assert.Equal(t, "3\tc\n4\t", numbered("c\n", 3, 2))
	assert.Equal(t, "1\ta\n2\tb", numbered("a\nb\n", 1, 2))
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
