package follower

import (
	"regexp"
	"strconv"
	"strings"
)

// A row's Next as commands: its steps chained into one Bash call, the
// next unit's step among them ("next"), the batch or single step a Next
// offers (choose), and the values its blocks are filled with.

// chain runs a Next made of steps joined by " + " in one Bash call: named
// blocks, `<check>`, and "next" (the next unit's step, when it is a
// command). A step that is not a command block ends the chain's call and
// is done after it.
func (c *controller) chain(u *unit, next string) {
	var cmds []string
	var hasClose bool
	var checkStep bool
	var before string
	for _, part := range strings.Split(next, " + ") {
		part = strings.TrimSpace(part)
		switch {
		case part == "next":
			if s := c.nextStep(u, hasClose); s != "" {
				cmds = append(cmds, s)
			}
			continue
		case part == "`<check>`":
			task, err := c.sc.task(atoiOr(u.n))
			if err != nil || task.Test == "" {
				c.fail("%s: the row asks for <check> and the plan gives no test command", u.name)
			}
			cmds = append(cmds, c.inWorktree(u, task.Test))
			checkStep = true
			continue
		}
		if strings.Contains(part, "](#before-task-1)") {
			// The section's questions come first; the answers join the
			// call that starts the run.
			before = "Before Task 1"
		}
		if strings.Contains(part, "(rare.md#answers)") && !strings.Contains(part, "**") {
			// The human's answers about the branch's commits, each its
			// step, join the call.
			if h := c.sc.Human.Restart; h != nil {
				cmds = append(cmds, c.answers(h.Done, h.Review)...)
			}
			continue
		}
		part = c.choose(u, part) // a link of the step not taken is not followed
		if strings.Contains(part, "(rare.md") {
			c.readRare()
		}
		names := boldNameRe.FindAllStringSubmatch(part, -1)
		if len(names) == 0 {
			c.fail("row Next %q: a step %q that names no block", next, part)
		}
		for _, m := range names {
			name := m[1]
			text, b, ok := c.anyBlock(name)
			if !ok || b.Lang != "sh" {
				c.fail("row Next %q: %q is no command block", next, name)
			}
			what := ""
			if h := c.sc.Human.Restart; h != nil {
				what = h.What
			}
			v := c.v.With("<what happened>", what)
			if u != nil {
				v = c.values(u).With("<decisions>", c.decisions(u), "<what changed>", c.sc.Human.GoOn, "<what happened>", what)
				if b := c.batchFor(u); b != nil {
					v["<last>"] = b[len(b)-1]
				}
			}
			if before != "" && name == "Start the run" {
				// The human's answers join the call that starts the run.
				pre, answers, stop := c.beforeTask1()
				if stop {
					return
				}
				if pre != "" {
					c.command(pre)
					c.lookAgain()
					return
				}
				cmds = append(cmds, c.fill(text, name, v))
				if len(answers) > 0 {
					cmds = append(cmds, answers...)
					c.command(strings.Join(cmds, c.joiner()))
					if c.sc.Human.Side > 0 && strings.Contains(c.sideText(), "in the call that starts the run (then run Look)") {
						c.lookAgain()
					}
					return // the next step is the row the commands printed
				}
				continue
			}
			cmds = append(cmds, c.fill(text, name, v))
			hasClose = hasClose || name == "Close"
		}
	}
	if checkStep && c.checkAlone(u) {
		r := c.t.Bash(cmds[0])
		c.backToTop()
		if r.IsError {
			c.checkFailed(u, cmds[0])
			return
		}
		c.runChain(cmds[1:])
		return
	}
	command := strings.Join(cmds, c.joiner())
	if checkStep {
		r := c.t.Bash(command)
		if r.IsError && !strings.Contains(r.Text, "recorded ") {
			// The check failed before any command of the call ran: the
			// text says what follows.
			c.checkFailed(u, cmds[0])
			return
		}
		if r.IsError {
			c.fail("a Bash call failed:\n%s\n--- it printed:\n%s", command, r.Text)
		}
		c.absorb(r.Text)
		return
	}
	c.runChain(cmds)
}

// runChain runs commands joined in one Bash call. Finish is the run's
// last step: what it printed goes to the human in the last message. The
// commands are in the host's form, so Finish's start is too.
func (c *controller) runChain(cmds []string) {
	if c.collect != nil && len(cmds) > 0 && !c.isFinish(cmds[len(cmds)-1]) {
		*c.collect = append(*c.collect, cmds...)
		return
	}
	command := strings.Join(cmds, c.joiner())
	if len(cmds) > 0 && c.isFinish(cmds[len(cmds)-1]) {
		out := c.bash(command)
		last := "Done: every task of " + c.sc.Plan + " is complete and reviewed; the branch goes to the branch-finishing workflow."
		if strings.Contains(strings.Join(strings.Fields(c.skill.Body), " "), "Give the human what it printed in your last message") {
			last += "\n" + out
		}
		c.say(last)
	}
	c.command(command)
}

