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
	return NumberedLines(pieces, first)
}

// NumberedLines is lines, read from line first on, in the same view: each
// numbered, a tab, its text, every line shown (an empty last one too).
// It is how a host whose read tool gives a file's lines unnumbered and
// cut into parts (Pi's read, Droid's Read) shows the follower the parts'
// lines together.
func NumberedLines(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d\t%s", first+i, l)
	}
	return b.String()
}
