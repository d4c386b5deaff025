package follower

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The implementer and the fixer (subagents.go): they do the task in the
// repository, or fix what a review found, and commit.

func implementerFailed(msg string) string {
	return "Status: BLOCKED\nCommits: none\nTests: none\nNotes: " + strings.ReplaceAll(msg, "\n", " ")
}

func (sc Scenario) implementer(d Dispatch) Script {
	return func(t Tools) string {
		return run(t, d, implementerFailed, func(a *agent) string {
			a.readRole("", "Status", "Commits", "Tests", "Notes")
			task, err := sc.task(d.N)
			if err != nil {
				a.fail("%v", err)
			}
			a.workIn(task.Escapes)
			// What earlier tasks settled reaches every later task's
			// implementer: the controller copies the settled: lines.
			_, beside := d.Fields["Work in"]
			for _, e := range sc.Tasks {
				if beside {
					// Side by side, an earlier task may still be in
					// flight: only those it waits for have settled, and
					// the command starts it only once they have.
					break
				}
				for _, dec := range e.Settled {
					// (A task an earlier run did is recorded with its
					// decisions too: earlier-done's DECISION…)
					if e.N < d.N && !strings.Contains(a.field("Settled by earlier tasks"), dec) {
						a.fail("the dispatch does not carry Task %d's settled decision %q: %q", e.N, dec, a.field("Settled by earlier tasks"))
					}
				}
			}
			// And nothing else: each settled entry is an earlier task's
			// decision or parked finding (the ledger's settled and parked
			// lines).
			for _, e := range settledEntries(a.field("Settled by earlier tasks")) {
				if !sc.settledBefore(d.N, e) {
					a.fail("the dispatch's Settled by earlier tasks holds %q, no decision of an earlier task", e)
				}
			}
			brief := a.read(a.field("Brief"))
			if !strings.Contains(brief, fmt.Sprintf("Task %d: %s", d.N, task.Title)) {
				a.fail("the brief is not Task %d's (%q):\n%s", d.N, task.Title, brief)
			}
			// A batch's brief holds each of its tasks (implementer-prompt.md:
			// do each, in its order, one commit each); without that rule an
			// implementer does the task it was named.
			tasks := sc.briefTasks(a, d.N, brief)
			if !doEachRe.MatchString(strings.Join(strings.Fields(a.role), " ")) {
				tasks = tasks[:1]
			}
			// The constraints are the plan's Global Constraints, never
			// its tasks: an implementer reads only its own task.
			if cons := a.read(a.field("Constraints")); taskHeadingRe.MatchString(cons) {
				a.fail("the constraints file holds the plan's tasks (%q):\n%s", taskHeadingRe.FindString(cons), cons)
			}
			// A task that asks (Asks) answers so until the dispatch's
			// Rulings give the plan's answer (Context).
			asking := task.Asks != "" && !strings.Contains(a.field("Rulings"), task.Context)
			if asking && task.Asks != "DONE_WITH_CONCERNS" {
				return fmt.Sprintf("Status: %s\nCommits: none\nTests: none\nNotes: which greeting does the plan mean?", task.Asks)
			}
			root := a.root()
			var shas []string
			var report strings.Builder
			for _, task := range tasks {
				var done []string
				for _, c := range task.Commits {
					var paths []string
					for _, f := range c.Files {
						content := f.Content
						if task.Defect != nil && task.Defect.Path == f.Path {
							content = task.Defect.Wrong
						}
						done = append(done, "- "+f.Path)
						if task.InTree && a.holds(root+"/"+f.Path, content) {
							continue // the tree has it already: nothing to write or commit
						}
						a.write(root+"/"+f.Path, content)
						paths = append(paths, f.Path)
					}
					if len(paths) > 0 {
						shas = append(shas, a.commit(paths, c.Message)+" "+c.Message)
					}
				}
				test := "passed"
				if d := task.Defect; d == nil || !d.Unseen {
					test = a.bash(task.Test)
				}
				fmt.Fprintf(&report, "# Task %d: %s\n\n## Implemented\n%s\n\n## Tests\n$ %s\n%s\n", task.N, task.Title, strings.Join(done, "\n"), task.Test, orNone(test))
			}
			fmt.Fprintf(&report, "## Commits\n%s\n\n## Unsure\nnothing\n", orNone(strings.Join(shas, "\n")))
			a.write(a.field("Report"), report.String())
			status, notes := "DONE", "none"
			if asking {
				status, notes = task.Asks, "is the greeting's spelling the plan's?"
			}
			commits := "none"
			if len(shas) > 0 {
				commits = fmt.Sprintf("%s..%s (%d)", strings.Fields(shas[0])[0], strings.Fields(shas[len(shas)-1])[0], len(shas))
			} else {
				notes = "the tree already held this task's work: nothing to commit"
			}
			return fmt.Sprintf("Status: %s\nCommits: %s\nTests: %s: passed\nNotes: %s", status, commits, task.Test, notes)
		})
	}
}

