package follower

import (
	"fmt"
	"strings"
)

// The Resume tables, row by row. A row is known by its two cells exactly
// as the text writes them; the follower takes the text's rows in the
// text's order and refuses a row it does not know, so a reworded or
// reordered table changes what the follower does, as it would change what
// a model does.

// rowScope says which units a row is about.
type rowScope int

const (
	scopeLedger rowScope = iota // the ledger as a whole, before any task
	scopeTask                   // one task
	scopeFinal                  // the final review
	scopeAny                    // any unit (the row that sends to resume.md)
)

type knownRow struct {
	row   Row
	scope rowScope
	fits  func(u *unit) bool
	act   func(u *unit) // nil: go on with the next unit
	more  bool          // this row sends to resume.md's rows
}

// unit is one task (n > 0) or the final review (n == 0) as the ledger and
// Look show it.
type unit struct {
	c     *controller
	n     int
	who   string
	lines unitLines

	file     map[string]reviewFile // review files read so far, by name
	openMemo *[]finding
}

func (u *unit) last() string { return u.lines.last().kind }

// commitsAfter says whether Look listed commits after this unit's last
// recorded sha. Look lists them after the ledger's last recorded sha,
// which must be this unit's.
func (u *unit) commitsAfter() bool {
	var lastLedger, lastUnit string
	for _, s := range u.c.look.ledger[1:] {
		if l, ok := parseLedgerLine(s); ok && (l.kind == "base" || l.kind == "reviewed_head") {
			lastLedger = l.value
			if l.who == u.who {
				lastUnit = l.value
			}
		}
	}
	if lastUnit == "" || lastLedger != lastUnit || !u.c.look.afterShown {
		u.c.fail("Look lists the commits after %.12s, and %s's last recorded sha is %.12s", lastLedger, u.who, lastUnit)
	}
	return len(u.c.look.after) > 0
}

// packages are the unit's review packages in order: base..head1,
// head1..head2, … (a package name is "" when the workspace lacks it).
func (u *unit) packages() []string {
	var out []string
	prev := u.lines.lastOf("base")
	for _, h := range u.lines.heads() {
		out = append(out, u.c.pkgName(prev, h))
		prev = h
	}
	return out
}

