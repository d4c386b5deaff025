package follower

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The subagents: scripts that do what their role file says, driven by the
// scenario, and reply in the role file's format. Each reads its role file
// first and takes its answer's labels from it, so a role file that changes
// its format fails the run.

// ReadLimit is the part a reviewer reads at a time from a package over
// ReadMaxBytes (the role files: 2000 lines).
const (
	ReadMaxBytes = 256 * 1024
	ReadLimit    = 2000
)

// Role names a subagent's role as the dispatch gives it.
type Role string

const (
	RoleImplementer Role = "implementer"
	RoleFix         Role = "fix"
	RoleReviewer    Role = "reviewer"
	RoleReReviewer  Role = "re-reviewer"
	RoleFinal       Role = "final reviewer"
)

// Dispatch is a dispatch prompt as a subagent reads it: the role file and
// section it names on its first line, the task and round numbers there,
// and the "Label: value" lines after it.
type Dispatch struct {
	Role     Role
	RoleFile string
	N, R     int // the task (0 in the final review's dispatches) and the fix round
	Fields   map[string]string
}

var (
	// The role file's path may hold a space (a checkout under a folder
	// whose name has one): it runs from the line's last "Read " to the
	// ".md" before "and follow it".
	firstLineRe = regexp.MustCompile(`^.*\bRead (.+\.md)(?:, section "([^"]+)")?,? and follow it\.$`)
	taskNRe     = regexp.MustCompile(`\bTask (\d+)\b`)
	roundRe     = regexp.MustCompile(`\b[Ff]ix round (\d+)\b`)
)

// ParseDispatch recognises a dispatch by the role file (and section) its
// first line names.
func ParseDispatch(prompt string) (Dispatch, bool) {
	lines := strings.Split(strings.TrimSpace(prompt), "\n")
	m := firstLineRe.FindStringSubmatch(lines[0])
	if m == nil {
		return Dispatch{}, false
	}
	d := Dispatch{RoleFile: m[1], Fields: map[string]string{}}
	file := m[1][strings.LastIndex(m[1], "/")+1:]
	switch {
	case file == "implementer-prompt.md" && m[2] == "Fix round":
		d.Role = RoleFix
	case file == "implementer-prompt.md" && m[2] == "":
		d.Role = RoleImplementer
	case file == "task-reviewer-prompt.md" && m[2] == "Final review":
		d.Role = RoleFinal
	case file == "task-reviewer-prompt.md" && m[2] == "":
		d.Role = RoleReviewer
	case file == "re-review-prompt.md" && m[2] == "":
		d.Role = RoleReReviewer
	default:
		return Dispatch{}, false
	}
	if t := taskNRe.FindStringSubmatch(lines[0]); t != nil {
		d.N, _ = strconv.Atoi(t[1])
	}
	if r := roundRe.FindStringSubmatch(lines[0]); r != nil {
		d.R, _ = strconv.Atoi(r[1])
	}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ": "); ok {
			d.Fields[k] = v
		}
	}
	return d, true
}

// Subagent is the router: the script of the subagent a dispatch starts.
// ok is false for a prompt the text does not define. The script's return
// value is the subagent's final text (a host sends it as the agent's last
// message); it never calls Say.
func (sc Scenario) Subagent(prompt string) (Script, bool) {
	d, ok := ParseDispatch(prompt)
	if !ok {
		return nil, false
	}
	switch d.Role {
	case RoleImplementer:
		return sc.implementer(d), true
	case RoleFix:
		return sc.fixer(d), true
	case RoleReviewer:
		return sc.reviewer(d), true
	case RoleReReviewer:
		return sc.reReviewer(d), true
	default:
		return sc.finalReviewer(d), true
	}
}

// agent is a subagent script's locals.
type agent struct {
	t    Tools
	d    Dispatch
	role string // the role file's text
	dir  string // the checkout a Work in: line names, where the role file says to work there; "" for the session's
}

// workIn takes the dispatch's Work in: line as the checkout to work in,
// as the role file says: every command begun with a cd to it. An
// implementer that escapes ignores it, as subagents in the wild do.
func (a *agent) workIn(escapes bool) {
	wi, ok := a.d.Fields["Work in"]
	if !ok || escapes || !strings.Contains(strings.Join(strings.Fields(a.role), " "), "run git as `git -C '<that path>' …` and any other command as `cd '<that path>' && …`") {
		return
	}
	a.dir = wi
}

// inDir is cmd run in the checkout a.dir, as the role file says: git as
// git -C, any other command after a cd (Claude Code asks a person for a
// cd before a git command, whatever the rules).
func (a *agent) inDir(cmd string) string {
	parts := strings.Split(cmd, " && ")
	for i, p := range parts {
		rest, ok := strings.CutPrefix(p, "git ")
		if !ok {
			return "cd " + shellQuote(a.dir) + " && " + cmd
		}
		parts[i] = "git -C " + shellQuote(a.dir) + " " + rest
	}
	return strings.Join(parts, " && ")
}

// agentFailed unwinds a subagent script with its reply.
type agentFailed string

// run runs body and turns a failure into a reply the controller will not
// take for success.
func run(t Tools, d Dispatch, failReply func(string) string, body func(a *agent) string) (out string) {
	a := &agent{t: t, d: d}
	defer unwound(func(s agentFailed) { out = failReply(string(s)) })
	return body(a)
}

func (a *agent) fail(format string, args ...any) {
	panic(agentFailed(FailPrefix + fmt.Sprintf(format, args...)))
}

func (a *agent) field(label string) string {
	v, ok := a.d.Fields[label]
	if !ok {
		a.fail("the dispatch has no %q line", label)
	}
	return v
}

