package follower

import (
	"fmt"

	"regexp"
	"strconv"
	"strings"
)

// The models the controller names in its dispatches. SKILL.md's "Models
// and budgets": a reviewer is at least the implementer's tier, rounds 4-5
// one tier up, the final reviewer the most capable. The scenario's tasks
// are all "integration" (standard model), so: implementers and scoped
// re-reviewers on sonnet; task reviewers, rounds 4-5 and the final
// reviewer on opus.
const (
	ModelImplementer = "sonnet"
	ModelReviewer    = "opus"
	ModelReReviewer  = "sonnet"
	ModelStronger    = "opus"
	ModelFinal       = "opus"
	SubagentType     = "general-purpose"
)

// NoReportLine is the Reviewer prompt's Report line when there is no
// report (committed work found on resume): SKILL.md says to "say so in
// place of the Report line" without giving words, so these are the
// follower's.
const NoReportLine = "Report: none (the work was found committed; there is no report)"

// stopped unwinds a script once it has said its last words.
type stopped string

// Controller is the controller's script for one turn of the conversation:
// it loads the skill, runs Look, decides with the Resume tables (SKILL.md's,
// then resume.md's, in their order) and goes on with the text's blocks and
// prompts to the end of the run, a question for the human, or a failure.
// Its last call is Say, which ends the turn; its return value is the same
// words (FailPrefix… on a failure).
//
// A turn is one Controller: when the human answers a question, the next
// turn is a new Controller(sc) with the answers in sc.Human, which loads
// the skill and runs Look again, as the text says to on every resume. The
// script unwinds itself after Say with a panic it recovers; any other
// panic (a host stopping a replayed script) passes through untouched.
func Controller(sc Scenario) Script {
	return func(t Tools) (last string) {
		c := &controller{t: t, sc: sc, done: map[int]bool{}}
		defer func() {
			if r := recover(); r != nil {
				s, ok := r.(stopped)
				if !ok {
					panic(r) // not ours: a host may stop a script this way
				}
				last = string(s)
			}
		}()
		c.run()
		return c.fail("the run ended without last words")
	}
}

// controller is one turn's locals.
type controller struct {
	t      Tools
	sc     Scenario
	skill  Skill
	resume *Text // resume.md, once read
	v      Values
	look   lookOutput
	units  map[string]unitLines
	done   map[int]bool
	loaded bool // SendMessage's schema is loaded
	looks  int
}

// say ends the turn with text.
func (c *controller) say(text string) string {
	c.t.Say(text)
	panic(stopped(text))
}

func (c *controller) fail(format string, args ...any) string {
	return c.say(FailPrefix + fmt.Sprintf(format, args...))
}

// bash runs one Bash call; a failing call stops the run.
func (c *controller) bash(command string) string {
	r := c.t.Bash(command)
	if r.IsError {
		c.fail("a Bash call failed:\n%s\n--- it printed:\n%s", command, r.Text)
	}
	return r.Text
}

// fill takes a block of text by its bold name and fills its placeholders.
func (c *controller) fill(text *Text, name string, v Values) string {
	b, err := text.Block(name)
	if err != nil {
		c.fail("%v", err)
	}
	s, err := b.Fill(v)
	if err != nil {
		c.fail("%v", err)
	}
	return s
}

func (c *controller) block(name string, v Values) string { return c.fill(c.skill.Text, name, v) }

func (c *controller) resumeBlock(name string, v Values) string {
	c.readResume()
	return c.fill(c.resume, name, v)
}

// readResume reads resume.md once: SKILL.md links it for the rare rows
// and the blocks that record the human's answers.
func (c *controller) readResume() {
	if c.resume != nil {
		return
	}
	r := c.t.Read(c.skill.Dir+"/resume.md", 0, 0)
	if r.IsError {
		c.fail("reading resume.md: %s", r.Text)
	}
	t, err := ParseText(FileText(r.Text))
	if err != nil {
		c.fail("resume.md: %v", err)
	}
	c.resume = t
}

func (c *controller) run() {
	r := c.t.Skill(c.sc.skillName())
	if r.IsError {
		c.fail("the Skill tool: %s", r.Text)
	}
	sk, err := ParseSkill(r.Text)
	if err != nil {
		c.fail("%v", err)
	}
	c.skill = sk
	c.v = Values{"<plan file>": c.sc.Plan, "<skill dir>": sk.Dir, "<start branch>": c.sc.startBranch()}
	c.lookAndResume()
}