// isFinish says whether cmd is Finish, the run's last step.
func (c *controller) isFinish(cmd string) bool {
	finish := c.skill.Blocks["Finish"]
	return strings.HasPrefix(ByName(cmd), strings.TrimRight(strings.SplitN(finish.Body, "<", 2)[0], " "))
}

// absorb takes in output already printed.
func (c *controller) absorb(out string) {
	o, err := parseOutput(out)
	if err != nil {
		c.fail("%v", err)
	}
	c.absorbOutput(o, out)
}

// nextStep is "next": the step of the unit that comes next, when it is a
// command. After Close the unit itself is complete, which for the final
// review is its own next row.
func (c *controller) nextStep(u *unit, closed bool) string {
	if c.look.sideK > 1 && c.sideNoNext() {
		return ""
	}
	if u == nil {
		if len(c.units) == 0 {
			c.fail("\"next\" with no unit to go on with (Look printed none)")
		}
		u = c.units[0]
	} else if !u.task() && closed {
		done := &unit{name: u.name, n: u.n, facts: map[string]string{}}
		for k, v := range u.facts {
			done.facts[k] = v
		}
		done.facts["last"] = "complete"
		return c.commandOf(done)
	} else {
		i := 0
		for i < len(c.units) && c.units[i] != u {
			i++
		}
		if i+1 >= len(c.units) {
			return ""
		}
		u = c.units[i+1]
	}
	for k := 0; k < len(c.units); k++ {
		r := c.rowOf(u)
		if !isNextUnit(r.next) {
			break
		}
		u = c.following(u)
		if u == nil {
			return ""
		}
	}
	return c.commandOf(u)
}

func (c *controller) following(u *unit) *unit {
	for i, x := range c.units {
		if x == u && i+1 < len(c.units) {
			return c.units[i+1]
		}
	}
	return nil
}

// commandOf is u's row's step when it is one command block.
func (c *controller) commandOf(u *unit) string {
	r := c.pick(factsOf(u))
	next := c.choose(u, r.next)
	if strings.Contains(next, "(rare.md") {
		c.readRare()
	}
	m := boldNameRe.FindAllStringSubmatch(next, -1)
	if len(m) != 1 || strings.Contains(next, "+") {
		return ""
	}
	text, b, ok := c.anyBlock(m[0][1])
	if !ok || b.Lang != "sh" {
		return ""
	}
	v := c.values(u)
	if b := c.batchFor(u); b != nil {
		v["<last>"] = b[len(b)-1]
	}
	return c.fill(text, m[0][1], v)
}

// batchAltRe is a Next of two steps, the second where Look proposes a
// batch from the unit: "**Start task N**, or **Start a batch** where …".
var batchAltRe = regexp.MustCompile(`^(.+?), or (\[?\*\*[^*]+\*\*(?:\]\([^)]*\))?) where Look's ` + "`batch\\?:`" + ` line begins at it$`)

// choose takes, of a Next that offers a batch, the step the controller
// decides on: the batch when Look proposes one from u that the controller
// finds fit (batchFor), else the single step.
func (c *controller) choose(u *unit, next string) string {
	m := batchAltRe.FindStringSubmatch(strings.TrimSpace(next))
	if m == nil {
		return next
	}
	if c.batchFor(u) != nil {
		return m[2]
	}
	return m[1]
}

// batchFor is the batch the controller takes from u: the tasks of Look's
// batch?: line that begins at u, up to the first that rare.md's Batches
// keeps out of a batch (batchExcludes), when two or more remain; nil
// otherwise. A proposal that begins at u has rare.md read, which says how.
func (c *controller) batchFor(u *unit) []string {
	if u == nil || !u.task() || c.look.sideK > 1 && strings.Contains(c.sideText(), "**Start task N** (never a batch)") {
		return nil
	}
	for _, b := range c.look.batches {
		if len(b) == 0 || b[0] != u.n {
			continue
		}
		excluded := c.batchExcludes()
		var take []string
		for _, n := range b {
			t, err := c.sc.task(atoiOr(n))
			if err != nil || excluded(t) {
				break
			}
			take = append(take, n)
		}
		if len(take) >= 2 {
			return take
		}
	}
	return nil
}

// decisions is <decisions> for u: the scenario's decisions for its task.
func (c *controller) decisions(u *unit) string {
	if u == nil || !u.task() {
		return ""
	}
	return c.decisionsOf(atoiOr(u.n))
}

// decisionsOf is <decisions> for task n: what the plan's text of it
// defines that later tasks build on (the scenario's Settled).
func (c *controller) decisionsOf(n int) string {
	t, err := c.sc.task(n)
	if err != nil {
		return ""
	}
	return c.quoteDecisions(t.Settled)
}

func atoiOr(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}

// planPath is the plan's absolute path, for the Read tool: the
// repository's top (the session's directory) is where the workspace path
// begins.
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
