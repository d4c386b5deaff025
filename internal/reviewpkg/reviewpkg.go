// Package reviewpkg writes a review package: everything a reviewer needs to
// judge the commits BASE..HEAD, in one file read in one call. The range is
// a task's recorded BASE, never HEAD~1, which would drop all but the last
// commit of a multi-commit task.
package reviewpkg

import (
	"context"
	"io"
	"os"

	"github.com/sdd-go/sdd-go/internal/git"
)

// part is a heading and the git command whose output follows it.
type part struct {
	heading string
	args    []string
}

// parts are the package's, in order. The range follows --end-of-options,
// should a revision that reads as an option ever get this far.
func parts(rng string) []part {
	return []part{
		{"# Review package: " + rng + "\n\n## Commits\n", []string{"log", "--oneline", "--end-of-options", rng}},
		{"\n## Files changed\n", []string{"diff", "--stat", "--end-of-options", rng}},
		{"\n## Diff\n", []string{"diff", "-U10", "--end-of-options", rng}},
	}
}

// Write writes the package for base..head into f and returns its size.
// Git runs with the caller's configuration, so the package looks exactly
// as the user's git prints it, and one git at a time, as the script runs
// them: its messages come in the script's order, and in a partial clone
// each missing blob is fetched once. Into a regular file git writes
// straight (no pipe, no copy through this process); a FIFO or a device
// gets git's output through a pipe, so that a failure to write it is ours
// to report.
//
// A failure to write f is a *git.WriteError; git's own failure a
// *git.Error.
func Write(ctx context.Context, g *git.Runner, f *os.File, base, head string) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, &git.WriteError{Err: err}
	}
	direct := fi.Mode().IsRegular()
	var size int64
	for _, p := range parts(base + ".." + head) {
		n, err := io.WriteString(f, p.heading)
		size += int64(n)
		if err != nil {
			return size, &git.WriteError{Err: err}
		}
		if direct {
			err = g.ToFile(ctx, f, p.args...)
		} else {
			var m int64
			m, err = g.Stream(ctx, f, p.args...)
			size += m
		}
		if err != nil {
			return size, err
		}
	}
	if direct {
		// Git wrote at the file's offset, which it shares with f.
		if size, err = f.Seek(0, io.SeekCurrent); err != nil {
			return size, &git.WriteError{Err: err}
		}
	}
	return size, nil
}