func (u *unit) lastPackage() string {
	p := u.packages()
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// reviewIn says whether the last reviewed_head's review is in: its .md
// beside its package.
func (u *unit) reviewIn() bool {
	p := u.lastPackage()
	return p != "" && u.c.hasFile(reviewOf(p))
}

// sameHead says whether the last two reviewed_head= lines hold one sha (a
// fix round without commits).
func (u *unit) sameHead() bool {
	h := u.lines.heads()
	return len(h) >= 2 && h[len(h)-1] == h[len(h)-2]
}

// reviewFile is what a review file says, by the labels of an answer.
type reviewFile struct {
	path string
	r    reply
}

// readReview reads a review file of the workspace (once).
func (u *unit) readReview(name string) reviewFile {
	if f, ok := u.file[name]; ok {
		return f
	}
	p := u.c.wsPath(name)
	res := u.c.t.Read(p, 0, 0)
	if res.IsError {
		u.c.fail("reading %s: %s", p, res.Text)
	}
	var keep []string
	for _, l := range strings.Split(FileText(res.Text), "\n") {
		label, _, ok := strings.Cut(l, ": ")
		if ok && (reviewLabels[label] || findingIDRe.MatchString(label)) {
			keep = append(keep, l)
		}
	}
	r, err := parseReply(strings.Join(keep, "\n"))
	if err != nil {
		u.c.fail("%s: %v", p, err)
	}
	f := reviewFile{path: p, r: r}
	u.file[name] = f
	return f
}

var reviewLabels = map[string]bool{"Spec": true, "Open": true, "Minor": true, "Not verifiable": true, "Review": true, "New": true, "Out of scope": true}

// openBefore is what was open going into the last package: the last fix
// round line's findings, or the first review's Open line.
func (u *unit) openBefore() []finding {
	if f := u.lines.lastRound(); f.round > 0 {
		fs, err := parseFindings(f.findings)
		if err != nil {
			u.c.fail("%v", err)
		}
		return fs
	}
	p := u.packages()
	if len(p) == 0 || p[0] == "" || !u.c.hasFile(reviewOf(p[0])) {
		u.c.fail("%s: the first review is not in", u.who)
	}
	return u.firstReview(p[0]).open
}

func (u *unit) firstReview(pkg string) reviewerAnswer {
	f := u.readReview(reviewOf(pkg))
	return u.c.parseReviewer(f.r.text)
}

// open is what is open now, by the unit's last line.
func (u *unit) open() []finding {
	if u.openMemo != nil {
		return *u.openMemo
	}
	var fs []finding
	switch u.last() {
	case "fix", "parked":
		fs = u.openBeforeFix()
	case "reviewed_head":
		heads := u.lines.heads()
		switch {
		case u.sameHead():
			fs = u.openBefore()
		case !u.reviewIn():
			u.c.fail("%s: asked what is open before its review is in", u.who)
		case len(heads) == 1:
			fs = u.firstReview(u.lastPackage()).open
		default:
			tr := &taskRun{open: u.openBefore()}
			u.c.takeReReview(tr, u.readReview(reviewOf(u.lastPackage())).r.text)
			fs = tr.open
		}
	}
	u.openMemo = &fs
	return fs
}

func (u *unit) openBeforeFix() []finding {
	fs, err := parseFindings(u.lines.lastRound().findings)
	if err != nil {
		u.c.fail("%v", err)
	}
	return fs
}

// latestReview is the newest review file in: the one with the details.
func (u *unit) latestReview() string {
	latest := ""
	for _, p := range u.packages() {
		if p != "" && u.c.hasFile(reviewOf(p)) {
			latest = u.c.wsPath(reviewOf(p))
		}
	}
	return latest
}

// taskRun rebuilds the controller's notes on a task from the ledger.
func (u *unit) taskRun() *taskRun {
	tr := u.c.newTask(u.n)
	if id := u.lines.lastOf("implementer"); id != "" {
		tr.id = id
	}
	tr.noReport = !u.c.hasFile(fmt.Sprintf("task-%d-report.md", u.n))
	tr.review = u.latestReview()
	return tr
}

// packageBytes is the package's size as Look listed it, "" when Look
// lists no sizes.
func (u *unit) packageBytes(pkg string) string {
	n, ok := u.c.look.files[pkg]
	if !ok || pkg == "" {
		u.c.fail("%s: its package is not in the workspace", u.who)
	}
	if n < 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// then goes on after a task's step returned its Close.
func (u *unit) then(close string) { u.c.tasksFrom(u.n+1, close) }

// knownRows are every row the follower can follow (a function, as the
// rows' actions use the tables too).
func knownRows() []knownRow {
	return []knownRow{
		// SKILL.md
		{row: Row{"none, or only its first line", "Setup 4, then **Start the run**"}, scope: scopeLedger,
			fits: func(u *unit) bool { return len(u.c.look.ledger) <= 1 },
			act:  func(u *unit) { u.c.setup4() }},
		{row: Row{"first line names another plan", "stop, ask the human"}, scope: scopeLedger,
			fits: func(u *unit) bool { return len(u.c.look.ledger) > 0 && !u.c.namesThisPlan() },
			act: func(u *unit) {
				u.c.say(fmt.Sprintf("%s/progress.md begins %q: it is another run's only record, not %s's. I have not touched it. Whose is it, and where should this run keep its ledger?",
					u.c.v["<workspace>"], u.c.look.ledger[0], u.c.sc.Plan))
			}},
		{row: Row{"`Task <N>: complete`", "next task"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.lines.has("complete") }},
		{row: Row{"no line for the task", "**Start task N**"}, scope: scopeTask,
			fits: func(u *unit) bool { return len(u.lines.all) == 0 },
			act:  func(u *unit) { u.c.tasksFrom(u.n, "") }},
		{row: Row{"last line `base=`, commits after it", "**Build the package** (no report file: tell the reviewer there is none)"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "base" && u.commitsAfter() },
			act:  func(u *unit) { u.then(u.c.build(u.taskRun())) }},
		{row: Row{"last line `base=`, no commits after it", "dispatch the implementer again"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "base" && !u.commitsAfter() },
			act:  func(u *unit) { u.then(u.c.implement(u.taskRun())) }},
		{row: Row{"last line `reviewed_head=`, that review not in", "dispatch that review or re-review again"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "reviewed_head" && !u.reviewIn() },
			act:  func(u *unit) { u.then(u.reviewAgain()) }},
		{row: Row{"last line `reviewed_head=`, review in, nothing open", "**Close**"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "reviewed_head" && u.reviewIn() && len(u.open()) == 0 },
			act:  func(u *unit) { u.then(u.closeFromReview()) }},
		{row: Row{"last line `reviewed_head=` or `fix round`, findings open, commits after the last `reviewed_head`", "a fix not yet re-reviewed: re-review it; that closes round R+1"}, scope: scopeTask,
			fits: func(u *unit) bool {
				return (u.last() == "reviewed_head" || u.last() == "fix") && len(u.open()) > 0 && u.commitsAfter()
			},
			act: func(u *unit) { u.then(u.reReviewFix()) }},
		{row: Row{"`BLOCKED`", "stop: report to the human"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "blocked" },
			act: func(u *unit) {
				u.c.say(fmt.Sprintf("%s is BLOCKED: %s", u.who, u.lines.last().value))
			}},
		{row: Row{"anything else (`parked`, round 5, the final review, a lost workspace)", "[resume.md](resume.md)"}, scope: scopeAny,
			fits: func(u *unit) bool { return true }, more: true},

		// resume.md
		{row: Row{"`fix round 5/5` as the last line, findings open", "[the breaker](#breaker)"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "fix" && u.lines.lastRound().round == 5 && len(u.open()) > 0 },
			act: func(u *unit) {
				tr := u.taskRun()
				tr.open = u.open()
				u.then(u.c.breaker(tr, 0))
			}},
		{row: Row{"`parked` as the last line, open findings without a `parked` line", "go on ruling, [the breaker](#breaker)"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "parked" && len(u.unruled()) > 0 },
			act: func(u *unit) {
				tr := u.taskRun()
				tr.open = u.unruled()
				u.then(u.c.breaker(tr, u.lines.count("parked")))
			}},
		{row: Row{"`parked` as the last line, every open finding ruled", "Close with `<outcome>` = `<K> parked`"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "parked" && len(u.unruled()) == 0 },
			act: func(u *unit) {
				u.then(u.c.closeTask(u.taskRun(), "true", fmt.Sprintf("%d parked", u.lines.count("parked"))))
			}},
		{row: Row{"every task complete, no `Final:` line", "the final package"}, scope: scopeFinal,
			fits: func(u *unit) bool { return len(u.lines.all) == 0 },
			act:  func(u *unit) { u.c.final("") }},
		{row: Row{"last line `Final: reviewed_head=`, that review not in", "dispatch that final review or re-review again"}, scope: scopeFinal,
			fits: func(u *unit) bool { return u.last() == "reviewed_head" && !u.reviewIn() },
			act: func(u *unit) {
				p := u.lastPackage()
				if len(u.lines.heads()) == 1 {
					u.c.finalReview(u.c.wsPath(p), u.packageBytes(p))
				}
				tr := u.finalRun()
				u.c.finalReReview(tr, u.c.wsPath(p), u.packageBytes(p))
			}},
		{row: Row{"one `Final: reviewed_head=`, its review in, Critical or Important findings", "the one final fix dispatch, then the re-review block with `<who>` = `Final`"}, scope: scopeFinal,
			fits: func(u *unit) bool {
				return len(u.lines.heads()) == 1 && u.reviewIn() && len(u.firstReview(u.lastPackage()).open) > 0
			},
			act: func(u *unit) { u.c.finalFix(u.finalRun()) }},
		{row: Row{"one `Final: reviewed_head=`, its review in, nothing but Minor", "finish (Close with `<who>` = `Final`)"}, scope: scopeFinal,
			fits: func(u *unit) bool {
				return len(u.lines.heads()) == 1 && u.reviewIn() && len(u.firstReview(u.lastPackage()).open) == 0
			},
			act: func(u *unit) { u.c.ruleFinal(u.firstReview(u.lastPackage())) }},
		{row: Row{"two `Final: reviewed_head=` lines, the second review in (or no commits)", "rule on what is still open, then finish"}, scope: scopeFinal,
			fits: func(u *unit) bool { return len(u.lines.heads()) == 2 && (u.reviewIn() || u.sameHead()) },
			act: func(u *unit) {
				tr := u.finalRun()
				if !u.sameHead() {
					u.c.takeReReview(tr, u.readReview(reviewOf(u.lastPackage())).r.text)
				}
				// A cut among the rulings left some parked already.
				var unruled []finding
				for _, f := range tr.open {
					if !u.parked(f) {
						unruled = append(unruled, f)
					}
				}
				tr.open = unruled
				u.c.finishFinal(tr, u.lines.count("parked"))
			}},
		{row: Row{"`Final: complete`", "delete the workspace if it is still there; hand over"}, scope: scopeFinal,
			fits: func(u *unit) bool { return u.lines.has("complete") },
			act: func(u *unit) {
				u.c.bash(u.c.block("Finish", u.c.v))
				u.c.say("Done: the run was complete; its workspace is deleted; the branch goes to the branch-finishing workflow.")
			}},
		{row: Row{"`Final: BLOCKED`", "stop: report to the human"}, scope: scopeFinal,
			fits: func(u *unit) bool { return u.last() == "blocked" },
			act: func(u *unit) {
				u.c.say(fmt.Sprintf("The final review is BLOCKED: %s", u.lines.last().value))
			}},
		{row: Row{"the workspace is gone (`git clean -fdx` deletes it)", "run Look again (it makes a new one), then rebuild the ledger from `git log` with the human"}, scope: scopeAny,
			// Look makes the workspace, so the follower finds no ledger
			// there and asks Setup 4's questions about the commits.
			fits: func(u *unit) bool { return false }},

		// SKILL.md, the third edition's rows.
		{row: Row{"last line `reviewed_head=`, the same sha as the `reviewed_head=` before it", "a round without commits: **Record the round** with `<X>` = 0"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "reviewed_head" && u.sameHead() },
			act:  func(u *unit) { u.then(u.recordNoCommits()) }},
		{row: Row{"last line `reviewed_head=` of a re-review (not the task's first), its review in", "**Record the round** from it, R being the last recorded round + 1"}, scope: scopeTask,
			fits: func(u *unit) bool { return u.last() == "reviewed_head" && len(u.lines.heads()) > 1 && u.reviewIn() },
			act:  func(u *unit) { u.then(u.recordFromReReview()) }},
		{row: Row{"last line `reviewed_head=` or `fix round R` (R = 0 without one), findings open, no commits after it, R < 5", "dispatch round R+1"}, scope: scopeTask,
			fits: func(u *unit) bool {
				return (u.last() == "fix" || u.last() == "reviewed_head" && u.reviewIn()) && len(u.open()) > 0 &&
					!u.commitsAfter() && u.lines.lastRound().round < 5
			},
			act: func(u *unit) { u.then(u.nextRound()) }},
	}
}

// sameFileTest is SKILL.md's test of whether a ledger's path names the
// plan. It prints its answer: the host's Bash tool shows a test that
// fails (exit 1) exactly like one that passes, "(Bash completed with no
// output)", and no error (Claude Code 2.1.328).
const sameFileTest = "[ '<path>' -ef '<plan file>' ] && echo same || echo other"

// namesThisPlan compares the ledger's first line with the plan: equal
// strings, or the text's sameFileTest.
func (c *controller) namesThisPlan() bool {
	first := c.look.ledger[0]
	if !strings.HasPrefix(first, IdentityPrefix) {
		return false
	}
	p := strings.TrimPrefix(first, IdentityPrefix)
	if p == c.sc.Plan {
		return true
	}
	if strings.Contains(p, "'") {
		return false
	}
	if !strings.Contains(c.skill.Body, "`"+sameFileTest+"`") {
		c.fail("SKILL.md no longer gives the test %q", sameFileTest)
	}
	out := c.bash(strings.NewReplacer("<path>", p, "<plan file>", c.sc.Plan).Replace(sameFileTest))
	return strings.TrimSpace(out) == "same"
}

// rows matches a table of the text to the known rows, in the text's order.
func (c *controller) rows(table []Row, file string) []knownRow {
	if len(table) == 0 {
		c.fail("%s has no Resume table", file)
	}
	var out []knownRow
	for _, r := range table {
		found := false
		for _, k := range knownRows() {
			if k.row == r {
				out = append(out, k)
				found = true
				break
			}
		}
		if !found {
			c.fail("%s's Resume table has a row the follower does not know: | %s | %s |", file, r.State, r.Next)
		}
	}
	return out
}

// decide reads the ledger task by task in plan order (then the final
// review) and acts on the first row that fits; a row that sends to
// resume.md continues with its rows.
func (c *controller) decide() {
	rows := c.rows(c.skill.Table("Resume"), "SKILL.md")
	units := []*unit{{c: c, who: "ledger"}}
	for _, t := range c.sc.Tasks {
		who := fmt.Sprintf("Task %d", t.N)
		units = append(units, &unit{c: c, n: t.N, who: who, lines: c.units[who]})
	}
	units = append(units, &unit{c: c, who: "Final", lines: c.units["Final"]})
	for _, u := range units {
		u.file = map[string]reviewFile{}
		scope := scopeTask
		switch u.who {
		case "ledger":
			scope = scopeLedger
		case "Final":
			scope = scopeFinal
		}
		k, ok := c.pick(rows, u, scope)
		if !ok {
			if scope == scopeLedger {
				continue
			}
			c.fail("no row of the Resume tables fits %s: %q", u.who, lineTexts(u.lines.all))
		}
		if k.act == nil {
			continue
		}
		k.act(u)
		return
	}
	c.fail("the Resume tables led nowhere")
}

func (c *controller) pick(rows []knownRow, u *unit, scope rowScope) (knownRow, bool) {
	for _, k := range rows {
		if k.scope != scope && k.scope != scopeAny {
			continue
		}
		if scope == scopeLedger && k.scope == scopeAny {
			continue
		}
		if !k.fits(u) {
			continue
		}
		if k.more {
			c.readResume()
			return c.pick(c.rows(c.resume.Table(""), "resume.md"), u, scope)
		}
		return k, true
	}
	return knownRow{}, false
}

func lineTexts(ls []ledgerLine) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.text)
	}
	return out
}