// resolve merges the feature branch into the task's in the checkout
// the fix works in, writes each conflicted file as the scenario's
// Resolved gives it, commits, and returns the commit's short sha.
func (a *agent) resolve(sc Scenario, feature string, files []string) string {
	if r := a.t.Bash(a.inDir("git merge -q " + shellQuote(feature))); !r.IsError {
		a.fail("merging %s gave no conflict: %s", feature, r.Text)
	}
	for _, f := range files {
		right, ok := sc.Resolved[f]
		if !ok {
			a.fail("the scenario does not say how %s is resolved", f)
		}
		p := a.root() + "/" + f
		a.read(p) // its conflict markers, as git left them
		a.write(p, right)
	}
	return a.commit(files, "merge "+feature)
}

// fixer is a fix round's implementer.
func (sc Scenario) fixer(d Dispatch) Script {
	return func(t Tools) string {
		return run(t, d, implementerFailed, func(a *agent) string {
			a.readRole("Fix round", "Status", "Commits", "Tests", "Notes")
			a.workIn(false)
			if d.N != 0 {
				if _, err := sc.task(d.N); err != nil {
					a.fail("%v", err)
				}
			}
			fs, err := parseFindings(a.field("Fix"))
			if err != nil || len(fs) == 0 {
				a.fail("the Fix line %q: %v", a.field("Fix"), err)
			}
			a.readReview(a.field("Review"))
			// The final review's fix has no brief, and its report file is
			// new (implementer-prompt.md: create it).
			if brief := a.field("Brief"); brief != "none" {
				a.read(brief)
			}
			reportPath := a.field("Report")
			report := ""
			// The final fix's report is new (implementer-prompt.md: create it).
			if d.N != 0 {
				report = a.read(reportPath)
			}
			root := a.root()
			var section []string
			commits := "none"
			fixed := false
			for _, f := range fs {
				if m := conflictRe.FindStringSubmatch(f.text); m != nil {
					// A join that conflicted: the feature branch merged
					// into the task's, each file as the scenario resolves
					// it.
					sha := a.resolve(sc, m[2], strings.Split(m[1], ", "))
					commits = fmt.Sprintf("%s..%s (1)", sha, sha)
					fixed = true
					section = append(section, fmt.Sprintf("%s: merged %s, %s resolved; commit %s.", f.id, m[2], m[1], sha))
					continue
				}
				def, ok := sc.defect(d.N, f.text)
				if !ok {
					section = append(section, fmt.Sprintf("%s: not changed: the follower's scenario plants no such defect.", f.id))
					continue
				}
				if d.R < def.fixedIn() {
					if def.Disputes {
						section = append(section, fmt.Sprintf("%s: disputed: the brief allows it as it stands; no change.", f.id))
						continue
					}
					if !def.Attempts {
						section = append(section, fmt.Sprintf("%s: not changed in this round: I could not reproduce it.", f.id))
						continue
					}
					// An attempt that leaves the defect in place: a commit
					// the re-review must rule NOT ADDRESSED.
					p := root + "/" + def.Path
					got := a.read(p)
					a.write(p, got+fmt.Sprintf("# attempt %d\n", d.R))
					who := fmt.Sprintf("Task %d", d.N)
					if d.N == 0 {
						who = "Final"
					}
					sha := a.commit([]string{def.Path}, fmt.Sprintf("%s: attempt at %s", who, f.id))
					commits = fmt.Sprintf("%s..%s (1)", sha, sha)
					section = append(section, fmt.Sprintf("%s: attempted in %s (commit %s); it may not hold.", f.id, def.Path, sha))
					continue
				}
				right := sc.rightContent(def)
				p := root + "/" + def.Path
				if got := a.read(p); !strings.Contains(got, def.Marker) {
					// A fix dispatched again after a cut finds its own
					// commit in the tree: nothing left to change.
					if got != right {
						a.fail("%s holds neither the defect %q nor the right content:\n%s", p, def.Marker, got)
					}
					section = append(section, fmt.Sprintf("%s: already fixed in the tree (an earlier dispatch's commit); no change.", f.id))
					continue
				}
				a.write(p, right)
				paths := []string{def.Path}
				if b := def.Breaks; b != nil {
					// The fix brings in a defect of its own.
					a.read(root + "/" + b.Path)
					a.write(root+"/"+b.Path, b.Wrong)
					paths = append(paths, b.Path)
				}
				who := fmt.Sprintf("Task %d", d.N)
				if d.N == 0 {
					who = "Final"
				}
				sha := a.commit(paths, fmt.Sprintf("%s: fix %s", who, f.id))
				commits = fmt.Sprintf("%s..%s (1)", sha, sha)
				fixed = true
				section = append(section, fmt.Sprintf("%s: %s rewritten to the brief's content; commit %s.", f.id, def.Path, sha))
			}
			test := sc.test(d.N)
			out := a.bash(test)
			section = append(section, fmt.Sprintf("Covering test: %s\n$ %s\n%s", test, test, orNone(out)))
			if !fixed {
				section = append(section, "No change, no commit.")
			}
			// The report as the role file says a fix round writes it: its
			// section appended, or the file written anew.
			appends, title := a.fixReport(d.R)
			first := !strings.Contains(report, "\n## "+title+"\n")
			if !appends {
				report = ""
			}
			a.write(reportPath, report+fmt.Sprintf("\n## %s\n%s\n", title, strings.Join(section, "\n")))
			if terse := sc.terseFix(d.N); terse && first {
				return fmt.Sprintf("Status: DONE\nCommits: %s\nTests: none\nNotes: none", commits)
			}
			return fmt.Sprintf("Status: DONE\nCommits: %s\nTests: %s: passed\nNotes: none", commits, test)
		})
	}
}

