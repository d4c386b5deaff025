package follower

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// This file is the text's rules that are sentences, not tables: the
// follower reads each rule's variable part from the sentence that states
// it, so a text that changes the rule changes what the run does, and a
// text that drops it stops the run.

// rowRuleRe is the sentence that says which row of the state table a unit
// takes: the first or the last that fits, read top down or bottom up.
var rowRuleRe = regexp.MustCompile("Take the (first|last) row, (top down|bottom up), whose conditions all hold")

// rowsInTextOrder are the state table's rows in the order the text's
// rule says to try them: the first one that fits is the unit's.
func (c *controller) rowsInTextOrder() []stateRow {
	m := rowRuleRe.FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil {
		c.fail("SKILL.md does not say which row of the state table to take (\"Take the first row, top down, whose conditions all hold\")")
	}
	rows := c.table()
	if (m[1] == "last") != (m[2] == "bottom up") {
		slices.Reverse(rows) // the first from the bottom, or the last from the top
	}
	return rows
}

// joinRuleRe is the sentence that says how the commands of one call are
// joined where a Next says `+`.
var joinRuleRe = regexp.MustCompile("Where a Next says `\\+`, join the steps' commands with `([^`]+)` in one call")

// joiner is what the text joins one call's commands with, spaces
// included.
func (c *controller) joiner() string {
	m := joinRuleRe.FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil {
		c.fail("SKILL.md does not say how the steps of one call are joined (\"Where a Next says `+`, join the steps' commands with ` && ` in one call\")")
	}
	return " " + strings.TrimSpace(m[1]) + " "
}

// minorsDeferredRe is the sentence that keeps Minor findings out of the
// fix loop.
var minorsDeferredRe = regexp.MustCompile("Minor findings never enter the fix loop")

// statusRe finds what the text says an implementer's status leads to:
// the status in backticks and, in parentheses after it (a link's among
// them), its rule.
func statusRe(status string) *regexp.Regexp {
	return regexp.MustCompile("`" + regexp.QuoteMeta(status) + "` \\(((?:[^()]|\\([^()]*\\))*)\\)")
}

// namesStatus says whether the text names status as an answer.
func namesStatus(body, status string) bool {
	return status == "DONE" || statusRe(status).MatchString(oneLine(body))
}

// statusNext is what an implementer's answer other than DONE leads to,
// as the text's rule for it says.
type statusNext struct {
	goOn     bool // the work stands: the row that fits takes it on (the review)
	stronger bool // dispatched again one tier up
	record   bool // the status is recorded first (the rule links rare.md's Stuck)
}

// onStatus reads the text's rule for an implementer's status: "dispatch
// again" (with the controller's answer), "change something" (the answer,
// and a stronger model where the rule offers one), "before the review"
// (the doubt settled, the work goes on to it), "the human" (stop and
// ask). The controller's answer is what the plan says (context); an
// implementer that asks what the plan does not say goes to the human.
func (c *controller) onStatus(u *unit, status, reply, context string) statusNext {
	m := statusRe(status).FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil {
		c.fail("%s: the implementer answered %s and the text does not say what that leads to", u.name, status)
	}
	rule := m[1]
	r, _ := parseReply(reply)
	notes, _ := r.get("Notes")
	switch {
	case strings.Contains(rule, "dispatch again") || strings.Contains(rule, "change something"):
		if context == "" {
			break
		}
		return statusNext{stronger: strings.Contains(rule, "a stronger model"), record: strings.Contains(rule, "(rare.md#stuck)")}
	case strings.Contains(rule, "before the review"):
		return statusNext{goOn: true}
	case !strings.Contains(rule, "the human"):
		c.fail("%s: the text's rule for %s, %q, names no step", u.name, status, rule)
	}
	c.say(fmt.Sprintf("Stopping at %s: its implementer answered %s (%s); the plan does not settle it. What should it do?", u.name, status, notes))
	return statusNext{}
}

// tiersTo is how many tiers above model the host file's tiers put to (0
// where to is no model above it).
func (c *controller) tiersTo(model, to string) int {
	order, models := c.tiers()
	from := -1
	for i, t := range order {
		if models[t] == model {
			from = i
		}
		if models[t] == to && from >= 0 {
			return i - from
		}
	}
	return 0
}

// tierUp is the model up tiers above model, in the host file's tiers;
// model itself where the host names no models. Above the most capable
// there is nothing to change to: the human decides.
func (c *controller) tierUp(model string, up int) string {
	order, models := c.tiers()
	if up == 0 || len(order) == 0 {
		return model
	}
	for i, t := range order {
		if models[t] == model {
			if i+up >= len(order) {
				c.say(fmt.Sprintf("Stopping: no model stronger than %s is left; what should change?", model))
			}
			return models[order[i+up]]
		}
	}
	c.fail("the model %q is no tier of the host's file", model)
	return ""
}

var codeSpanRe = regexp.MustCompile("`([^`]+)`")

// afterRe is a value's alternative in a Placeholder cell: "(`none` after
// `report: none`)", the value where the unit's lines hold that line.
var afterRe = regexp.MustCompile("\\(`([^`]+)` after `([^`]+)`\\)")

