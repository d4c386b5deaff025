package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LedgerScale sizes the ledger's scenario (issue 28, item 10): a long
// run's ledger, every task through Rounds fix rounds, a review package and
// a review file for every head, so that Look and an append read as much
// ledger and workspace as such a run leaves.
type LedgerScale struct {
	Tasks  int // tasks in the plan; all but the last complete
	Rounds int // fix rounds each complete task went through (each head its package and review)
}

// DefaultLedgerScale is the review's case: 500 tasks, five rounds each
// (about 20,000 ledger lines, 6,000 workspace files).
var DefaultLedgerScale = LedgerScale{Tasks: 500, Rounds: 5}

// LedgerPlan is where the scenario's plan is, relative to the work tree.
const LedgerPlan = "docs/plans/scale.md"

// BuildLedgerScale creates the scenario under dir (which must exist and be
// empty): a plan of s.Tasks tasks, for each task an implementation commit
// and one commit a fix round, the plan's workspace holding the ledger the
// verbs would have written (the last task at row fix, its first review
// in) and every package and review file, as a run leaves them.
func BuildLedgerScale(ctx context.Context, dir string, s LedgerScale) (*Repo, error) {
	work, env, err := initRepo(ctx, dir)
	if err != nil {
		return nil, err
	}
	var plan bytes.Buffer
	WritePlan(&plan, s.Tasks, 12)
	var stream bytes.Buffer
	fi := newFastImport(&stream)
	fi.commit("plan", map[string]int{LedgerPlan: fi.blob(plan.Bytes())})
	for t := 1; t <= s.Tasks; t++ {
		rounds := s.Rounds
		if t == s.Tasks {
			rounds = 0
		}
		for r := 0; r <= rounds; r++ {
			path := fmt.Sprintf("src/task%03d.txt", t)
			fi.commit(fmt.Sprintf("Task %d: round %d", t, r), map[string]int{path: fi.blob([]byte(fmt.Sprintf("task %d, round %d\n", t, r)))})
		}
	}
	if err := gitDo(ctx, work, env, &stream, "fast-import", "--quiet"); err != nil {
		return nil, err
	}
	if err := gitDo(ctx, work, env, nil, "reset", "-q", "--hard"); err != nil {
		return nil, err
	}
	out, err := gitOutput(ctx, work, env, "rev-list", "--reverse", "HEAD")
	if err != nil {
		return nil, err
	}
	shas := strings.Split(out, "\n")

	ws := filepath.Join(work, ".superpowers", "sdd", "scale")
	if err := os.MkdirAll(ws, 0o777); err != nil {
		return nil, err
	}
	files := map[string]string{
		filepath.Join(work, ".superpowers", "sdd", ".gitignore"): "*\n",
		filepath.Join(ws, "plan-path"):                           LedgerPlan + "\n",
	}
	var ledger strings.Builder
	ledger.WriteString("# SDD ledger — plan: " + LedgerPlan + "\n")
	line := func(format string, args ...any) { fmt.Fprintf(&ledger, format+"\n", args...) }
	review := func(from, to, answer string) {
		name := filepath.Join(ws, "review-"+from[:7]+".."+to[:7])
		files[name+".diff"] = "diff --git a/x b/x\n"
		files[name+".md"] = answer
	}
	const first = "Spec: ❌\nOpen: F1 [Important] src/x.txt:1 is wrong\nMinor: a comment would help\nNot verifiable: none\nReview: r.md\n"
	const again = "F1: NOT ADDRESSED — still wrong\nNew: none\nOut of scope: naming; spacing\nReview: r.md\n"
	next := 1 // the task's first commit in shas (shas[0] is the plan's)
	for t := 1; t <= s.Tasks; t++ {
		u := "Task " + strconv.Itoa(t)
		base := shas[next-1]
		line("%s: base=%s", u, base)
		line("%s: implementer=agent-%d", u, t)
		line("%s: reviewed_head=%s", u, shas[next])
		review(base, shas[next], first)
		if t == s.Tasks {
			break
		}
		for r := 1; r <= s.Rounds; r++ {
			from, to := shas[next+r-1], shas[next+r]
			line("%s: reviewed_head=%s", u, to)
			review(from, to, again)
			if r == 1 {
				line("%s: minor (deferred): a comment would help", u)
			}
			line("%s: minor (deferred): naming", u)
			line("%s: minor (deferred): spacing", u)
			line("%s: fix round %d/5 (0 addressed, 1 open — F1 src/x.txt:1 is wrong; commits %s..%s)", u, r, from[:7], to[:7])
		}
		line("%s: parked — F1 src/x.txt:1 is wrong — ruling: nothing later reads it", u)
		for d := 1; d <= 3; d++ {
			line("%s: settled — decision %d of task %d", u, d, t)
		}
		line("%s: complete (commits %s..%s, 1 parked)", u, base[:7], shas[next+s.Rounds][:7])
		next += s.Rounds + 1
	}
	files[filepath.Join(ws, "progress.md")] = ledger.String()
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o666); err != nil {
			return nil, err
		}
	}
	return &Repo{Dir: work, Plan: LedgerPlan, Head: "HEAD", Env: env, Task: strconv.Itoa(s.Tasks)}, nil
}

// LedgerSize is how many lines the scenario's ledger has and how many
// files its workspace holds.
func LedgerSize(r *Repo) (lines, files int, err error) {
	ws := filepath.Join(r.Dir, ".superpowers", "sdd", "scale")
	b, err := os.ReadFile(filepath.Join(ws, "progress.md"))
	if err != nil {
		return 0, 0, err
	}
	entries, err := os.ReadDir(ws)
	if err != nil {
		return 0, 0, err
	}
	return strings.Count(string(b), "\n"), len(entries), nil
}
