package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// Numbered shows what was read so that the follower reads it back
// exactly: a whole read keeps the piece after the last newline, a read of
// limit lines that got them all does not.
func TestNumbered(t *testing.T) {
	for _, text := range []string{"", "a\n", "a\nb", "a\n\nb\n"} {
		assert.Equal(t, text, follower.FileText(Numbered(text, 1, 0)), "%q", text)
	}
	assert.Equal(t, "3\tc\n4\td", Numbered("c\nd\n", 3, 2))
	assert.Equal(t, "3\tc\n4\t", Numbered("c\n", 3, 2))
	assert.Equal(t, "1\ta\n2\tb", Numbered("a\nb\n", 1, 2))
	// The lines of parts read one after another: every one shown.
	assert.Equal(t, "3\tc\n4\t", NumberedLines([]string{"c", ""}, 3))
	assert.Equal(t, "1\t", NumberedLines([]string{""}, 1))
}
