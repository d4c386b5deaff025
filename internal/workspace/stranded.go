package workspace

import (
	"os"
)

// Stranded are the workspaces under root's .superpowers/sdd, other than
// dir, whose owner (the marker, or without one the ledger's identity
// line) names a plan that no longer exists, in the order the directory
// lists them. A plan renamed to another basename leaves its record in
// such a workspace, which resolution never passes over (it tries only
// the names its own basename gives); whether one of them is this plan's
// record, moved, is for git's history and the human to say.
func Stranded(root, dir string) ([]Orphan, error) {
	base := host.join(root, ".superpowers", "sdd")
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, err
	}
	realRoot, err := resolve(root)
	if err != nil {
		return nil, err
	}
	p := &planFile{root: realRoot}
	var out []Orphan
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := base + string(host.sep) + e.Name()
		if sameDir(d, dir) {
			continue
		}
		owner, err := readMarker(d)
		if err != nil {
			named, ok, lerr := ledgerPlan(d)
			if lerr != nil || !ok {
				continue // no owner named: not a plan's record
			}
			owner = named
		}
		if gone := p.gone(owner); gone != "" {
			out = append(out, Orphan{Dir: d, Plan: gone})
		}
	}
	return out, nil
}

// sameDir reports whether a and b are one directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
