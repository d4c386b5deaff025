// Package reviewpkg writes a review package: everything a reviewer needs to
// judge the commits BASE..HEAD, in one file read in one call. The range is
// a task's recorded BASE, never HEAD~1, which would drop all but the last
// commit of a multi-commit task.
package reviewpkg

import (
	"context"
	"io"
	"os"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/git"
)

// The package is, in this order: a title, the commit list, the stat
// summary and the diff with ten lines of context.
func title(rng string) string { return "# Review package: " + rng + "\n\n## Commits\n" }

const (
	statHeading = "\n## Files changed\n"
	diffHeading = "\n## Diff\n"
)

func logArgs(rng string) []string  { return []string{"log", "--oneline", "--end-of-options", rng} }
func statArgs(rng string) []string { return []string{"diff", "--stat", "--end-of-options", rng} }
func diffArgs(rng string) []string { return []string{"diff", "-U10", "--end-of-options", rng} }

// Write writes the package for base..head into out and returns its size.
// Git runs with the caller's configuration, so the package looks exactly
// as the user's git prints it; its output is never held in memory. The
// caller has made sure neither revision reads as an option; the range also
// follows --end-of-options, should one ever slip through.
//
// A failure to write out is a *git.WriteError; git's own failure a
// *git.Error. Git's stderr reaches the runner's Stderr in the order the
// script's sequential calls would print it.
func Write(ctx context.Context, g *git.Runner, out *atomicfile.File, base, head string) (int64, error) {
	rng := base + ".." + head
	f, err := out.OSFile()
	if err != nil {
		return 0, &git.WriteError{Err: err}
	}
	stat, serr := out.Scratch()
	diff, derr := out.Scratch()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || serr != nil || derr != nil {
		// A FIFO or a device cannot take git's output out of order, and
		// in place there is nowhere to put the parts: stream them in turn.
		return writeInTurn(ctx, g, out, rng)
	}
	return writeTogether(ctx, g, f, stat, diff, rng)
}

// writeTogether runs the stat and the diff beside each other, each git
// writing straight into its own file (the diff is the bulk of a package:
// no pipe, no copy through this process), while the commit list goes
// straight into the package. The parts are then joined in the kernel
// (copy_file_range). The stat's and the diff's stderr are held and
// replayed after the commit list's, as if they had run one after another.
func writeTogether(ctx context.Context, g *git.Runner, f, statFile, diffFile *os.File, rng string) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failure stops whatever still runs
	stat := g.StartToFile(ctx, statFile, statArgs(rng)...)
	diff := g.StartToFile(ctx, diffFile, diffArgs(rng)...)
	abandon := func(err error) (int64, error) {
		cancel()
		stat.Wait()
		diff.Wait()
		return 0, err
	}
	if _, err := io.WriteString(f, title(rng)); err != nil {
		return abandon(&git.WriteError{Err: err})
	}
	if err := g.ToFile(ctx, f, g.Stderr, logArgs(rng)...); err != nil {
		return abandon(err)
	}
	for _, part := range []struct {
		heading string
		run     *git.Pending
		file    *os.File
	}{{statHeading, stat, statFile}, {diffHeading, diff, diffFile}} {
		if _, err := io.WriteString(f, part.heading); err != nil {
			return abandon(&git.WriteError{Err: err})
		}
		if _, err := part.run.Result(g); err != nil {
			return abandon(err)
		}
		if err := appendFile(f, part.file); err != nil {
			return abandon(&git.WriteError{Err: err})
		}
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, &git.WriteError{Err: err}
	}
	return size, nil
}

// appendFile copies all of src (which git wrote, leaving its offset at the
// end) to dst's offset.
func appendFile(dst, src *os.File) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(dst, src) // copy_file_range on Linux: no bytes through this process
	return err
}

// writeInTurn runs the three git commands one after another, as the script
// does, copying each one's output into out through a pipe.
func writeInTurn(ctx context.Context, g *git.Runner, out io.Writer, rng string) (int64, error) {
	var size int64
	for _, s := range []struct {
		heading string
		args    []string
	}{{title(rng), logArgs(rng)}, {statHeading, statArgs(rng)}, {diffHeading, diffArgs(rng)}} {
		n, err := io.WriteString(out, s.heading)
		size += int64(n)
		if err != nil {
			return size, &git.WriteError{Err: err}
		}
		m, err := g.Stream(ctx, out, s.args...)
		size += m
		if err != nil {
			return size, err
		}
	}
	return size, nil
}