var taskHeadingRe = regexp.MustCompile(`(?m)^#+ +Task +\d+`)

// terseFix says whether task n's fixer answers its round's first dispatch
// without its tests (Defect.TerseFirst).
func (sc Scenario) terseFix(n int) bool {
	t, err := sc.task(n)
	return err == nil && t.Defect != nil && t.Defect.TerseFirst
}

var settledEntryRe = regexp.MustCompile(`(?:^|; )(Task \d+: )`)

// settledEntries splits a dispatch's "Settled by earlier tasks" value into
// its entries, each a settled: line of Start task N ("Task 1: settled —
// …"); none for "none".
func settledEntries(v string) []string {
	if v == "none" {
		return nil
	}
	idx := settledEntryRe.FindAllStringSubmatchIndex(v, -1)
	if len(idx) == 0 {
		return []string{v}
	}
	var out []string
	for i, ix := range idx {
		end := len(v)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out = append(out, v[ix[2]:end])
	}
	if idx[0][2] != 0 {
		out = append([]string{v[:idx[0][0]]}, out...)
	}
	return out
}

var settledLineRe = regexp.MustCompile(`^Task (\d+): (settled|parked) — (.*)$`)

// settledBefore says whether e is a decision or a parked finding of a
// task before Task n.
func (sc Scenario) settledBefore(n int, e string) bool {
	m := settledLineRe.FindStringSubmatch(e)
	if m == nil || atoiOr(m[1]) >= n {
		return false
	}
	if m[2] == "parked" {
		return true
	}
	t, err := sc.task(atoiOr(m[1]))
	return err == nil && slices.Contains(t.Settled, strings.ReplaceAll(m[3], "’", "'"))
}