func (a *agent) read(path string) string {
	r := a.t.Read(path, 0, 0)
	if r.IsError {
		a.fail("reading %s was refused: %s", path, r.Text)
	}
	return FileText(r.Text)
}

func (a *agent) bash(cmd string) string {
	if a.dir != "" {
		cmd = a.inDir(cmd)
	}
	r := a.t.Bash(cmd)
	if r.IsError {
		a.fail("Bash %s: %s", cmd, r.Text)
	}
	return r.Text
}

func (a *agent) write(path, content string) {
	if r := a.t.Write(path, content); r.IsError {
		a.fail("Write %s: %s", path, r.Text)
	}
}

// readRole reads the role file, checks the section the dispatch names,
// and checks its answer block has exactly these labels.
func (a *agent) readRole(section string, labels ...string) {
	a.role = a.read(a.d.RoleFile)
	if a.role == "" {
		return
	}
	if section != "" && !strings.Contains(a.role, "\n## "+section+"\n") {
		a.fail("%s has no section %q", a.d.RoleFile, section)
	}
	got, err := Answer(a.role)
	if err != nil {
		a.fail("%s: %v", a.d.RoleFile, err)
	}
	if strings.Join(got, "|") != strings.Join(labels, "|") {
		a.fail("%s's answer has the labels %q, the follower writes %q", a.d.RoleFile, got, labels)
	}
}

// root is the repository's top level (the subagent's working directory),
// as the workspace's files the dispatch names show it: a subagent runs
// only the commands a user allows for the plan (git add, git commit, the
// plan's tests), so it asks git nothing else.
func (a *agent) root() string {
	if a.dir != "" {
		return a.dir
	}
	for _, label := range []string{"Brief", "Report", "Package"} {
		p := strings.TrimSuffix(a.d.Fields[label], ")")
		if i := strings.LastIndex(p, "/.superpowers/sdd/"); i >= 0 {
			return p[:i]
		}
	}
	a.fail("the dispatch names no file of the workspace")
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var commitLineRe = regexp.MustCompile(`(?m)^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{4,})\] `)

// commit stages paths, commits, and returns the new short sha, which git
// commit prints ("[branch abc1234] message").
func (a *agent) commit(paths []string, msg string) string {
	var q []string
	for _, p := range paths {
		q = append(q, shellQuote(p))
	}
	var out string
	if a.dir != "" {
		// In a worktree, git -C: staged in a call of its own, then
		// committed (Droid's shield refuses a commit whose index an
		// earlier git -C of the same command may change).
		a.bash("git add -- " + strings.Join(q, " "))
		out = a.bash("git commit -m " + shellQuote(msg))
	} else {
		out = a.bash("git add -- " + strings.Join(q, " ") + " && git commit -m " + shellQuote(msg))
	}
	m := commitLineRe.FindStringSubmatch(out)
	if m == nil {
		a.fail("git commit printed no \"[branch sha]\" line:\n%s", out)
	}
	return m[1]
}

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

// conflictRe is the finding sdd-ledger records for a join that
// conflicted: the files, and the branch to merge.
var conflictRe = regexp.MustCompile(`^joining conflicts with \S+ at [0-9a-f]+ in (.+): in the worktree .+, merge (\S+) into \S+ and resolve it$`)

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

// holds says whether the file at path exists and holds content.
func (a *agent) holds(path, content string) bool {
	r := a.t.Read(path, 0, 0)
	return !r.IsError && strings.TrimRight(FileText(r.Text), "\n") == strings.TrimRight(content, "\n")
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

// terseFix says whether task n's fixer answers its round's first dispatch
// without its tests (Defect.TerseFirst).
func (sc Scenario) terseFix(n int) bool {
	t, err := sc.task(n)
	return err == nil && t.Defect != nil && t.Defect.TerseFirst
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

var briefHeadingRe = regexp.MustCompile(`(?m)^#+ Task (\d+):`)

// doEachRe is the implementer's rule for a batch's brief.
var doEachRe = regexp.MustCompile(`A brief may hold several tasks of the plan \(a batch\): do each, in its order, one commit each`)

// taskFirstRe is the reviewer's rule for a batch: each finding names its
// task first.
var taskFirstRe = regexp.MustCompile("A brief of several tasks \\(a batch\\): judge each task's requirements, and begin each finding's text with its task")

// briefTasks are the scenario's tasks a brief holds, in its order: one,
// or a batch's, the first being the task dispatched (n).
func (sc Scenario) briefTasks(a *agent, n int, brief string) []Task {
	var out []Task
	for _, m := range briefHeadingRe.FindAllStringSubmatch(brief, -1) {
		t, err := sc.task(atoiOr(m[1]))
		if err != nil {
			a.fail("the brief holds Task %s, which the scenario has not", m[1])
		}
		out = append(out, t)
	}
	if len(out) == 0 || out[0].N != n {
		a.fail("the brief does not begin with Task %d:\n%s", n, brief)
	}
	return out
}

// reviewFirstLineRe is the first line of a review file: a reviewer's
// answer, first (Spec:), or a re-reviewer's (F<k>:, or New: with no
// findings given).
var reviewFirstLineRe = regexp.MustCompile(`^(?:Spec|F\d+|New): `)

// readReview reads the review file a fix or re-review dispatch names,
// which holds the findings' details: a review, its answer first, as the
// role files have reviewers write it.
func (a *agent) readReview(path string) string {
	text := a.read(path)
	if !reviewFirstLineRe.MatchString(text) {
		first, _, _ := strings.Cut(text, "\n")
		a.fail("the Review line names %s, which is no review (it begins %q)", path, first)
	}
	return text
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
