package sddledger

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/commands"
	"github.com/sdd-go/sdd-go/internal/ledger"
	"github.com/sdd-go/sdd-go/internal/plantask"
	"github.com/sdd-go/sdd-go/internal/workspace"
)

// Files, Read, After, Commits, PlanTitles and BriefTitles make a run the
// ledger's Source.

func (r *run) Files() []string {
	if r.files == nil {
		entries, _ := os.ReadDir(r.dir)
		r.files = make([]string, 0, len(entries))
		for _, e := range entries {
			r.files = append(r.files, e.Name())
		}
	}
	return r.files
}

// Read reads the start of a workspace file, a review: a review that is
// not a regular file (a FIFO) is refused, never waited on.
func (r *run) Read(name string) (string, error) {
	f, err := workspace.OpenRegular(commands.InWorkspace(r.dir, name), false)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, ledger.ReviewMax))
	return string(b), err
}

func (r *run) PlanTitles() map[string]string {
	if r.titles == nil {
		r.titles = make(map[string]string, len(r.tasks))
		for _, t := range r.tasks {
			r.titles[t.Number] = t.Title
		}
	}
	return r.titles
}

// Waits are task n's waits in the plan's graph, read once a run (a
// verb that prints no task reads none).
func (r *run) Waits(n string) (waits, notes []string) {
	need := r.need(n)
	return need.Waits, need.Notes
}

// need is task n's place in the plan's graph, the graph read once a run.
func (r *run) need(n string) plantask.Need {
	if r.needs == nil {
		r.needs = map[string]plantask.Need{}
		f, err := os.Open(r.plan)
		if err != nil {
			return plantask.Need{}
		}
		defer f.Close()
		needs, _ := plantask.Needs(f, r.planInRepo())
		for _, x := range needs {
			r.needs[x.Task] = x
		}
	}
	return r.needs[n]
}

// BriefTitles reads the task headings of task n's brief (a regular file
// only, never followed or waited on); nil without one.
func (r *run) BriefTitles(n string) map[string]string {
	f, err := workspace.OpenRegular(commands.InWorkspace(r.dir, "task-"+n+"-brief.md"), false)
	if err != nil {
		return nil
	}
	defer f.Close()
	hs, err := plantask.Tasks(f)
	if err != nil || len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		out[h.Number] = h.Title
	}
	return out
}

// asked holds git's answers to Commits and After in one run. A step reads
// the facts twice, before its lines (is it at its row?) and after them
// (the row it prints), and the same question asked with nothing changed
// in the repository between has the same answer: the second reading asks
// git only what is new. gitQuiet, the one way a run changes the
// repository (a worktree made, a join), forgets them all.
type asked struct {
	commits map[string][2]map[string]bool // by the shas and branches asked: gone, off
	after   map[string]int                // by sha and head
}

func (a *asked) forget() { *a = asked{} }

// After counts the commits after sha up to head that are work: a commit
// that changes the plan alone is the human's edit of it (a task renamed,
// the plan moved before carry), never a unit's (notPlan).
func (r *run) After(sha, head string) (int, error) {
	key := sha + " " + head
	if n, ok := r.asked.after[key]; ok {
		return n, nil
	}
	out, err := r.git(append([]string{"rev-list", "--count", sha + ".." + head}, r.notPlan()...)...)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, err
	}
	if r.asked.after == nil {
		r.asked.after = map[string]int{}
	}
	r.asked.after[key] = n
	return n, nil
}

// Commits asks git about every recorded sha in two calls: which are
// objects of the repository that are commits (cat-file, which also says
// which branches name one), and which of those neither HEAD nor the
// branches contain (rev-list lists every commit they reach and those do
// not, so each such sha is among what it prints).
func (r *run) Commits(shas, branches []string) (gone, off map[string]bool, err error) {
	key := strings.Join(shas, " ") + "|" + strings.Join(branches, " ")
	if a, ok := r.asked.commits[key]; ok {
		return a[0], a[1], nil
	}
	if gone, off, err = r.commits(shas, branches); err != nil {
		return nil, nil, err
	}
	if r.asked.commits == nil {
		r.asked.commits = map[string][2]map[string]bool{}
	}
	r.asked.commits[key] = [2]map[string]bool{gone, off}
	return gone, off, nil
}

// commits is Commits asked of git: cat-file says which shas are commits,
// which branches name one, and whether HEAD does (a checkout with no
// commit yet contains none); rev-list which of the commits neither HEAD
// nor the branches reach.
func (r *run) commits(shas, branches []string) (gone, off map[string]bool, err error) {
	gone, off = map[string]bool{}, map[string]bool{}
	var in bytes.Buffer
	for _, s := range shas {
		in.WriteString(s + "\n")
	}
	for _, b := range branches {
		in.WriteString("refs/heads/" + b + "\n")
	}
	in.WriteString("HEAD\n")
	var out bytes.Buffer
	if err := r.env.Git.Filter(r.ctx, &in, &out, "cat-file", "--batch-check=%(objectname) %(objecttype)"); err != nil {
		return nil, nil, err
	}
	var commits []string
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	headIsCommit := false
	for i, l := range lines {
		sha, kind, _ := strings.Cut(l, " ")
		switch {
		case i == len(shas)+len(branches):
			headIsCommit = kind == "commit"
		case i >= len(shas):
			// A branch: "<name> missing" when it names nothing.
			if kind != "commit" {
				gone[branches[i-len(shas)]] = true
			}
		case kind == "commit":
			commits = append(commits, sha)
		case sha != "":
			gone[sha] = true
		}
	}
	if len(commits) == 0 {
		return gone, off, nil
	}
	want := make(map[string]bool, len(commits))
	in.Reset()
	for _, s := range commits {
		want[s] = true
		in.WriteString(s + "\n")
	}
	if !headIsCommit {
		// No commit on the branch at all (an orphan checkout): it contains
		// none of them.
		for _, s := range commits {
			off[s] = true
		}
		return gone, off, nil
	}
	in.WriteString("^HEAD\n")
	for _, b := range branches {
		if !gone[b] {
			in.WriteString("^refs/heads/" + b + "\n")
		}
	}
	w := &lineWriter{line: func(s string) {
		if want[s] {
			off[s] = true
		}
	}}
	if err := r.env.Git.Filter(r.ctx, &in, w, "rev-list", "--stdin"); err != nil {
		return nil, nil, err
	}
	w.flush()
	return gone, off, nil
}

// lineWriter calls line for each line written to it, so that an output of
// any length is read without being held.
type lineWriter struct {
	part []byte
	line func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.part = append(w.part, p...)
			return n, nil
		}
		w.line(string(append(w.part, p[:i]...)))
		w.part, p = w.part[:0], p[i+1:]
	}
}

func (w *lineWriter) flush() {
	if len(w.part) > 0 {
		w.line(string(w.part))
		w.part = w.part[:0]
	}
}
