package workspace

import (
	"path/filepath"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
)

// Plan is a plan file as the kernel resolves it, for a command that
// records it (the ledger's identity line) or compares a recorded path
// with it.
type Plan struct{ p *planFile }

// IdentifyPlan resolves plan, spelled as the user gave it, in the
// repository whose top level is root (as Root gives it).
func IdentifyPlan(root, plan string) (Plan, error) {
	p, err := identify(root, plan)
	if err != nil {
		return Plan{}, err
	}
	return Plan{p}, nil
}

// ID is the plan's path as a marker records it: symlinks resolved,
// relative to the repository root when inside it (forward slashes),
// absolute otherwise.
func (p Plan) ID() string { return p.p.id }

// NamedBy reports whether text, a plan path as a marker or a ledger's
// identity line records it, names this plan (the same file; or, when no
// such file exists any more, the same repository-relative path).
func (p Plan) NamedBy(text string) bool { return p.p.namedBy(text) }

// Remark makes dir, a workspace whose marker names a plan that no longer
// exists, p's workspace: its marker is replaced, whole, by one naming p.
// Only for a plan the human said moved from there.
func Remark(dir string, p Plan) error {
	f, err := atomicfile.Create(dir + string(filepath.Separator) + MarkerName)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write([]byte(p.p.id + "\n")); err != nil {
		return err
	}
	return f.Commit()
}