// unruled are the round-5 findings without a parked line yet.
func (u *unit) unruled() []finding {
	var out []finding
	for _, f := range u.openBeforeFix() {
		if !u.parked(f) {
			out = append(out, f)
		}
	}
	return out
}

// parked says whether the unit has a parked line for f.
func (u *unit) parked(f finding) bool {
	for _, l := range u.lines.all {
		if l.kind == "parked" && strings.HasPrefix(l.value, f.line()+" — ruling: ") {
			return true
		}
	}
	return false
}

// finalRun rebuilds the final review's notes from its first review: the
// findings it left open, its minors, what it could not verify, its file.
func (u *unit) finalRun() *taskRun {
	tr := u.c.finalRun()
	p := u.packages()
	if len(p) == 0 || p[0] == "" || !u.c.hasFile(reviewOf(p[0])) {
		u.c.fail("Final: the first review is not in")
	}
	a := u.firstReview(p[0])
	tr.open, tr.minors, tr.also, tr.review = a.open, a.minors, a.notVerifiable, u.c.wsPath(reviewOf(p[0]))
	if len(p) > 1 {
		tr.minors = nil // the re-review package's block wrote them
	}
	return tr
}

// reviewAgain dispatches the last package's review (or re-review) again.
func (u *unit) reviewAgain() string {
	tr := u.taskRun()
	p := u.lastPackage()
	bytes := u.packageBytes(p)
	if len(u.lines.heads()) == 1 {
		return u.c.review(tr, u.c.wsPath(p), bytes)
	}
	tr.open = u.openBefore()
	return u.c.reReview(tr, u.lines.lastRound().round+1, u.c.wsPath(p), bytes)
}

