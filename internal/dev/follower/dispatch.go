package follower

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file is the controller's dispatches: which prompt a row names, how
// and on which model the text's dispatch table sends it, and what the
// answer makes of the unit's facts (SKILL.md: an implementer's DONE is
// after>0; a review is review=in with its Spec and Open; a re-review is
// review=in with what is still open).

// dispatchRow is one row of the dispatch table: the dispatches it covers
// (fix rounds with their range) and the model.
type dispatchRow struct {
	names    []string
	from, to int // a "fix rounds A-B" row's range
	model    string
}

var roundsRe = regexp.MustCompile(`^fix rounds? (\d+)(?:-(\d+))?$`)

func (c *controller) dispatchTable() []dispatchRow {
	var out []dispatchRow
	for _, r := range c.tableOf(c.skill.Text, "SKILL.md", "dispatch", "Dispatch", 2) {
		d := dispatchRow{model: r[1]}
		for _, n := range strings.Split(r[0], ",") {
			n = strings.TrimSpace(n)
			if m := roundsRe.FindStringSubmatch(n); m != nil {
				d.from, _ = strconv.Atoi(m[1])
				d.to = d.from
				if m[2] != "" {
					d.to, _ = strconv.Atoi(m[2])
				}
				n = "fix rounds"
			}
			d.names = append(d.names, n)
		}
		out = append(out, d)
	}
	return out
}

// how finds the dispatch table's row for a dispatch (round r for a fix).
func (c *controller) how(name string, r int) dispatchRow {
	for _, d := range c.dispatchTable() {
		for _, n := range d.names {
			if n == name && (name != "fix rounds" || d.from <= r && r <= d.to) {
				return d
			}
		}
	}
	c.fail("the dispatch table has no row for %q (round %d)", name, r)
	return dispatchRow{}
}

var tierRe = regexp.MustCompile("(fast|standard|most capable) \\(`([a-z0-9-]+)`\\)")

// tiers are the tiers in order and their models, from the host file's
// tiers row; none where the host names no model (every subagent runs on
// the session's).
func (c *controller) tiers() ([]string, map[string]string) {
	var order []string
	models := map[string]string{}
	for _, m := range tierRe.FindAllStringSubmatch(c.hostNeed("tiers"), -1) {
		if _, seen := models[m[1]]; !seen {
			order = append(order, m[1])
			models[m[1]] = m[2]
		}
	}
	if len(order) != 0 && len(order) != 3 {
		c.fail("the host's file names the tiers %q, not fast, standard and most capable with their models", order)
	}
	return order, models
}

// model reads a dispatch row's Model cell for u's task: "" on a host
// whose file names no models.
func (c *controller) model(cell string, u *unit) string {
	order, models := c.tiers()
	if len(order) == 0 {
		return ""
	}
	tier := ""
	cell, floor, hasFloor := strings.Cut(cell, ", at least ")
	switch {
	case cell == "the task's tier" || cell == "one tier above the task's":
		t, err := c.sc.task(atoiOr(u.n))
		if err != nil {
			c.fail("%v", err)
		}
		tier = t.tier()
		if cell != "the task's tier" {
			for i, x := range order {
				if x == tier && i+1 < len(order) {
					tier = order[i+1]
					break
				}
			}
		}
	default:
		tier = cell
	}
	if hasFloor && slices.Index(order, tier) < slices.Index(order, floor) {
		tier = floor // never below the floor the table sets
	}
	m, ok := models[tier]
	if !ok {
		c.fail("the dispatch table's model %q names no tier", cell)
	}
	return m
}

// dispatch does a row whose Next is a prompt.
func (c *controller) dispatch(u *unit, next string) {
	name := boldLast(next)
	v := c.values(u)
	switch name {
	case "Implementer prompt":
		ar := c.implement(u, name, v)
		u.dispatches = append(u.dispatches, dispatched{"implementer", ar.ID})
		c.answered(u, ar.Reply, "implementer")
	case "Reviewer prompt", "Final reviewer prompt":
		c.need(u, v, "<package>")
		kind := map[string]string{"Reviewer prompt": "reviewer", "Final reviewer prompt": "final reviewer"}[name]
		d := c.how(kind, 0)
		ar := c.agent(u.name+": review", c.block(name, v), c.model(d.model, u))
		c.onRefused(u, kind, ar.Reply)
		u.dispatches = append(u.dispatches, dispatched{kind, ar.ID})
		c.answered(u, ar.Reply, "review")
	case "Re-reviewer prompt":
		c.need(u, v, "<package>")
		r := c.roundOf(u, next)
		kind := "re-reviewer"
		if !u.task() {
			kind = "final re-reviewer"
		}
		d := c.how(kind, 0)
		ar := c.agent(fmt.Sprintf("%s: re-review round %d", u.name, r), c.block(name, v.With("<R>", strconv.Itoa(r))), c.model(d.model, u))
		c.onRefused(u, kind, ar.Reply)
		u.dispatches = append(u.dispatches, dispatched{kind, ar.ID})
		c.answered(u, ar.Reply, "re-review")
	case "Fix prompt":
		c.fix(u, c.roundOf(u, next))
	default:
		c.fail("a row names the prompt %q, which the follower does not know", name)
	}
}

