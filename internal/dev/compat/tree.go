package compat

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// copyTree copies src to dst (which must not exist), keeping permission
// bits, file contents and symlinks (their targets verbatim, never followed).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			// Permissions are set on the way out would need a second walk;
			// directories are created writable and chmod-ed right away,
			// which is fine for every mode the scenarios use (all have u+w).
			return os.Chmod(target, info.Mode().Perm())
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, data, 0o600); err != nil {
				return err
			}
			return os.Chmod(target, info.Mode().Perm())
		default:
			return fmt.Errorf("copyTree: unsupported file type %v at %s", d.Type(), p)
		}
	})
}

// entry is what the comparison knows about one path after a run.
type entry struct {
	kind   byte // 'f' file, 'd' directory, 'l' symlink
	perm   fs.FileMode
	data   []byte // file contents
	target string // symlink target
}

func (e entry) String() string {
	switch e.kind {
	case 'd':
		return fmt.Sprintf("dir %04o", e.perm)
	case 'l':
		return fmt.Sprintf("symlink -> %q", e.target)
	default:
		return fmt.Sprintf("file %04o, %d bytes", e.perm, len(e.data))
	}
}

func (e entry) equal(o entry) bool {
	return e.kind == o.kind && e.perm == o.perm && e.target == o.target && bytes.Equal(e.data, o.data)
}

// snapshot maps every path under root (slash-separated, relative) to its
// entry. Contents are held in memory: scenario trees are small.
type snapshot map[string]entry

func takeSnapshot(root string) (snapshot, error) {
	s := snapshot{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{perm: info.Mode().Perm()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.kind, e.perm = 'l', 0
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
		case d.IsDir():
			e.kind = 'd'
		case d.Type().IsRegular():
			e.kind = 'f'
			if e.data, err = os.ReadFile(p); err != nil {
				return err
			}
		default:
			e.kind = '?'
		}
		s[rel] = e
		return nil
	})
	return s, err
}

// treeDiff is one path whose state differs between the two sides.
type treeDiff struct {
	path      string
	ref, ours *entry // nil: absent on that side
}

func (d treeDiff) String() string {
	switch {
	case d.ref == nil:
		return fmt.Sprintf("only ours has %s (%s)", quoteShort(d.path), d.ours)
	case d.ours == nil:
		return fmt.Sprintf("only ref has %s (%s)", quoteShort(d.path), d.ref)
	case d.ref.kind == 'f' && d.ours.kind == 'f' && d.ref.perm == d.ours.perm:
		return fmt.Sprintf("%s content differs: ref %s, ours %s", quoteShort(d.path), excerpt(d.ref.data), excerpt(d.ours.data))
	default:
		return fmt.Sprintf("%s differs: ref %s, ours %s", quoteShort(d.path), d.ref, d.ours)
	}
}

func compareTrees(ref, ours snapshot) []treeDiff {
	var diffs []treeDiff
	for p, r := range ref {
		o, ok := ours[p]
		switch {
		case !ok:
			diffs = append(diffs, treeDiff{path: p, ref: &r})
		case !r.equal(o):
			diffs = append(diffs, treeDiff{path: p, ref: &r, ours: &o})
		}
	}
	for p, o := range ours {
		if _, ok := ref[p]; !ok {
			diffs = append(diffs, treeDiff{path: p, ours: &o})
		}
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].path < diffs[j].path })
	return diffs
}

// excerpt shows the first point where two outputs part, or a short prefix.
func excerpt(b []byte) string {
	const max = 60
	s := string(b)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func quoteShort(s string) string {
	if strings.ContainsAny(s, " \t\n\r\v\f\"'\\") || !isPrintable(s) {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}
