package sddledger

import (
	"strings"

	"github.com/sdd-go/sdd-go/internal/workspace"
)

// moved are the workspaces this plan may have moved from, for the
// human's answer (Look's moved?: lines) and carry: those of its basename
// whose plan no longer exists (resolution passed over them), and those
// of any other basename whose plan git says was renamed to this one (a
// `git mv` to a new name, committed or staged), where resolution never
// looks.
func (r *run) moved() []movedFrom {
	var out []movedFrom
	for _, o := range r.orphans {
		out = append(out, movedFrom{Orphan: o})
	}
	stranded, err := workspace.Stranded(r.root, r.dir)
	if err != nil {
		return out
	}
	for _, o := range stranded {
		if known(out, o.Dir) || !r.renamedTo(o.Plan) {
			continue
		}
		out = append(out, movedFrom{Orphan: o, elsewhere: true})
	}
	return out
}

// movedFrom is a workspace this plan may have moved from; elsewhere, one
// under another basename's name, which resolution never finds: carried
// over, it takes this plan's workspace's name.
type movedFrom struct {
	workspace.Orphan
	elsewhere bool
}

func known(ms []movedFrom, dir string) bool {
	for _, m := range ms {
		if sameDir(m.Dir, dir) {
			return true
		}
	}
	return false
}

// renamedTo says whether git records old (a plan path as a workspace
// recorded it) renamed to this plan: in the branch's history, or in the
// index.
func (r *run) renamedTo(old string) bool {
	paths := []string{"--", old, r.id.ID()}
	for _, args := range [][]string{
		append([]string{"log", "-M", "--diff-filter=R", "--name-status", "--format="}, paths...),
		append([]string{"diff", "--cached", "-M", "--diff-filter=R", "--name-status"}, paths...),
	} {
		out, err := r.env.Git.Output(r.ctx, args...)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(out), "\n") {
			f := strings.Split(l, "\t")
			if len(f) == 3 && strings.HasPrefix(f[0], "R") && f[1] == old && f[2] == r.id.ID() {
				return true
			}
		}
	}
	return false
}