// lookAndResume runs Look and goes by the Resume tables.
func (c *controller) lookAndResume() {
	c.looks++
	if c.looks > 2 {
		c.fail("Look would run a third time in one turn")
	}
	out := c.bash(c.block("Look", c.v))
	lk, err := parseLook(out, c.sc.startBranch())
	if err != nil {
		c.fail("%v:\n%s", err, out)
	}
	c.look = lk
	c.v["<workspace>"] = lk.workspace
	c.units = nil
	if len(lk.ledger) > 1 {
		if c.units, err = splitLedger(lk.ledger); err != nil {
			c.fail("%v", err)
		}
		for n, u := range c.units {
			if u.has("complete") && n != "Final" {
				c.done[u.all[0].n] = true
			}
		}
	}
	c.decide()
}

func (c *controller) hasFile(name string) bool {
	_, ok := c.look.files[name]
	return ok
}

// taskValues are <N>, <who>, <brief> and <report> for Task n.
func (c *controller) taskValues(n int) Values {
	return c.v.With("<N>", strconv.Itoa(n), "<who>", fmt.Sprintf("Task %d", n),
		"<brief>", c.wsPath(fmt.Sprintf("task-%d-brief.md", n)),
		"<report>", c.wsPath(fmt.Sprintf("task-%d-report.md", n)))
}

// finalRun is the final review's notes: <who> = Final, no brief, and the
// report its one fix writes.
func (c *controller) finalRun() *taskRun {
	return &taskRun{v: c.v.With("<who>", "Final", "<brief>", "none", "<report>", c.wsPath("final-report.md")), id: "none"}
}

// taskRun is the controller's notes on the task it is running.
type taskRun struct {
	n        int // 0 in the final review
	v        Values
	id       string    // <agent id>
	minors   []string  // for the next block of this task
	open     []finding // the open findings
	also     string    // what the reviewer could not verify, for the fix dispatch
	review   string    // the review file with the details
	noReport bool
}

func (c *controller) newTask(n int) *taskRun {
	return &taskRun{n: n, v: c.taskValues(n), id: "none"}
}

// tasksFrom runs every task from n on that is not done, then the final
// review; pending is the block the first Bash call starts with.
func (c *controller) tasksFrom(n int, pending string) {
	for _, t := range c.sc.Tasks {
		if t.N < n || c.done[t.N] {
			continue
		}
		pending = c.startTask(t.N, pending)
		c.done[t.N] = true
	}
	c.final(pending)
}

// startTask runs Start task N (after pending, in the same call) and the
// task to its Close, which it returns for the next step's call.
func (c *controller) startTask(n int, pending string) string {
	tr := c.newTask(n)
	out := c.bash(pending + c.block("Start task N", tr.v))
	brief := c.v["<workspace>"] + fmt.Sprintf("/task-%d-brief.md", n)
	if m := wroteBriefRe.FindAllStringSubmatch(out, -1); len(m) == 0 || m[len(m)-1][1] != brief {
		c.fail("Start task N did not write %s:\n%s", brief, out)
	}
	return c.implement(tr)
}

func (c *controller) dispatch(desc, prompt, model string) AgentResult {
	return c.t.Agent(AgentCall{Description: desc, Prompt: prompt, Model: model, Type: SubagentType})
}

func (c *controller) implement(tr *taskRun) string {
	task, err := c.sc.task(tr.n)
	if err != nil {
		c.fail("%v", err)
	}
	prompt := c.block("Implementer prompt", tr.v.With(
		"<one line>", fmt.Sprintf("Task %d of %d of the plan: %s", tr.n, len(c.sc.Tasks), task.Title),
		"<interfaces and decisions it needs, parked findings nearby, or none>", "none",
		"<your answer to each ambiguity you saw in the brief, or none>", "none"))
	ar := c.dispatch(fmt.Sprintf("Task %d: implement", tr.n), prompt, ModelImplementer)
	c.implementerDone(ar.Reply, false)
	tr.id = ar.ID
	return c.build(tr)
}