// implement dispatches the Implementer prompt until the implementer's
// answer is DONE, or one whose rule in the text sends the work on (the
// review); an answer the text says to answer, or to change something
// for, is dispatched again so.
func (c *controller) implement(u *unit, name string, v Values) AgentResult {
	task, err := c.sc.task(atoiOr(u.n))
	if err != nil {
		c.fail("%v", err)
	}
	settled := "none"
	if len(c.settled) > 0 {
		settled = strings.Join(c.settled, "; ")
	}
	rulings, up := "none", 0
	// After a BLOCKED recorded (a session before this one): the change
	// Look's unblocked: line names is the one this dispatch carries.
	switch ch := u.unblocked; {
	case strings.HasPrefix(ch, "a stronger model: "):
		up = c.tiersTo(c.model(c.how("implementer", 0).model, u), strings.TrimPrefix(ch, "a stronger model: "))
		rulings = task.Context
	case strings.HasPrefix(ch, "more context: "):
		rulings = strings.TrimPrefix(ch, "more context: ")
	}
	for tries := 1; tries <= 3; tries++ {
		prompt := c.block(name, v.With(
			"<one line>", fmt.Sprintf("Task %s of %d of the plan: %s", u.n, len(c.sc.Tasks), task.Title),
			"<the settled: lines it needs, or none>", settled,
			"<your answer to each ambiguity you saw in the brief, or none>", rulings)) + c.workIn(u)
		d := c.how("implementer", 0)
		ar := c.agent(u.name+": implement", prompt, c.tierUp(c.model(d.model, u), up))
		c.onRefused(u, "implementer", ar.Reply)
		status := c.implementerStatus(ar.Reply)
		if status == "DONE" {
			return ar
		}
		next := c.onStatus(u, status, ar.Reply, task.Context)
		if next.goOn {
			return ar
		}
		rulings = task.Context
		change := "more context: " + task.Context
		if next.stronger {
			up++
			change = "a stronger model: " + c.tierUp(c.model(d.model, u), up)
		}
		if next.record {
			c.recordStuck(u, ar.Reply, change)
		}
	}
	c.fail("%s: three implementer dispatches and no DONE", u.name)
	return AgentResult{}
}

// recordStuck records an implementer's BLOCKED and the change the next
// dispatch carries, as rare.md's Stuck says: Block + Unblock in one call.
func (c *controller) recordStuck(u *unit, reply, change string) {
	c.readRare()
	r, _ := parseReply(reply)
	notes, _ := r.get("Notes")
	v := c.values(u).With("<reason>", orNone(notes), "<what changed>", change)
	var cmds []string
	for _, name := range boldNames(c.rare.Section("Stuck")) {
		if name == "Block" || name == "Unblock" {
			cmds = append(cmds, c.fill(c.rare, name, v))
		}
	}
	if len(cmds) != 2 {
		c.fail("rare.md's Stuck does not name Block and Unblock: %q", c.rare.Section("Stuck"))
	}
	c.command(strings.Join(cmds, c.joiner()))
}

// roundOf is the round a prompt's row gives: "round `round`+1" (the
// unit's last recorded round, plus one) or "round <R>".
func (c *controller) roundOf(u *unit, next string) int {
	if strings.Contains(next, "`round`+1") {
		return atoiOr(u.facts["round"]) + 1
	}
	if m := regexp.MustCompile(`round (\d+)`).FindStringSubmatch(next); m != nil {
		return atoiOr(m[1])
	}
	c.fail("%s: the row %q gives no round for its prompt", u.name, next)
	return 0
}

// need fails when a value a prompt needs is unknown to the controller.
func (c *controller) need(u *unit, v Values, names ...string) {
	for _, n := range names {
		if v[n] == "" {
			c.fail("%s: the prompt needs %s and nothing printed it", u.name, n)
		}
	}
}

// foreground says whether the host's file has dispatches run in the
// foreground (Claude Code's run_in_background: false).
func (c *controller) foreground() bool {
	return strings.Contains(c.hostNeed("a dispatch"), "`run_in_background: false`")
}

