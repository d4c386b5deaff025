// Package reviewpkg writes a review package: everything a reviewer needs to
// judge the commits BASE..HEAD, in one file read in one call. The range is
// a task's recorded BASE, never HEAD~1, which would drop all but the last
// commit of a multi-commit task.
package reviewpkg

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/sdd-go/sdd-go/internal/git"
)

// The package is, in this order: a title, the commit list, the stat
// summary and the diff with ten lines of context. Every call puts the
// range after --end-of-options, should a revision that reads as an option
// ever get this far.
func title(rng string) string { return "# Review package: " + rng + "\n\n## Commits\n" }

const (
	statHeading = "\n## Files changed\n"
	diffHeading = "\n## Diff\n"
)

// span is the package's range, and what it leaves out: a path from the
// repository's top (sdd-ledger's packages leave out the plan, whose
// edits are the human's, never a task's work), or "" (review-package's,
// the script's calls exactly).
type span struct{ rng, exclude string }

func (s span) args(args ...string) []string {
	args = append(args, "--end-of-options", s.rng)
	if s.exclude != "" {
		args = append(args, git.AllBut(s.exclude)...)
	}
	return args
}

func (s span) title() string   { return title(s.rng) }
func (s span) log() []string   { return s.args("log", "--oneline") }
func (s span) stat() []string  { return s.args("diff", "--stat") }
func (s span) count() []string { return s.args("rev-list", "--count") }
func (s span) diff() []string {
	// diff12: git's own diff, never diff.external's. After -U10, so that
	// the call begins as the script's does ("diff -U10"), which is how a
	// stand-in for git in the tests tells the package's diff.
	return s.args("diff", "-U10", "--no-ext-diff")
}

// What a call that runs ahead of its turn may leave with this process
// before it waits for its turn (see held): the stat summary, and what any
// call says on stderr.
const (
	heldStat     = 1 << 20
	heldMessages = 64 << 10
)

// Output is where a package goes.
type Output struct {
	File *os.File
	// Scratch makes a temporary file beside File for the diff to be
	// written into while the calls before it run; nil, or failing, when
	// there can be none (an output written in place).
	Scratch func() (*os.File, error)
	// Exclude is a path, from the repository's top, the package leaves
	// out of every call (the commits, the stat, the diff, the count);
	// "" for none.
	Exclude string
}

// Write writes the package of base..head into out and counts the range's
// commits (docs/spec.md, rp5 to rp7). It returns the package's size and the
// count as the script's $(…) has it.
//
// Git runs with the caller's configuration, so the package looks exactly
// as the user's git prints it. The script runs its calls one after
// another, stopping at the first that fails; here they run side by side
// (writeTogether), or in turn where the output cannot take a part out of
// order (a FIFO, a device, a file written in place). Either way the
// package's bytes, what reaches stderr and in what order, the status of
// the first failure, the fetches of a partial clone and, on success, the
// calls are the script's.
//
// A failure to write out is a *git.WriteError; git's own failure a
// *git.Error.
func Write(ctx context.Context, g *git.Runner, out Output, base, head string) (size int64, commits string, err error) {
	rng := span{rng: base + ".." + head, exclude: out.Exclude}
	fi, err := out.File.Stat()
	if err != nil {
		return 0, "", &git.WriteError{Err: err}
	}
	direct := fi.Mode().IsRegular()
	if direct && out.Scratch != nil {
		if scratch, err := out.Scratch(); err == nil {
			return writeTogether(ctx, g, out.File, scratch, rng, git.PartialClone())
		}
	}
	if size, err = writeInTurn(ctx, g, out.File, direct, rng); err != nil {
		return size, "", err
	}
	n, err := g.Output(ctx, rng.count()...)
	return size, git.TrimCommandSubstitution(n), err
}