// implementerDone checks an implementer's answer: DONE, and for a fix
// round a Tests line (the fix report must name tests, command, output).
func (c *controller) implementerDone(text string, fix bool) reply {
	r, err := parseReply(text)
	if err != nil {
		c.fail("the implementer's answer: %v", err)
	}
	status, err := r.get("Status")
	if err != nil || status != "DONE" {
		c.fail("the implementer did not answer DONE:\n%s", text)
	}
	if fix {
		if tests, _ := r.get("Tests"); tests == "" || tests == "none" {
			c.fail("a fix report without its tests:\n%s", text)
		}
	}
	return r
}

func (c *controller) build(tr *taskRun) string {
	out := c.bash(c.block("Build the package", tr.v.With("<agent id>", tr.id)))
	pkg, bytes, ok := wrotePackage(out)
	if !ok {
		c.fail("Build the package wrote no package:\n%s", out)
	}
	return c.review(tr, pkg, bytes)
}

// reviewerAnswer is a task or final reviewer's answer.
type reviewerAnswer struct {
	spec          string
	open          []finding
	minors        []string
	notVerifiable string
	review        string
}

func (c *controller) parseReviewer(text string) reviewerAnswer {
	r, err := parseReply(text)
	if err != nil {
		c.fail("the reviewer's answer: %v", err)
	}
	var a reviewerAnswer
	var open, minor string
	for label, dst := range map[string]*string{"Spec": &a.spec, "Open": &open, "Minor": &minor, "Not verifiable": &a.notVerifiable, "Review": &a.review} {
		if *dst, err = r.get(label); err != nil {
			c.fail("%v", err)
		}
	}
	if a.open, err = parseFindings(open); err != nil {
		c.fail("the reviewer's Open line: %v", err)
	}
	a.minors = oneLiners(minor)
	return a
}

// pkgValues are <package> and, when known, <bytes>: a prompt that needs
// <bytes> the follower does not know is refused by Fill.
func pkgValues(v Values, pkg, bytes string) Values {
	v = v.With("<package>", pkg)
	if bytes != "" {
		v["<bytes>"] = bytes
	}
	return v
}

func (c *controller) review(tr *taskRun, pkg, bytes string) string {
	prompt := c.block("Reviewer prompt", pkgValues(tr.v, pkg, bytes))
	if tr.noReport {
		prompt = replaceLine(prompt, "Report: ", NoReportLine)
	}
	ar := c.dispatch(fmt.Sprintf("Task %d: review", tr.n), prompt, ModelReviewer)
	a := c.parseReviewer(ar.Reply)
	if want := strings.TrimSuffix(pkg, ".diff") + ".md"; a.review != want {
		c.fail("the reviewer's review file is %q, not %q beside the package", a.review, want)
	}
	return c.rule(tr, a)
}

func replaceLine(text, prefix, line string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = line
		}
	}
	return strings.Join(lines, "\n")
}

// rule rules on a task review's verdict (SKILL.md's list after the
// review): minors are deferred, Spec ❌ or a Critical/Important finding
// enters the fix loop, else the task closes (with <check> under ⚠️).
func (c *controller) rule(tr *taskRun, a reviewerAnswer) string {
	tr.minors = append(tr.minors, a.minors...)
	if a.spec == "❌" || len(a.open) > 0 {
		tr.open, tr.review = a.open, a.review
		tr.also = a.notVerifiable
		return c.fix(tr, 1)
	}
	check := "true"
	if a.spec == "⚠️" {
		task, _ := c.sc.task(tr.n)
		if task.Test == "" {
			c.fail("Task %d's review is ⚠️ and the plan gives no test command for <check>", tr.n)
		}
		check = task.Test
	} else if a.spec != "✅" {
		c.fail("a task review's Spec is %q", a.spec)
	}
	return c.closeTask(tr, check, "review clean")
}

// closeTask renders Close; the caller appends the next step's block.
func (c *controller) closeTask(tr *taskRun, check, outcome string) string {
	s := c.block("Close", tr.v.With("<check>", check, "<minors>", quoteMinors(tr.minors), "<outcome>", outcome))
	tr.minors = nil
	return s
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}