func (c *controller) agent(desc, prompt, model string) AgentResult {
	return c.dispatchCall(AgentCall{Description: desc, Prompt: prompt, Model: model, Type: c.dispatchType(), Background: !c.foreground()})
}

// dispatchCall makes a dispatch, unless it went with others in one
// message already (dispatchTogether): then its answer is taken, once.
func (c *controller) dispatchCall(call AgentCall) AgentResult {
	if r, ok := c.together[call.Prompt]; ok {
		delete(c.together, call.Prompt)
		return r
	}
	return c.t.Agent(call)
}

// fix dispatches fix round r on the model the dispatch table gives: to
// the implementer the unit knows (its agent id), where the host's file
// says its rounds continue it, else to a fresh implementer.
func (c *controller) fix(u *unit, r int) {
	v := c.values(u).With("<R>", strconv.Itoa(r),
		"<what the review could not verify, or none>", orNone(u.notVerifiable))
	c.need(u, v, "<review>")
	prompt := c.block("Fix prompt", v) + c.workIn(u)
	kind := "fix rounds"
	if !u.task() {
		kind = "final fix"
	}
	d := c.how(kind, r)
	call := AgentCall{Description: fmt.Sprintf("%s: fix round %d", u.name, r), Prompt: prompt, Model: c.model(d.model, u),
		Type: c.dispatchType(), Background: !c.foreground()}
	// <agent id>: an id a dispatch of this turn returned is this
	// session's; one read from Look is an earlier session's only when this
	// is a new session (after a compaction the session is the same).
	id, thisTurn, idless := c.agentID(u)
	if u.task() && c.continues(r, !thisTurn && c.sc.NewSession) {
		if idless {
			// The text continues an implementer its host gave no id of.
			c.fail("%s: fix round %d continues the implementer, as the host's file says, but its dispatch returned no id to continue", u.name, r)
		}
		if orNone(id) != "none" {
			call.Continue = id
		}
	}
	ar := c.dispatchCall(call)
	c.onRefused(u, "implementer", ar.Reply)
	c.implementerDone(ar.Reply)
	if !hasTests(ar.Reply) && sendBackRe.MatchString(oneLine(c.skill.Body)) {
		// The text sends such an answer back: the same round again.
		call.Description += ", again"
		if call.Continue != "" {
			call.Continue = ar.ID
		}
		ar = c.t.Agent(call)
		c.onRefused(u, "implementer", ar.Reply)
		c.implementerDone(ar.Reply)
	}
	u.dispatches = append(u.dispatches, dispatched{"fix", ar.ID})
	c.answered(u, ar.Reply, "fix")
}

// sendBackRe is the text's rule on a fix's answer without its tests.
var sendBackRe = regexp.MustCompile("A fix's answer whose `Tests:` line does not give the covering tests' command and result goes back: the same round again")

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasTests says whether an implementer's answer gives its tests.
func hasTests(text string) bool {
	r, err := parseReply(text)
	if err != nil {
		return false
	}
	tests, _ := r.get("Tests")
	return tests != "" && tests != "none"
}

// implementerStatus is an implementer's Status: one the text names.
func (c *controller) implementerStatus(text string) string {
	r, err := parseReply(text)
	if err != nil {
		c.fail("the implementer's answer: %v", err)
	}
	status, err := r.get("Status")
	if err != nil || !namesStatus(c.skill.Body, status) {
		c.fail("the implementer answered a status the text does not name:\n%s", text)
	}
	return status
}

// implementerDone checks an implementer's answer: DONE.
func (c *controller) implementerDone(text string) reply {
	r, err := parseReply(text)
	if err != nil {
		c.fail("the implementer's answer: %v", err)
	}
	status, err := r.get("Status")
	if err != nil || status != "DONE" {
		c.fail("the implementer did not answer DONE:\n%s", text)
	}
	return r
}

var commitsRe = regexp.MustCompile(`\((\d+)\)$`)