// writeInTurn runs the three calls of the package one after another, as
// the script does. Into a regular file git writes straight (no pipe, no
// copy through this process); a FIFO or a device gets git's output through
// a pipe, so that a failure to write it is ours to report.
func writeInTurn(ctx context.Context, g *git.Runner, f *os.File, direct bool, rng span) (int64, error) {
	var size int64
	for _, p := range []struct {
		heading string
		args    []string
	}{{rng.title(), rng.log()}, {statHeading, rng.stat()}, {diffHeading, rng.diff()}} {
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
		end, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return size, &git.WriteError{Err: err}
		}
		return end, nil
	}
	return size, nil
}

// writeTogether starts the four calls at once, and then takes each in the
// script's order, as if it had only now run. The commit list goes straight
// into the package (it is first); the stat summary waits in memory, and the
// diff, the bulk of a package, in the scratch file, git writing it there
// itself, to be copied in after the stat (copy_file_range on Linux: no
// bytes through this process); the count waits in memory. What the later
// calls say on stderr waits for their turn too. At the first failure the
// calls after it are killed and what they wrote or said is dropped, as if
// they had never started.
//
// In a partial clone (partial) the stat starts only once the diff has
// written its first byte, or ended: git fetches all the missing blobs a
// diff needs in one batch before it prints anything, so the stat finds
// them there, and the range's blobs are fetched once, as under the script
// (whose stat fetches them for its diff). The commit list and the count
// need no blobs.
func writeTogether(ctx context.Context, g *git.Runner, f, scratch *os.File, rng span, partial bool) (size int64, commits string, err error) {
	if _, err := io.WriteString(f, rng.title()); err != nil {
		return 0, "", &git.WriteError{Err: err}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stat, statErr := newHeld(heldStat), newHeld(heldMessages)
	diffErr, countErr := newHeld(heldMessages), newHeld(heldMessages)
	var count bytes.Buffer
	log := g.Start(ctx, f, nil, rng.log()...)
	diff := g.Start(ctx, scratch, diffErr, rng.diff()...)
	countRun := g.Start(ctx, &count, countErr, rng.count()...)
	startStat := func() *git.Started { return g.Start(ctx, stat, statErr, rng.stat()...) }
	statStarted := make(chan *git.Started, 1)
	if partial {
		go func() {
			written(ctx, scratch, diff)
			statStarted <- startStat()
		}()
	} else {
		statStarted <- startStat()
	}
	var statRun *git.Started
	stop := func(err error) (int64, string, error) {
		cancel()
		for _, h := range []*held{stat, statErr, diffErr, countErr} {
			h.drop()
		}
		if statRun == nil {
			statRun = <-statStarted // not started, if the diff had written nothing: ctx is done
		}
		for _, r := range []*git.Started{log, statRun, diff, countRun} {
			_, _ = r.Wait()
		}
		return 0, "", err
	}

	if _, err := log.Wait(); err != nil {
		return stop(err)
	}
	if _, err := io.WriteString(f, statHeading); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	_ = statErr.release(g.Stderr)
	if err := stat.release(f); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	statRun = <-statStarted
	if _, err := statRun.Wait(); err != nil {
		return stop(err)
	}
	if _, err := io.WriteString(f, diffHeading); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	_ = diffErr.release(g.Stderr)
	if _, err := diff.Wait(); err != nil {
		return stop(err)
	}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	if _, err := io.Copy(f, scratch); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	_ = countErr.release(g.Stderr)
	if _, err := countRun.Wait(); err != nil {
		return stop(err)
	}
	if size, err = f.Seek(0, io.SeekCurrent); err != nil {
		return stop(&git.WriteError{Err: err})
	}
	return size, git.TrimCommandSubstitution(count.Bytes()), nil
}

// written returns once git (diff) has written into f, or has ended, or ctx
// is done. Git writes f itself, so its size is what there is to see.
func written(ctx context.Context, f *os.File, diff *git.Started) {
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 5*time.Millisecond) {
		if fi, err := f.Stat(); err != nil || fi.Size() > 0 {
			return
		}
		select {
		case <-diff.Done():
			return
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