// tableValue reads a placeholder's value for u from the Placeholder
// table: the first code span of its Value cell before "final: " is a
// task's, the first after it the final review's, filled with the values
// known. ok is false where that part of the cell holds no code span (a
// value the controller knows otherwise: "the task number").
func (c *controller) tableValue(name string, u *unit, known Values) (value string, ok bool) {
	for _, r := range c.skill.TableWith("Placeholder") {
		if len(r) != 2 || !slices.Contains(strings.Split(r[0], ", "), "`"+name+"`") {
			continue
		}
		task, final, _ := strings.Cut(r[1], "final: ")
		part := task
		if !u.task() {
			part = final
		}
		m := codeSpanRe.FindStringSubmatch(part)
		if m == nil {
			return "", false
		}
		// "(`none` after `report: none`)": another value where the unit's
		// lines hold that one.
		if alt := afterRe.FindStringSubmatch(part); alt != nil && slices.Contains(u.details, alt[2]) {
			return alt[1], true
		}
		var missing []string
		value = PlaceholderRe.ReplaceAllStringFunc(m[1], func(p string) string {
			x, ok := known[p]
			if !ok {
				missing = append(missing, p)
			}
			return x
		})
		if len(missing) > 0 {
			c.fail("the Placeholder table's value of %s, %q, needs %s, which nothing gives", name, m[1], strings.Join(missing, " "))
		}
		return value, true
	}
	c.fail("the Placeholder table has no row for %s", name)
	return "", false
}

// checkFailsRe is the text's rule for a `<check>` that fails: in the
// paragraph that says what `<check>` runs, the sentence "If it fails, …"
// and the steps it names (bold), or a stop.
var checkFailsRe = regexp.MustCompile("^`<check>` runs .*?If it fails, (.*)$")

// checkFailed does what the text says follows a `<check>` that failed:
// the steps its rule names, in one call, "<what failed, one line>" being
// the check's command; or a stop for the human.
func (c *controller) checkFailed(u *unit, check string) {
	var rule string
	for _, para := range strings.Split(c.skill.Body, "\n\n") {
		if m := checkFailsRe.FindStringSubmatch(oneLine(para)); m != nil {
			rule = m[1]
		}
	}
	if rule == "" {
		c.fail("%s: the check %q failed, and the text does not say what follows a failed `<check>` (\"If it fails, …\")", u.name, check)
	}
	if strings.HasPrefix(rule, "stop") {
		c.say(fmt.Sprintf("Stopping at %s: the check %s failed; %s", u.name, check, rule))
	}
	names := boldNameRe.FindAllStringSubmatch(rule, -1)
	if len(names) == 0 {
		c.fail("%s: the text's rule for a failed check, %q, names no step", u.name, rule)
	}
	v := c.values(u).With("<what failed, one line>", check+" fails", "<decisions>", c.decisions(u))
	var cmds []string
	for _, m := range names {
		text, b, ok := c.anyBlock(m[1])
		if !ok || b.Lang != "sh" {
			c.fail("the text's rule for a failed check names %q, which is no command block", m[1])
		}
		cmds = append(cmds, c.fill(text, m[1], v))
	}
	c.runChain(cmds)
}

// batchRuleRe is rare.md's rule for the tasks of a proposed batch: "if
// none <needs judgment, …>, give them to one implementer as a batch".
var batchRuleRe = regexp.MustCompile(`if none (.+?), give them to one implementer as a batch`)

// batchExcludes reads rare.md's Batches: what keeps a task out of a
// batch, each of its conditions a judgment of the task the scenario
// holds (Judgment; Settled, what later tasks use; Question).
func (c *controller) batchExcludes() func(Task) bool {
	c.readRare()
	m := batchRuleRe.FindStringSubmatch(oneLine(c.rare.Section("Batches")))
	if m == nil {
		c.fail("rare.md's Batches does not say which tasks a batch takes (\"if none …, give them to one implementer as a batch\")")
	}
	var tests []func(Task) bool
	for _, cond := range regexp.MustCompile(`,? or |, `).Split(m[1], -1) {
		switch {
		case strings.Contains(cond, "judgment"):
			tests = append(tests, func(t Task) bool { return t.Judgment })
		case strings.Contains(cond, "later tasks use"):
			tests = append(tests, func(t Task) bool { return len(t.Settled) > 0 })
		case strings.Contains(cond, "question for the human"):
			tests = append(tests, func(t Task) bool { return t.Question })
		default:
			c.fail("rare.md's Batches keeps out of a batch a task that %s, which the follower cannot judge", cond)
		}
	}
	return func(t Task) bool {
		for _, test := range tests {
			if test(t) {
				return true
			}
		}
		return false
	}
}

// lostRe is the text's rule for a dispatch whose answer a compaction cut
// off: "A dispatch whose answer you lost to <what> is <rule>."
var lostRe = regexp.MustCompile(`A dispatch whose answer you lost to (.+?) is (.+?)\.(?: |$)`)

