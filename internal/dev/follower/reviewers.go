package follower

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The reviewers (subagents.go): a task's reviewer, its re-reviewer and
// the final reviewer read the package as the role files say and judge
// it by the scenario's tasks.

var packageFieldRe = regexp.MustCompile(`^(.+) \((\d+) bytes\)$`)

// readPackage reads a package as the role files say: whole, or over
// ReadMaxBytes in parts of ReadLimit lines until a part comes back short.
func (a *agent) readPackage() (path, text string) {
	m := packageFieldRe.FindStringSubmatch(a.field("Package"))
	if m == nil {
		a.fail("the Package line %q gives no size", a.field("Package"))
	}
	path = m[1]
	size, _ := strconv.Atoi(m[2])
	if size <= ReadMaxBytes && !a.partsAlways() {
		text = a.read(path)
		if len(text) != size {
			a.fail("one Read of %s gave %d of its %d bytes: the Read tool returns at most %d lines", path, len(text), size, ReadLimit)
		}
		return path, text
	}
	var pieces []string
	for offset := 1; ; {
		r := a.t.Read(path, offset, ReadLimit)
		if r.IsError {
			a.fail("reading %s at offset %d, limit %d, was refused: %s", path, offset, ReadLimit, r.Text)
		}
		part := FileLines(r.Text)
		pieces = append(pieces, part...)
		switch {
		case r.Next > offset && a.goesOnWhereTold():
			offset = r.Next
		case len(part) < ReadLimit:
			text = strings.Join(pieces, "\n")
			if len(text) != size {
				a.fail("read %d bytes of %s in parts, the dispatch says %d", len(text), path, size)
			}
			return path, text
		default:
			offset += ReadLimit
		}
	}
}

// goesOnWhereTold says whether the role file has a reader go on from the
// offset the tool names when a part stops early.
func (a *agent) goesOnWhereTold() bool {
	return strings.Contains(strings.Join(strings.Fields(a.role), " "), "the tool says which offset the file goes on from, go on from there")
}

// partsAlways says whether the role file has a reader read every package
// in parts (the wording proposed in the report), rather than only one over
// 256 KB (the text's wording now).
func (a *agent) partsAlways() bool {
	return strings.Contains(strings.Join(strings.Fields(a.role), " "), "until a part comes back shorter")
}

// diffLines are the added (+) and removed (-) lines of a package's diff.
func diffLines(pkg string) (added, removed []string) {
	_, diff, _ := strings.Cut(pkg, "\n## Diff\n")
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added = append(added, l[1:])
		case strings.HasPrefix(l, "-"):
			removed = append(removed, l[1:])
		}
	}
	return added, removed
}

func anyContains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// judge finds a task's problems in a package: its files missing from the
// diff, its planted defect among the added lines (one only the final
// review sees when final).
func judge(task Task, pkg string, final bool) []finding {
	var out []finding
	paths, _ := task.files()
	for _, p := range paths {
		if !strings.Contains(pkg, "\n+++ b/"+p+"\n") {
			out = append(out, finding{grade: "Spec", text: p + " is missing from the diff"})
		}
	}
	added, _ := diffLines(pkg)
	if d := task.Defect; d != nil && !d.Unseen && (final || !d.OnlyFinal) && anyContains(added, d.Marker) {
		grade := "Important"
		if d.Minor {
			grade = "Minor"
		}
		out = append(out, finding{grade: grade, text: d.Finding})
	}
	return out
}

// noCommits says whether a package lists no commit.
func noCommits(pkg string) bool {
	_, rest, _ := strings.Cut(pkg, "\n## Commits\n")
	list, _, _ := strings.Cut(rest, "\n## ")
	return strings.TrimSpace(list) == ""
}

// judgeTree finds a task's problems in the checkout: a file of it that
// does not hold what the task writes.
func (a *agent) judgeTree(task Task) []finding {
	var out []finding
	paths, content := task.files()
	for _, p := range paths {
		if !a.holds(a.root()+"/"+p, content[p]) {
			out = append(out, finding{grade: "Spec", text: p + " does not hold what the brief asks"})
		}
	}
	return out
}