// closeFromReview closes a task whose last review is in and clean, with
// that review's minors and, under ⚠️, the check.
func (u *unit) closeFromReview() string {
	tr := u.taskRun()
	f := u.readReview(reviewOf(u.lastPackage()))
	check := "true"
	if len(u.lines.heads()) == 1 {
		a := u.c.parseReviewer(f.r.text)
		tr.minors = a.minors
		if a.spec == "⚠️" {
			task, _ := u.c.sc.task(u.n)
			check = task.Test
		}
	} else if out, err := f.r.get("Out of scope"); err == nil {
		tr.minors = oneLiners(out)
	}
	return u.c.closeTask(tr, check, "review clean")
}

// reReviewFix re-reviews a fix made after the last reviewed head.
func (u *unit) reReviewFix() string {
	tr := u.taskRun()
	tr.open = u.open()
	if u.last() == "reviewed_head" {
		f := u.readReview(reviewOf(u.lastPackage()))
		if len(u.lines.heads()) == 1 {
			tr.minors = u.c.parseReviewer(f.r.text).minors
		} else if out, err := f.r.get("Out of scope"); err == nil {
			tr.minors = oneLiners(out)
		}
	}
	return u.c.reReviewPackage(tr, u.lines.lastRound().round+1)
}

// nextRound dispatches round R+1.
func (u *unit) nextRound() string {
	tr := u.taskRun()
	tr.open = u.open()
	return u.c.fix(tr, u.lines.lastRound().round+1)
}

// recordNoCommits records a round whose fix made no commit.
func (u *unit) recordNoCommits() string {
	tr := u.taskRun()
	tr.open = u.openBefore()
	return u.c.record(tr, u.lines.lastRound().round+1, 0)
}

// recordFromReReview records the round a re-review that is in closes.
func (u *unit) recordFromReReview() string {
	tr := u.taskRun()
	tr.open = u.openBefore()
	x := u.c.takeReReview(tr, u.readReview(reviewOf(u.lastPackage())).r.text)
	return u.c.record(tr, u.lines.lastRound().round+1, x)
}