// lostPrompts are the prompt each role is dispatched with.
var lostPrompts = map[Role]string{RoleImplementer: "Implementer prompt", RoleFix: "Fix prompt", RoleReviewer: "Reviewer prompt",
	RoleReReviewer: "Re-reviewer prompt", RoleFinal: "Final reviewer prompt"}

// lostDispatch does what the text says of the dispatch the scenario's
// compaction cut off (Scenario.Lost), Look having run: take Look's row
// (nothing more to do here), dispatch it again, or wait for an answer,
// which never comes. Without the rule, Look's row is the step, as the
// text has Look run after a compaction.
func (c *controller) lostDispatch() {
	m := lostRe.FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil || !strings.Contains(m[1], "compaction") {
		return
	}
	switch rule := m[2]; {
	case strings.Contains(rule, "take Look's row"):
	case strings.Contains(rule, "dispatch it again"):
		i := strings.LastIndex(c.sc.Lost, " ")
		role, n := Role(c.sc.Lost[:i]), c.sc.Lost[i+1:]
		prompt, ok := lostPrompts[role]
		if !ok {
			c.fail("the lost dispatch %q is of no role the follower knows", c.sc.Lost)
		}
		name := "Task " + n
		if n == "0" {
			name = "Final"
		}
		u := c.unit(name)
		c.dispatch(u, "the **"+prompt+"**, round `round`+1")
	case strings.Contains(rule, "wait"):
		c.fail("the text says of a dispatch whose answer a compaction cut off %q: no answer comes to wait for", rule)
	default:
		c.fail("the text says of a dispatch whose answer a compaction cut off %q, which the follower cannot do", rule)
	}
}

// askRe is Before Task 1's sentence of the questions: "ask the human
// <how>: <question>; <question>; and <question>."
var askRe = regexp.MustCompile(`ask the human (.+?): (.+?)\.(?: |$)`)

// beforeQuestions reads the questions Before Task 1 asks the human, in
// its order, and whether they are asked at once (one turn) or a turn
// each.
func (c *controller) beforeQuestions() (atOnce bool, items []string) {
	var para string
	for _, p := range strings.Split(c.skill.Body, "\n\n") {
		if strings.HasPrefix(p, "**Before Task 1**") {
			para = oneLine(p)
		}
	}
	m := askRe.FindStringSubmatch(para)
	if m == nil {
		c.fail("SKILL.md's Before Task 1 does not say what to ask the human (\"ask the human …: …\")")
	}
	for _, item := range strings.Split(m[2], "; ") {
		items = append(items, strings.TrimPrefix(item, "and "))
	}
	return strings.Contains(m[1], "at once"), items
}

// yesRe is the text's rule on the branches a run needs the human's yes
// to work on: "`main` or `master` needs the human's yes".
var yesRe = regexp.MustCompile("((?:`[^`]+`(?:, | or )?)+) needs? the human's yes")

// yesBranches are the branches the text says need the human's yes.
func (c *controller) yesBranches() []string {
	m := yesRe.FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil {
		return nil
	}
	var out []string
	for _, b := range codeSpanRe.FindAllStringSubmatch(m[1], -1) {
		out = append(out, b[1])
	}
	return out
}

// waysOnLinkRe is a stop's link to the section that gives the human the
// ways on: "[the ways on](rare.md#history)".
var waysOnLinkRe = regexp.MustCompile(`\]\(rare\.md#([a-z-]+)\)`)

var shaRe = regexp.MustCompile(`\b[0-9a-f]{40}\b`)

// waysOn are the ways on a stop's Next links (rare.md's History): the
// items of the section's list, each one line, its placeholders filled
// (<the newest sha named>: the last sha Look's lines name, as the ledger
// recorded them in order; <start branch>).
func (c *controller) waysOn(stop string) string {
	m := waysOnLinkRe.FindStringSubmatch(stop)
	if m == nil {
		return "Tell me how to go on."
	}
	c.readRare()
	var section string
	for _, l := range strings.Split(c.rare.Body, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok && strings.ReplaceAll(strings.ToLower(h), " ", "-") == m[1] {
			section = c.rare.Section(h)
		}
	}
	if section == "" {
		c.fail("the stop links rare.md#%s, which has no such section", m[1])
	}
	newest := ""
	for _, x := range c.units {
		for _, l := range x.shas {
			if s := shaRe.FindAllString(l, -1); len(s) > 0 {
				newest = s[len(s)-1]
			}
		}
	}
	var items []string
	for _, l := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(l, "- "):
			items = append(items, strings.TrimPrefix(l, "- "))
		case len(items) > 0 && strings.HasPrefix(l, "  "):
			items[len(items)-1] += " " + strings.TrimSpace(l)
		}
	}
	if len(items) == 0 {
		c.fail("rare.md's History gives the human no ways on (a list)")
	}
	fill := strings.NewReplacer("<the newest sha named>", newest, "<start branch>", c.sc.startBranch())
	var b strings.Builder
	b.WriteString("The ways on:")
	for _, it := range items {
		b.WriteString("\n- " + fill.Replace(it))
	}
	return b.String()
}
