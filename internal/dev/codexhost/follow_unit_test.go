package codexhost

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