// fix dispatches fix round r: rounds 1-3 to the same implementer by
// SendMessage (a fresh one when its id is unknown or the host refuses it:
// an earlier session's), 4-5 to a fresh one on a stronger model.
func (c *controller) fix(tr *taskRun, r int) string {
	prompt := c.fixPrompt(tr, r)
	var ar AgentResult
	if r <= 3 && tr.id != "none" {
		if !c.loaded {
			if res := c.t.ToolSearch("select:SendMessage"); res.IsError {
				c.fail("ToolSearch select:SendMessage: %s", res.Text)
			}
			c.loaded = true
		}
		ar = c.t.SendMessage(tr.id, prompt)
	}
	if r > 3 || tr.id == "none" || ar.Refused {
		// The text's "where that is impossible, a fresh implementer".
		model := ModelImplementer
		if r > 3 {
			model = ModelStronger
		}
		ar = c.dispatch(fmt.Sprintf("%s: fix round %d", tr.v["<who>"], r), prompt, model)
	}
	c.implementerDone(ar.Reply, true)
	return c.reReviewPackage(tr, r)
}

// fixPrompt is the Fix prompt of round r.
func (c *controller) fixPrompt(tr *taskRun, r int) string {
	prompt := c.block("Fix prompt", tr.v.With("<R>", strconv.Itoa(r),
		"<open findings>", joinFindings(tr.open),
		"<items the reviewer could not verify, or none>", orNone(tr.also),
		"<the review file with the details>", tr.review))
	tr.also = ""
	return prompt
}

func (c *controller) reReviewPackage(tr *taskRun, r int) string {
	out := c.bash(c.block("Re-review package", tr.v.With("<minors>", quoteMinors(tr.minors))))
	tr.minors = nil
	pkg, bytes, ok := wrotePackage(out)
	if !ok {
		// A round without commits: its findings stay open.
		return c.record(tr, r, 0)
	}
	return c.reReview(tr, r, pkg, bytes)
}

var addressedRe = regexp.MustCompile(`^(ADDRESSED|NOT ADDRESSED)(?: — (.*))?$`)

func (c *controller) reReview(tr *taskRun, r int, pkg, bytes string) string {
	prompt := c.block("Re-reviewer prompt", pkgValues(tr.v, pkg, bytes).With("<R>", strconv.Itoa(r),
		"<open findings>", joinFindings(tr.open),
		"<the review file with the details>", tr.review))
	ar := c.dispatch(fmt.Sprintf("%s: re-review round %d", tr.v["<who>"], r), prompt, ModelReReviewer)
	x := c.takeReReview(tr, ar.Reply)
	return c.record(tr, r, x)
}

// takeReReview reads a scoped re-review (its answer or its file): the
// findings still open become tr.open (new breakage joins them), its
// out-of-scope notes become minors; it returns <X>.
func (c *controller) takeReReview(tr *taskRun, text string) int {
	rp, err := parseReply(text)
	if err != nil {
		c.fail("the re-reviewer's answer: %v", err)
	}
	x := 0
	var still []finding
	for _, f := range tr.open {
		v, err := rp.get(f.id)
		if err != nil {
			c.fail("%v", err)
		}
		m := addressedRe.FindStringSubmatch(v)
		if m == nil {
			c.fail("the re-reviewer's %s line: %q", f.id, v)
		}
		if m[1] == "ADDRESSED" {
			x++
		} else {
			still = append(still, f)
		}
	}
	newLine, err := rp.get("New")
	if err != nil {
		c.fail("%v", err)
	}
	news, err := parseFindings(newLine)
	if err != nil {
		c.fail("the re-reviewer's New line: %v", err)
	}
	out, err := rp.get("Out of scope")
	if err != nil {
		c.fail("%v", err)
	}
	review, err := rp.get("Review")
	if err != nil {
		c.fail("%v", err)
	}
	tr.open = append(still, news...)
	tr.minors = append(tr.minors, oneLiners(out)...)
	tr.review = review
	return x
}

// record runs Record the round; with nothing open it returns it with
// Close appended (the caller appends the next step), else it runs it and
// goes on with the next round or, after round 5, the breaker.
func (c *controller) record(tr *taskRun, r, x int) string {
	s := c.block("Record the round", tr.v.With("<R>", strconv.Itoa(r), "<X>", strconv.Itoa(x),
		"<Y>", strconv.Itoa(len(tr.open)), "<open findings>", joinFindings(tr.open),
		"<minors>", quoteMinors(tr.minors)))
	tr.minors = nil
	if len(tr.open) == 0 {
		return s + c.closeTask(tr, "true", "review clean")
	}
	c.bash(s)
	if r < 5 {
		return c.fix(tr, r+1)
	}
	return c.breaker(tr, 0)
}