func graded(fs []finding) string {
	if len(fs) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s [%s] %s", f.id, f.grade, f.text))
	}
	return strings.Join(parts, "; ")
}

func joinOr(ms []string) string {
	if len(ms) == 0 {
		return "none"
	}
	return strings.Join(ms, "; ")
}

// minorList is a list of minors as the role file's answer lays out label:
// numbered M1, M2, … where its layout shows "<M1 ", else joined.
func (a *agent) minorList(label string, ms []string) string {
	if len(ms) == 0 || !strings.Contains(a.role, label+": <M1 ") {
		return joinOr(ms)
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("M%d %s", i+1, m)
	}
	return strings.Join(parts, "; ")
}

func reviewerFailed(msg string) string { return strings.ReplaceAll(msg, "\n", " ") }

var reviewerLabels = []string{"Spec", "Open", "Minor", "Not verifiable", "Review"}

func (sc Scenario) reviewer(d Dispatch) Script {
	return func(t Tools) string {
		return run(t, d, reviewerFailed, func(a *agent) string {
			a.readRole("", reviewerLabels...)
			if _, err := sc.task(d.N); err != nil {
				a.fail("%v", err)
			}
			brief := a.read(a.field("Brief"))
			path, pkg := a.readPackage()
			if report := a.field("Report"); !strings.HasPrefix(report, "none") {
				a.read(report)
			}
			a.read(a.field("Constraints"))
			// A batch's brief: each task judged on its own, each finding
			// naming its task (task-reviewer-prompt.md).
			tasks := sc.briefTasks(a, d.N, brief)
			namesTask := taskFirstRe.MatchString(strings.Join(strings.Fields(a.role), " "))
			var open []finding
			var minors, unverifiable []string
			// A package of no commits: the work was already in the tree,
			// which the role file has the reviewer judge instead.
			fromTree := noCommits(pkg) && strings.Contains(strings.Join(strings.Fields(a.role), " "), "A package of 0 commits")
			for _, t := range tasks {
				found := judge(t, pkg, false)
				if fromTree {
					found = a.judgeTree(t)
				}
				minors = append(minors, t.Minors...)
				for _, f := range found {
					if len(tasks) > 1 && namesTask {
						f.text = fmt.Sprintf("Task %d: %s", t.N, f.text)
					}
					if f.grade == "Minor" {
						minors = append(minors, f.text)
						continue
					}
					open = append(open, f)
				}
				if t.Unverifiable != "" {
					unverifiable = append(unverifiable, t.Unverifiable)
				}
			}
			prefix, first := a.idForm()
			open = number(open, prefix, first)
			spec := a.specVerdict(len(open) > 0, len(unverifiable) > 0)
			reviewPath := strings.TrimSuffix(path, ".diff") + ".md"
			answer := fmt.Sprintf("Spec: %s\nOpen: %s\nMinor: %s\nNot verifiable: %s\nReview: %s",
				spec, graded(open), a.minorList("Minor", minors), joinOr(unverifiable), reviewPath)
			a.write(reviewPath, answer+fmt.Sprintf("\n\n## Details\nTask %d, package %s: %d finding(s).\n", d.N, path, len(open)))
			return answer
		})
	}
}

