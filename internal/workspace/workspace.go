// Package workspace resolves and creates the per-plan directory
// <repo>/.superpowers/sdd/<slug>/ where a plan's briefs, reports, review
// packages and ledger live.
//
// The directory sits in the working tree, not under .git/, because agent
// hosts guard .git/ against writes and an implementer must be able to write
// its report there; a .gitignore of "*" one level up keeps every workspace
// out of `git status` without touching a tracked file.
//
// Unlike the bash script, two plans that share a basename (docs/a/plan.md,
// docs/b/plan.md) do not share a workspace: each workspace carries a marker
// file naming its plan, and a plan whose slug is taken by another plan moves
// on to <slug>-<parent>, then <slug>-<parent>-2, … . Where nothing collides
// the path is the one the script prints, and a workspace the script made
// (no marker) is adopted, so work already under way keeps its directory —
// unless its ledger names another plan: that directory is the other plan's
// record, and is passed over untouched.
package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

// MarkerName is the file in each workspace that names its owning plan.
const MarkerName = "plan-path"

// maxCandidates bounds the search for a free name; reaching it means
// something is badly wrong in .superpowers/sdd, not a real collision chain.
const maxCandidates = 10000

// Root is the repository's top-level directory as this OS spells it, from
// one git call run in the current directory (not the plan's: a plan may
// live outside the repository).
func Root(ctx context.Context, g *git.Runner) (string, error) {
	out, err := g.Output(ctx, host.rootArgs()...)
	if err != nil {
		return "", err
	}
	return host.root(string(out), os.Getwd)
}

// Orphan is a workspace that resolution passed over because the plan its
// owner (its marker, or without one its ledger's identity line) names no
// longer exists: the workspace of a finished plan, or of this very plan
// before it moved, which only a human can tell apart.
type Orphan struct {
	Dir  string // the workspace, spelled as workspaces are printed
	Plan string // the plan path as its marker or ledger records it
}

// Resolve finds or creates plan's workspace under the repository of the
// current directory and returns its absolute path, built from the root as
// Root gives it, and the orphans passed over on the way. It also rewrites
// .superpowers/sdd/.gitignore.
//
// Git is asked for the root only once the plan's name has proved usable,
// as the script asks it only then.
func Resolve(ctx context.Context, g *git.Runner, plan string) (string, []Orphan, error) {
	slug, ok := Slug(plan)
	if !ok {
		return "", nil, exit.Errorf(exit.Usage, "cannot derive a workspace name from: %s", plan)
	}
	top, err := Root(ctx, g)
	if err != nil {
		return "", nil, err
	}
	return Ensure(top, plan, slug)
}

// Ensure creates (or finds) the workspace of plan, whose slug is slug, under
// the repository root (as Root gives it), and writes the .gitignore beside
// it.
func Ensure(root, plan, slug string) (string, []Orphan, error) {
	base := host.join(root, ".superpowers", "sdd")
	if err := os.MkdirAll(base, 0o777); err != nil {
		return "", nil, ioError(err)
	}
	// Rewritten on every call, in place, as the script's `printf '*\n' >`
	// does: a user who deleted or edited it gets it back. It comes first,
	// so that no failure below (nor a signal) leaves .superpowers/sdd/
	// showing in git status; the script writes it only once its mkdir -p
	// succeeded. One that cannot be written now is tried again where the
	// script writes it (it may be a symlink into a workspace not made
	// yet), and only that failure counts.
	gitignore := base + string(host.sep) + ".gitignore"
	ignored := writeInPlace(gitignore, "*\n") == nil
	dir, orphans, err := find(root, base, plan, slug)
	if err != nil {
		return "", nil, err
	}
	if !ignored {
		if err := writeInPlace(gitignore, "*\n"); err != nil {
			return "", nil, ioError(err)
		}
	}
	return dir, orphans, nil
}

// find claims the first candidate under base (root's .superpowers/sdd)
// that plan may have, and returns it with the orphans passed over on the
// way.
func find(root, base, plan, slug string) (string, []Orphan, error) {
	pf, err := identify(root, plan)
	if err != nil {
		return "", nil, ioError(err)
	}
	limit := nameMax(base)
	var orphans []Orphan
	tried := map[string]bool{}
	for i := 0; ; i++ {
		if i == maxCandidates {
			return "", nil, exit.Ownf(exit.IO, "no free workspace name for %s under %s", plan, base)
		}
		candidate := base + string(host.sep) + candidateName(slug, pf.parent, i, limit)
		if tried[candidate] {
			continue // a cut name that meets one already passed over
		}
		tried[candidate] = true
		owned, gone, err := claim(candidate, pf)
		if err != nil {
			return "", nil, ioError(err)
		}
		if owned {
			return candidate, orphans, nil
		}
		if gone != "" {
			orphans = append(orphans, Orphan{Dir: candidate, Plan: gone})
		}
	}
}

