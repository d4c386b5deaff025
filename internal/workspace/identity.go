package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
)

// planFile is a plan as the kernel resolves it, and what its workspace
// marker calls it.
type planFile struct {
	// id names the plan in its marker: its path with symlinks resolved,
	// relative to the repository root when inside it (forward slashes on
	// every OS), absolute otherwise. Every spelling of one plan (relative,
	// absolute, through "..", through a symlinked directory) has one id.
	id string
	// parent is the name of the plan's real parent directory, which tells
	// same-basename plans apart.
	parent string
	// root is the repository root with symlinks resolved; the paths in
	// markers and ledgers are read relative to it.
	root string
	info fs.FileInfo
}

// identify resolves plan, spelled as the user gave it, in the repository
// whose top level is root (as this OS spells it).
func identify(root, plan string) (*planFile, error) {
	info, err := os.Stat(plan) // the file the kernel reaches, through a descriptor too
	if err != nil {
		return nil, err
	}
	realRoot, err := resolve(root)
	if err != nil {
		return nil, err
	}
	real, err := resolve(plan)
	if atomicfile.ThroughDescriptor(plan) && (err != nil || !sameFile(real, info)) {
		// A file this process has open that no path reaches any more (a
		// deleted file, bash's temporary file behind a large
		// here-document): the link's text ("/tmp/x (deleted)") is no
		// path. The plan is named by the path given, as the script names
		// it, and has no directory of its own.
		id, err := absolute(plan)
		if err != nil {
			return nil, err
		}
		return &planFile{id: id, root: realRoot, info: info}, nil
	}
	if err != nil {
		return nil, err
	}
	id := filepath.ToSlash(real)
	if rel, ok := within(realRoot, real); ok {
		id = filepath.ToSlash(rel)
	}
	return &planFile{id: id, parent: parentName(real), root: realRoot, info: info}, nil
}

// sameFile reports whether path is the file info describes.
func sameFile(path string, info fs.FileInfo) bool {
	fi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, info)
}

// resolve returns the absolute path the kernel reaches through path:
// symlinks and ".." are taken in the order the kernel takes them, so
// link/../plan.md is plan.md in the directory above link's target, never
// the plan.md beside link (which a lexical clean would pick). Through a
// descriptor link (/dev/fd/N) it is the path the kernel gives the open
// file, which the caller checks is that file.
func resolve(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(real) {
		return real, nil
	}
	if runtime.GOOS == "windows" {
		// GetFullPathName applies the kernel's own rules for \x and C:x,
		// and Windows has no logical working directory to mislead it.
		return filepath.Abs(real)
	}
	// real holds no symlink; only leading ".." elements may be left, and
	// they apply to the physical working directory.
	wd, err := physicalWd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, real), nil
}

// absolute is path as given, after the physical working directory when
// relative: text, not cleaned (the kernel resolves it, not us).
func absolute(path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	wd, err := physicalWd()
	if err != nil {
		return "", err
	}
	return wd + string(filepath.Separator) + path, nil
}

// physicalWd is the working directory with symlinks resolved (os.Getwd
// may return $PWD, which can run through symlinks).
func physicalWd() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(wd)
}

// namedBy reports whether text, a plan path as a marker or a ledger's
// identity line records it, names this plan: read relative to the
// repository root unless absolute, it is the same file; or, when no such
// file exists any more, it is the same repository-relative path.
func (p *planFile) namedBy(text string) bool {
	if text == p.id {
		return true
	}
	path := p.recorded(text)
	if atomicfile.ThroughDescriptor(path) {
		// What this process has open there, not the plan recorded: such a
		// path names a plan by its text alone.
		return false
	}
	if fi, err := os.Stat(path); err == nil {
		return os.SameFile(fi, p.info)
	}
	// Nothing to ask the kernel about: compare the recorded text as a path,
	// the way the file system compares names.
	rel := filepath.Clean(path)
	if r, ok := within(p.root, rel); ok {
		rel = r
	}
	return host.same(filepath.ToSlash(rel), p.id)
}

// recorded is the file a plan path recorded in a marker or a ledger names:
// relative to the repository root unless absolute.
func (p *planFile) recorded(text string) string {
	path := filepath.FromSlash(text)
	if !filepath.IsAbs(path) {
		path = p.root + string(filepath.Separator) + path
	}
	return path
}

// gone returns text, a plan path recorded in a marker or a ledger, when no
// such file exists any more, and "" when it does (or cannot be told).
func (p *planFile) gone(text string) string {
	if atomicfile.ThroughDescriptor(p.recorded(text)) {
		return text // a plan that was only ever open, never a file of record
	}
	_, err := os.Stat(p.recorded(text))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return text
	}
	return ""
}

// ledgerPlan returns the plan path named by the identity line of dir's
// ledger; ok is false when there is no ledger, it is not a regular file
// (never followed, never waited on), or it has no identity line.
func ledgerPlan(dir string) (plan string, ok bool, err error) {
	f, err := OpenRegular(dir+string(filepath.Separator)+LedgerName, false)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotRegular) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	buf := make([]byte, maxIdentityLine)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", false, err
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	plan, ok = IdentityPlan(line)
	return plan, ok, nil
}

// within reports path relative to root when path is inside root.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// parentName is the last element of path's directory, or "" when that is
// the file system root or a volume, which cannot be part of a name.
func parentName(path string) string {
	dir := filepath.Dir(path)
	name := filepath.Base(dir)
	if name == "." || name == string(filepath.Separator) || name == "" || strings.HasSuffix(name, ":") || dir == filepath.VolumeName(dir)+string(filepath.Separator) {
		return ""
	}
	return name
}
