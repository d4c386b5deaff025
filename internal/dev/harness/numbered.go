package harness

import (
	"fmt"
	"strings"
)

// Numbered is text read from line first on, limit lines asked (0: to the
// end), in the view of a file tool the follower reads
// (follower.FileLines): each line numbered, a tab, its text. A read to
// the end shows the empty piece after a last newline, as Claude Code's
// Read does, so that the pieces joined with newlines are what was read.
// It is how a host whose model reads a file with a shell command (Codex)
// or a tool that numbers nothing (Copilot's view) shows the follower
// what it read.
func Numbered(text string, first, limit int) string {
	if text == "" {
		return ""
	}
	pieces := strings.Split(text, "\n")
	if limit > 0 && strings.Count(text, "\n") >= limit && pieces[len(pieces)-1] == "" {
		pieces = pieces[:len(pieces)-1]
	}
	var b strings.Builder
	for i, p := range pieces {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", first+i, p)
	}
	return b.String()
}
