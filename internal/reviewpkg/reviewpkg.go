// Package reviewpkg writes a review package: everything a reviewer needs to
// judge the commits BASE..HEAD, in one file read in one call. The range is
// a task's recorded BASE, never HEAD~1, which would drop all but the last
// commit of a multi-commit task.
package reviewpkg

import (
	"context"
	"io"

	"github.com/sdd-go/sdd-go/internal/git"
)

// Write streams the package for base..head into w and returns its size: a
// title, the commit list, the stat summary and the diff with ten lines of
// context. Git's output is never held in memory. Git runs with the caller's
// configuration, so the package looks exactly as the user's git prints it.
// A failure to write w is a *git.WriteError; git's own failure a *git.Error.
// The caller has made sure neither revision reads as an option; the range
// also follows --end-of-options, should one ever slip through.
func Write(ctx context.Context, g *git.Runner, w io.Writer, base, head string) (int64, error) {
	rng := base + ".." + head
	sections := []struct {
		heading string
		args    []string
	}{
		{"# Review package: " + rng + "\n\n## Commits\n", []string{"log", "--oneline", "--end-of-options", rng}},
		{"\n## Files changed\n", []string{"diff", "--stat", "--end-of-options", rng}},
		{"\n## Diff\n", []string{"diff", "-U10", "--end-of-options", rng}},
	}
	var size int64
	for _, s := range sections {
		n, err := io.WriteString(w, s.heading)
		size += int64(n)
		if err != nil {
			return size, &git.WriteError{Err: err}
		}
		m, err := g.Stream(ctx, w, s.args...)
		size += m
		if err != nil {
			return size, err
		}
	}
	return size, nil
}