func (sc Scenario) reReviewer(d Dispatch) Script {
	return func(t Tools) string {
		return run(t, d, reviewerFailed, func(a *agent) string {
			a.readRole("", "F<k>", "New", "Out of scope", "Review")
			var outOfScope []string
			if d.N != 0 {
				task, err := sc.task(d.N)
				if err != nil {
					a.fail("%v", err)
				}
				outOfScope = task.OutOfScope
			}
			fs, err := parseFindings(a.field("Findings"))
			if err != nil {
				a.fail("the Findings line %q: %v", a.field("Findings"), err)
			}
			a.readReview(a.field("Review"))
			path, pkg := a.readPackage()
			report := a.read(a.field("Report"))
			// No findings: commits that came after a review, which no fix
			// round made; there is only new breakage to look for.
			title := a.sectionTitle()
			round, section := lastSection(report, title)
			if len(fs) > 0 && round != d.R {
				a.fail("the report's latest %q section is round %d, and the prompt says round %d", title, round, d.R)
			}
			added, removed := diffLines(pkg)
			var lines []string
			for _, f := range fs {
				var st fixState
				evidence := "the diff does not remove it"
				if m := conflictRe.FindStringSubmatch(f.text); m != nil {
					// A conflict is resolved once the package merges the
					// branch and leaves no conflict marker.
					st.removed = strings.Contains(pkg, " merge "+m[2]+"\n") && !anyContains(added, "<<<<<<<")
					if st.removed {
						evidence = m[1] + " merged, no conflict marker left"
					}
				}
				if def, ok := sc.defect(d.N, f.text); ok {
					st.removed = anyContains(removed, def.Marker) && !anyContains(added, def.Marker)
					st.attempted = strings.Contains(pkg, "\n+++ b/"+def.Path+"\n")
					if st.removed {
						evidence = def.Path + " no longer holds " + def.Marker
					}
				}
				if st.disputed = strings.Contains(section, "\n"+f.id+": disputed"); st.disputed && !st.removed {
					evidence = "disputed in the report; the diff does not settle it"
				}
				lines = append(lines, f.id+": "+a.verdict(st)+" — "+evidence)
			}
			// New breakage: a defect a line of this diff brings in,
			// numbered as the role file says.
			var news []finding
			for _, t := range sc.Tasks {
				if b := t.Defect; b != nil && b.Breaks != nil && anyContains(added, b.Breaks.Marker) {
					news = append(news, finding{grade: "Important", text: b.Breaks.Finding})
				}
			}
			prefix, first := a.newFirst(fs)
			news = number(news, prefix, first)
			reviewPath := strings.TrimSuffix(path, ".diff") + ".md"
			answer := strings.TrimPrefix(strings.Join(lines, "\n")+fmt.Sprintf("\nNew: %s\nOut of scope: %s\nReview: %s", graded(news), a.minorList("Out of scope", outOfScope), reviewPath), "\n")
			a.write(reviewPath, answer+"\n\n## Details\nScoped to the fix commits.\n")
			return answer
		})
	}
}

func (sc Scenario) finalReviewer(d Dispatch) Script {
	return func(t Tools) string {
		return run(t, d, reviewerFailed, func(a *agent) string {
			a.readRole("Final review", reviewerLabels...)
			path, pkg := a.readPackage()
			ledger := a.read(a.field("Ledger"))
			a.read(a.field("Constraints"))
			// What the task reviews saw and the ledger records (a parked
			// finding, a deferred minor) the run has ruled on: it opens
			// again only as the role file says, where the scenario finds
			// it must be fixed now.
			kinds, opens := a.reopened()
			var open []finding
			for _, task := range sc.Tasks {
				for _, f := range judge(task, pkg, true) {
					kind := ledgerKind(ledger, task.N, f.text)
					switch {
					case kind == "" && f.grade != "Minor":
						open = append(open, f)
					case kind != "" && slices.Contains(kinds, kind) && opens && task.Defect != nil && task.Defect.Reopen:
						f.grade = "Important"
						open = append(open, f)
					}
				}
			}
			prefix, first := a.idForm()
			open = number(open, prefix, first)
			reviewPath := strings.TrimSuffix(path, ".diff") + ".md"
			answer := fmt.Sprintf("Spec: n/a\nOpen: %s\nMinor: %s\nNot verifiable: none\nReview: %s",
				graded(open), joinOr(sc.FinalMinors), reviewPath)
			a.write(reviewPath, answer+"\n\n## Details\nThe whole branch; each deferred minor can wait.\n")
			return answer
		})
	}
}

// ledgerKind is the kind of the ledger's line of Task n that records a
// finding of that text ("parked", "minor (deferred)"), "" for none.
func ledgerKind(ledger string, n int, text string) string {
	for _, l := range strings.Split(ledger, "\n") {
		rest, ok := strings.CutPrefix(l, fmt.Sprintf("Task %d: ", n))
		if !ok || !strings.Contains(rest, text) {
			continue
		}
		switch {
		case strings.HasPrefix(rest, "parked — "):
			return "parked"
		case strings.HasPrefix(rest, "minor (deferred): "):
			return "minor (deferred)"
		}
	}
	return ""
}