// breaker rules on each open finding after round 5 (resume.md): Park or
// Block, one call each, Close in the call of the last ruling. parked is
// how many the ledger already parks.
func (c *controller) breaker(tr *taskRun, parked int) string {
	for i, f := range tr.open {
		kind, why, _ := strings.Cut(c.sc.ruling(tr.n, f.text), ": ")
		switch kind {
		case "park":
			s := c.resumeBlock("Park", tr.v.With("<finding>", f.line(), "<why>", why))
			parked++
			if i == len(tr.open)-1 {
				return s + c.closeTask(tr, "true", fmt.Sprintf("%d parked", parked))
			}
			c.bash(s)
		case "block":
			c.bash(c.resumeBlock("Block", tr.v.With("<reason>", f.line()+": "+why)))
			c.say(fmt.Sprintf("%s is BLOCKED: %s: %s. The ledger and %s hold the fix history.", tr.v["<who>"], f.line(), why, tr.v["<workspace>"]))
		default:
			c.fail("the scenario gives no ruling for %s after round 5", f.line())
		}
	}
	return c.closeTask(tr, "true", fmt.Sprintf("%d parked", parked))
}

// final runs Final package (after pending, in the same call), the final
// review and the finish.
func (c *controller) final(pending string) {
	v := c.v.With("<who>", "Final")
	out := c.bash(pending + c.block("Final package", v))
	pkg, bytes, ok := wrotePackage(out)
	if !ok {
		c.fail("Final package wrote no package:\n%s", out)
	}
	c.finalReview(pkg, bytes)
}

func (c *controller) finalReview(pkg, bytes string) {
	v := pkgValues(c.v.With("<who>", "Final"), pkg, bytes)
	ar := c.dispatch("Final review", c.block("Final reviewer prompt", v), ModelFinal)
	c.ruleFinal(c.parseReviewer(ar.Reply))
}

// ruleFinal rules on the final review: Minor findings alone finish the
// run; Critical or Important ones get the one final fix.
func (c *controller) ruleFinal(a reviewerAnswer) {
	if a.spec != "n/a" {
		c.fail("the final review's Spec is %q, not n/a", a.spec)
	}
	tr := c.finalRun()
	tr.minors = a.minors
	if len(a.open) == 0 {
		c.finish(c.closeTask(tr, "true", "review clean"))
	}
	tr.open, tr.review, tr.also = a.open, a.review, a.notVerifiable
	c.finalFix(tr)
}

// finalFix is the final review's one fix (SKILL.md: the Fix prompt to a
// fresh implementer, <who> = Final, <R> = 1) and its scoped re-review.
func (c *controller) finalFix(tr *taskRun) {
	ar := c.dispatch("Final: fix", c.fixPrompt(tr, 1), ModelImplementer)
	c.implementerDone(ar.Reply, true)
	out := c.bash(c.block("Re-review package", tr.v.With("<minors>", quoteMinors(tr.minors))))
	tr.minors = nil
	pkg, bytes, ok := wrotePackage(out)
	if !ok {
		c.finishFinal(tr, 0) // no commits: every finding stays open
	}
	c.finalReReview(tr, pkg, bytes)
}

// finalReReview dispatches the final fix's scoped re-review and rules.
func (c *controller) finalReReview(tr *taskRun, pkg, bytes string) {
	prompt := c.block("Re-reviewer prompt", pkgValues(tr.v, pkg, bytes).With("<R>", "1",
		"<open findings>", joinFindings(tr.open),
		"<the review file with the details>", tr.review))
	ar := c.dispatch("Final: re-review", prompt, ModelReReviewer)
	c.takeReReview(tr, ar.Reply)
	c.finishFinal(tr, 0)
}

// finishFinal rules on what the final fix left open, as the breaker does
// (parked of them are parked already), and finishes.
func (c *controller) finishFinal(tr *taskRun, parked int) {
	if len(tr.open) == 0 {
		c.finish(c.closeTask(tr, "true", "review clean"))
	}
	c.finish(c.breaker(tr, parked))
}

// finish runs the final review's Close with Finish appended, in one call.
func (c *controller) finish(close string) {
	c.bash(close + c.block("Finish", c.v))
	c.say(fmt.Sprintf("Done: every task of %s is complete and reviewed, the workspace is deleted; the branch goes to the branch-finishing workflow.", c.sc.Plan))
}