// answered takes a subagent's answer into u's facts, as SKILL.md says an
// answer gives them; the row that then fits is the text's to say.
func (c *controller) answered(u *unit, text, kind string) {
	r, err := parseReply(text)
	if err != nil {
		c.fail("%s's answer: %v", kind, err)
	}
	u.named = ""
	f := u.facts
	switch kind {
	case "implementer", "fix":
		commits, _ := r.get("Commits")
		n := 0
		if m := commitsRe.FindStringSubmatch(commits); m != nil {
			n = atoiOr(m[1])
		}
		if n == 0 && kind == "implementer" {
			// The text: an implementer's DONE, after>0; its work may have
			// been in the tree already (Package then reviews the tree).
			n = 1
		}
		if n > 0 {
			f["after"] = strconv.Itoa(n)
		}
	case "review":
		a := c.parseReviewer(text)
		f["review"], f["spec"], f["open"] = "in", a.spec, strconv.Itoa(len(a.open))
		u.open, u.notVerifiable = a.open, a.notVerifiable
		c.answeredReview(u, r)
	case "re-review":
		still, news := c.takeReReview(u.open, text)
		u.open = append(still, news...)
		f["review"], f["open"] = "in", strconv.Itoa(len(u.open))
		c.answeredReview(u, r)
	}
}

// answeredReview takes <review> from a reviewer's answer, where its
// cell names the answer's line.
func (c *controller) answeredReview(u *unit, r reply) {
	if _, label := c.reviewLabels(); label != "" {
		v, err := r.get(label)
		if err != nil {
			c.fail("%s: the Placeholder table takes <review> from the reviewer's %q line: %v", u.name, label, err)
		}
		u.review = v
	}
}

// reviewerAnswer is a task or final reviewer's answer.
type reviewerAnswer struct {
	spec          string
	open          []finding
	notVerifiable string
}

func (c *controller) parseReviewer(text string) reviewerAnswer {
	r, err := parseReply(text)
	if err != nil {
		c.fail("the reviewer's answer: %v", err)
	}
	var a reviewerAnswer
	var open string
	for label, dst := range map[string]*string{"Spec": &a.spec, "Open": &open, "Not verifiable": &a.notVerifiable} {
		if *dst, err = r.get(label); err != nil {
			c.fail("%v", err)
		}
	}
	if a.notVerifiable == "none" {
		a.notVerifiable = ""
	}
	if a.open, err = parseFindings(open); err != nil {
		c.fail("the reviewer's Open line: %v", err)
	}
	if minor, _ := r.get("Minor"); minor != "none" && minor != "" && !minorsDeferredRe.MatchString(oneLine(c.skill.Body)) {
		// Without the text's rule a Minor is a finding like another: it
		// goes into the fix loop.
		for i, m := range strings.Split(minor, "; ") {
			a.open = append(a.open, finding{id: fmt.Sprintf("M%d", i+1), grade: "Minor", text: m})
		}
	}
	return a
}

var addressedRe = regexp.MustCompile(`^(ADDRESSED|NOT ADDRESSED)(?: — (.*))?$`)

// takeReReview reads a scoped re-review: the findings of before it rules
// NOT ADDRESSED, and its new findings.
func (c *controller) takeReReview(before []finding, text string) (still, news []finding) {
	rp, err := parseReply(text)
	if err != nil {
		c.fail("the re-reviewer's answer: %v", err)
	}
	for _, f := range before {
		v, err := rp.get(f.id)
		if err != nil {
			c.fail("%v", err)
		}
		m := addressedRe.FindStringSubmatch(v)
		if m == nil {
			c.fail("the re-reviewer's %s line: %q", f.id, v)
		}
		if m[1] != "ADDRESSED" {
			still = append(still, f)
		}
	}
	newLine, err := rp.get("New")
	if err != nil {
		c.fail("%v", err)
	}
	if news, err = parseFindings(newLine); err != nil {
		c.fail("the re-reviewer's New line: %v", err)
	}
	return still, news
}

// breaker rules on each open finding as rare.md's table says: a row by
// the ruling's first word, its Next's steps; the last ruling's Next joins
// Close and the next step.
func (c *controller) breaker(u *unit) {
	c.readRare()
	rows := c.tableOf(c.rare, "rare.md", "breaker", "Ruling", 2)
	if len(u.open) == 0 {
		c.fail("%s: the breaker with no open finding", u.name)
	}
	f := u.open[0]
	ruling := c.sc.ruling(atoiOr(u.n), f.text)
	kind, why, _ := strings.Cut(ruling, ": ")
	if kind == "" {
		c.fail("the scenario gives no ruling for %s", f.line())
	}
	var next string
	for _, r := range rows {
		if strings.HasPrefix(r[0], kind+":") {
			next = r[1]
		}
	}
	if next == "" {
		c.fail("rare.md's breaker table has no row for a ruling to %s", kind)
	}
	v := c.values(u).With("<id>", f.id, "<why>", why, "<reason>", f.line()+": "+why)
	each, last, hasLast := strings.Cut(next, "; with the last ruling, ")
	steps := each
	if hasLast && len(u.open) == 1 {
		steps = last
	}
	stop := ""
	if s, after, ok := strings.Cut(steps, ", then stop"); ok {
		steps, stop = s, after
	}
	var cmds []string
	closed := false
	for _, part := range strings.Split(steps, " + ") {
		part = strings.TrimSpace(part)
		if part == "next" {
			if s := c.nextStep(u, closed); s != "" {
				cmds = append(cmds, s)
			}
			continue
		}
		m := boldNameRe.FindStringSubmatch(part)
		if m == nil {
			c.fail("rare.md's breaker: a step %q that names no block", part)
		}
		text, _, ok := c.anyBlock(m[1])
		if !ok {
			c.fail("rare.md's breaker names %q, which is no block", m[1])
		}
		cmds = append(cmds, c.fill(text, m[1], v.With("<decisions>", c.decisions(u))))
		closed = closed || m[1] == "Close"
	}
	c.runChain(cmds)
	if stop != "" {
		c.say(fmt.Sprintf("%s is BLOCKED: %s: %s. I %s", u.name, f.line(), why, strings.TrimSpace(strings.TrimPrefix(stop, ":"))))
	}
}