// candidateName is the i-th name tried for a plan: slug, slug-parent,
// slug-parent-2, slug-parent-3, … A parent that cannot be part of a name
// (the file system root, a plan that is only an open file) is left out.
// The first name is the script's, always as it is; a later one longer than
// limit bytes (the file system's longest name) is made to fit: slug-parent
// is cut at its end, never inside a UTF-8 character, and the -N follows.
// Cut names may meet an earlier one; the markers tell them apart.
func candidateName(slug, parent string, i, limit int) string {
	if i == 0 {
		return slug
	}
	stem := slug
	if parent != "" {
		stem += "-" + parent
	} else {
		i++ // slug-2 comes right after slug
	}
	suffix := ""
	if i >= 2 {
		suffix = "-" + strconv.Itoa(i)
	}
	return fit(stem, limit-len(suffix)) + suffix
}

// fit is s cut to at most n bytes, backing off over the continuation bytes
// of a UTF-8 character the cut would split (at most three, and never to
// nothing). With no room at all s is left whole, for the kernel to refuse.
func fit(s string, n int) string {
	if len(s) <= n || n <= 0 {
		return s
	}
	cut := n
	for k := 0; k < 3 && cut > 1 && s[cut]&0xC0 == 0x80; k++ {
		cut--
	}
	return s[:cut]
}

// claim makes dir the workspace of plan p if it can: it creates dir when
// missing, adopts it when it has no marker (a workspace the bash scripts
// made) unless its ledger names another plan, and reports whether the
// marker (now) names p. Creation and marking are each atomic, so concurrent
// calls agree on one owner. A directory the caller may not write is adopted
// without a marker, as the scripts would use it. When dir is passed over,
// gone is the plan path its owner records if no such file exists any more.
func claim(dir string, p *planFile) (owned bool, gone string, err error) {
	for attempt := 0; ; attempt++ {
		fi, err := os.Stat(dir) // a symlink to a directory is a directory, as for mkdir -p
		switch {
		case err == nil && !fi.IsDir():
			return false, "", &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrExist}
		case errors.Is(err, fs.ErrNotExist):
			if lfi, lerr := os.Lstat(dir); lerr == nil {
				if lfi.Mode()&fs.ModeSymlink != 0 {
					// A dangling symlink: mkdir -p fails here too.
					return false, "", &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrExist}
				}
				continue // a racer made it between the two looks: look again
			}
			if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return false, "", err
			}
			continue // created (by us or a racer): look again
		case err != nil:
			return false, "", err
		}
		owner, err := readMarker(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if attempt > 3 {
				return false, "", err
			}
			// A directory without a marker whose ledger names another
			// plan is that plan's, from a run of the bash scripts: taking
			// it would strand its ledger. Leave it exactly as it is.
			named, ok, err := ledgerPlan(dir)
			if err != nil {
				return false, "", err
			}
			if ok && !p.namedBy(named) {
				return false, p.gone(named), nil
			}
			err = writeMarker(dir, p.id)
			if unwritable(err) {
				return true, "", nil // used as it is, as the scripts use it
			}
			if err != nil && !errors.Is(err, fs.ErrExist) {
				return false, "", err
			}
			continue // marked (by us or a racer): read who won
		}
		if err != nil {
			return false, "", err
		}
		if p.namedBy(owner) {
			return true, "", nil
		}
		return false, p.gone(owner), nil
	}
}

// unwritable reports whether err says the caller may not write there at
// all (another user's directory, a read-only file system), as opposed to a
// failure worth reporting.
func unwritable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// markerWait bounds the wait for a marker that exists but is still empty.
// Markers are published whole by a hard link; only a file system without
// links, where an exclusive create is followed by a write, shows an empty
// marker, and then for a moment.
const markerWait = 100 * time.Millisecond

// readMarker returns the plan named in dir's marker.
func readMarker(dir string) (string, error) {
	path := dir + string(filepath.Separator) + MarkerName
	deadline := time.Now().Add(markerWait)
	for {
		b, err := readNoWait(path)
		if err != nil {
			return "", err
		}
		if len(b) > 0 || time.Now().After(deadline) {
			return strings.TrimSuffix(string(b), "\n"), nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// readNoWait reads the regular file at path (following a symbolic link,
// as a read of a marker always has), refusing, without waiting, one that
// is not regular: a FIFO would block the read for ever.
func readNoWait(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, What: describe(fi.Mode())}
	}
	return io.ReadAll(f)
}

// writeMarker creates dir's marker naming id, failing with fs.ErrExist if
// another process marked it first; no reader ever sees a partial marker.
func writeMarker(dir, id string) error {
	return atomicfile.WriteNew(dir+string(filepath.Separator)+MarkerName, []byte(id+"\n"))
}

// writeInPlace truncates and rewrites path (creating it 0666 minus umask),
// keeping its mode and writing through a symlink, like the shell's `>`.
func writeInPlace(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func ioError(err error) error { return exit.FileOf(exit.IO, err) }