// setup4 is Setup 4: every question at once, then Start the run with the
// human's answers recorded and the first task started, in one call.
func (c *controller) setup4() {
	if r := c.t.Read(c.planPath(), 0, 0); r.IsError {
		c.fail("reading the plan: %s", r.Text)
	}
	lk := c.look
	var qs []string
	if lk.branch == "main" || lk.branch == "master" {
		qs = append(qs, fmt.Sprintf("This checkout is on %s: may the run work here?", lk.branch))
	}
	qs = append(qs, c.sc.Contradictions...)
	if len(lk.since) > 0 {
		q := fmt.Sprintf("The branch already has commits since %s:\n%s\n", c.sc.startBranch(), strings.Join(lk.since, "\n"))
		if lk.flat != nil {
			q += "and the old flat ledger reads:\n" + strings.Join(lk.flat, "\n") + "\n"
		}
		qs = append(qs, q+"Do they implement tasks of this plan? Which count as done, and which should be reviewed?")
	}
	var moved []string
	for _, n := range lk.notes {
		if m := movedNoteRe.FindStringSubmatch(n); m != nil {
			moved = m
			qs = append(qs, fmt.Sprintf("%s belongs to %s, which no longer exists: did %s move from there?", m[1], m[2], c.sc.Plan))
		}
	}
	h := c.sc.Human
	if len(qs) > 0 && !h.Answered {
		c.say("Before Task 1:\n" + strings.Join(qs, "\n"))
	}
	if h.Moved && lk.ledger == nil {
		if moved == nil {
			c.fail("the human says the plan moved, and sdd-workspace named no workspace of a gone plan")
		}
		c.bash(c.resumeBlock("Carry over", c.v.With("<old workspace>", moved[4])))
		c.lookAndResume()
		return
	}
	pending := c.block("Start the run", c.v)
	for _, e := range h.Done {
		pending += c.resumeBlock("Earlier run, done", c.taskValues(e.N).With(
			"<first>", strconv.Itoa(e.First), "<last>", strconv.Itoa(e.Last)))
		c.done[e.N] = true
	}
	if e := h.Review; e != nil {
		pending += c.resumeBlock("Earlier run, to review", c.taskValues(e.N).With("<first>", strconv.Itoa(e.First)))
		c.bash(pending)
		tr := c.newTask(e.N)
		tr.noReport = !c.hasFile(fmt.Sprintf("task-%d-report.md", e.N))
		close := c.build(tr)
		c.done[e.N] = true
		c.tasksFrom(e.N+1, close)
		return
	}
	c.tasksFrom(1, pending)
}

// planPath is the plan's absolute path, for the Read tool. A model knows
// its working directory from its host; the follower's is the repository's
// top, which the workspace's path begins with.
func (c *controller) planPath() string {
	if strings.HasPrefix(c.sc.Plan, "/") {
		return c.sc.Plan
	}
	ws := c.v["<workspace>"]
	i := strings.LastIndex(ws, "/.superpowers/sdd/")
	if i < 0 {
		c.fail("the workspace %s is not under .superpowers/sdd", ws)
	}
	return ws[:i] + "/" + strings.TrimPrefix(c.sc.Plan, "./")
}

// movedNoteRe is sdd-workspace's note about a workspace of a gone plan.
var movedNoteRe = regexp.MustCompile(`^sdd-workspace: note: (.+) belongs to (.+), which no longer exists; if (.+) moved from there, its ledger is (.+)/progress\.md$`)

// pkgName finds the package of base..head in the workspace listing:
// review-<short base>..<short head>.diff, the short shas being prefixes.
func (c *controller) pkgName(base, head string) string {
	for name := range c.look.files {
		m := pkgFileRe.FindStringSubmatch(name)
		if m != nil && strings.HasPrefix(base, m[1]) && strings.HasPrefix(head, m[2]) {
			return name
		}
	}
	return ""
}

var pkgFileRe = regexp.MustCompile(`^review-([0-9a-f]{4,})\.\.([0-9a-f]{4,})\.diff$`)

func (c *controller) wsPath(name string) string { return c.v["<workspace>"] + "/" + name }

// reviewOf is the .md beside a package name.
func reviewOf(pkg string) string { return strings.TrimSuffix(pkg, ".diff") + ".md" }