// beforeTask1 is Before Task 1: the questions, asked at once, unless the
// human answered them; then the answers' steps to join the call that
// starts the run (pre: a step in place of Start the run, Carry over).
func (c *controller) beforeTask1() (pre string, answers []string, stop bool) {
	lk := c.look
	var qs []string
	if slices.Contains(c.yesBranches(), lk.branch) {
		qs = append(qs, fmt.Sprintf("This checkout is on %s: may the run work here?", lk.branch))
	}
	// The questions the text lists, in its order, asked as it says.
	atOnce, items := c.beforeQuestions()
	for _, item := range items {
		switch {
		case strings.Contains(item, "contradictions"):
			qs = append(qs, c.sc.Contradictions...)
		case strings.Contains(item, "commits Look lists"):
			if len(lk.since) == 0 {
				continue
			}
			q := fmt.Sprintf("The branch already has commits since %s:\n%s\n", c.sc.startBranch(), strings.Join(lk.since, "\n"))
			if lk.flat != nil && strings.Contains(item, "`old flat ledger:`") {
				q += "and the old flat ledger reads:\n" + strings.Join(lk.flat, "\n") + "\n"
			}
			qs = append(qs, q+"Do they implement tasks of this plan? Which count as done, and which should be reviewed?")
		case strings.Contains(item, "`moved?:`"):
			for _, m := range lk.moved {
				qs = append(qs, fmt.Sprintf("%s belongs to %s, which no longer exists: did %s move from there?", m.dir, m.plan, c.sc.Plan))
			}
		case strings.Contains(item, "`side?:`"):
			if lk.side != "" {
				qs = append(qs, lk.side+" need nothing of each other: how many tasks may run at a time (3 suggested; 1 keeps one at a time)?")
			}
		default:
			c.fail("Before Task 1 asks the human %q, which the follower cannot ask", item)
		}
	}
	h := c.sc.Human
	if len(qs) > 0 && !h.Answered {
		if !atOnce {
			qs = qs[:1] // one question a turn
		}
		c.say("Before Task 1:\n" + strings.Join(qs, "\n"))
	}
	if h.Moved {
		if len(lk.moved) == 0 {
			c.fail("the human says the plan moved, and Look named no workspace of a gone plan")
		}
		return c.rareBlock("Carry over", c.v.With("<old workspace>", lk.moved[0].dir)), nil, false
	}
	answers = c.answers(h.Done, h.Review)
	if h.Side > 0 {
		if lk.side == "" {
			c.fail("the human answered how many tasks at a time, and Look printed no side?: line")
		}
		answers = append(answers, c.rareBlock("At a time", c.v.With("<K>", strconv.Itoa(h.Side))))
	}
	return "", answers, false
}

// answers are the steps of the human's answers about commits since the
// start branch: done tasks, and the task to review.
func (c *controller) answers(done []Earlier, review *Earlier) []string {
	var out []string
	for _, e := range done {
		out = append(out, c.rareBlock("Earlier run, done", c.v.With("<N>", strconv.Itoa(e.N),
			"<first>", strconv.Itoa(e.First), "<last>", strconv.Itoa(e.Last), "<decisions>", c.decisionsOf(e.N))))
	}
	if e := review; e != nil {
		out = append(out, c.rareBlock("Earlier run, to review", c.v.With("<N>", strconv.Itoa(e.N), "<first>", strconv.Itoa(e.First))))
	}
	return out
}

func (c *controller) rareBlock(name string, v Values) string {
	c.readRare()
	return c.fill(c.rare, name, v)
}
