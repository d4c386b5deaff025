package follower

import (
	"strings"
)

// Side by side (rare.md): a round over the units Look's next: names,
// and what the text says of worktrees, joins and dispatches at once.

// sideRound is a round of a run side by side: the row of each unit
// Look's next: names. Where rare.md joins a round's steps (sideJoined),
// their dispatches go first (in one message where the host can,
// dispatchTogether), then every command step of theirs in one call
// ended with Look; else each unit's step alone, then Look again.
func (c *controller) sideRound() {
	var names []string
	for _, part := range strings.Split(c.look.next, ", ") {
		if name, _, ok := strings.Cut(part, " row="); ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		c.fail("Look's next: names no unit: %q", c.look.next)
	}
	if !c.sideJoined() {
		for _, name := range names {
			u := c.unit(name)
			if r := c.rowOf(u); !isNextUnit(r.next) {
				c.do(r, u)
			}
		}
		c.looks = 0 // each round is progress: its Look is no circle
		c.lookAgain()
		return
	}
	// Their dispatches first; then every command step of theirs in one
	// call, ended with Look.
	var cmds []string
	c.collect = &cmds
	defer func() { c.collect = nil }()
	acted := map[*unit]bool{}
	if om, ok := c.t.(OneMessage); ok && c.atOnce() {
		c.dispatchTogether(om, names)
	}
	for _, name := range names {
		u := c.unit(name)
		if r := c.rowOf(u); !isNextUnit(r.next) && !c.isCommandRow(r) {
			n := len(cmds)
			c.do(r, u)
			acted[u] = len(cmds) > n // its "then" step is in the call
		}
	}
	for _, name := range names {
		u := c.unit(name)
		if r := c.rowOf(u); !acted[u] && !isNextUnit(r.next) && c.isCommandRow(r) {
			c.do(r, u)
		}
	}
	c.collect = nil
	c.looks = 0 // each round is progress: its Look is no circle
	if len(cmds) == 0 {
		c.lookAgain()
		return
	}
	c.looks++
	command := strings.Join(append(cmds, c.block("Look", c.v)), c.joiner())
	if c.cdBack != "" {
		command, c.cdBack = c.cdBack+" && "+command, ""
	}
	r := c.t.Bash(command)
	if r.IsError && c.exitFive(r.Text) {
		// A step that does not fit (a join that conflicted, a task that
		// left its worktree): its lines are in; SKILL.md says run Look.
		c.absorb(strings.TrimPrefix(r.Text, "Exit code 5\n"))
		c.lookAgain()
		return
	}
	if r.IsError {
		c.fail("a Bash call failed:\n%s\n--- it printed:\n%s", command, r.Text)
	}
	out := r.Text
	c.absorb(out)
	// Look's part: from its first line on, after the commands' lines.
	if i := strings.LastIndex(out, "\nworkspace: "); i >= 0 {
		out = out[i+1:]
	}
	c.lookFrom(out)
}

// dispatchTogether sends the first dispatch of each unit whose row is a
// prompt in one message, as a model sends several tool calls at once:
// each unit's step is taken once to learn its dispatch (stopped there,
// nothing done), the dispatches go together, and each unit's step is
// then taken for real, its dispatch answered by what came back.
func (c *controller) dispatchTogether(om OneMessage, names []string) {
	var calls []AgentCall
	for _, name := range names {
		u := c.unit(name)
		r := c.rowOf(u)
		if isNextUnit(r.next) || !c.isPrompt(r.next) {
			continue
		}
		if call, ok := c.firstDispatch(r, u); ok {
			calls = append(calls, call)
		}
	}
	if len(calls) < 2 {
		return
	}
	answers := map[string]AgentResult{}
	for i, res := range om.Agents(calls) {
		answers[calls[i].Prompt] = res
	}
	c.together = answers
}

// firstDispatch takes u's row's step up to its first dispatch and
// returns that dispatch, undone; ok is false for a step that calls
// another tool first.
func (c *controller) firstDispatch(r stateRow, u *unit) (call AgentCall, ok bool) {
	real := c.t
	c.t = recorder{real}
	defer func() {
		c.t = real
		switch x := recover().(type) {
		case nil:
		case recordedCall:
			call, ok = x.call, true
		case notRecorded:
		default:
			panic(x)
		}
	}()
	c.do(r, u)
	return AgentCall{}, false
}

// recorder stops a step at its first dispatch (recordedCall), or at any
// other tool call (notRecorded).
type recorder struct{ Tools }

type (
	recordedCall struct{ call AgentCall }
	notRecorded  struct{}
)

func (recorder) Agent(c AgentCall) AgentResult { panic(recordedCall{c}) }
func (recorder) Bash(string) Result            { panic(notRecorded{}) }
func (recorder) Read(string, int, int) Result  { panic(notRecorded{}) }
func (recorder) Write(string, string) Result   { panic(notRecorded{}) }
func (recorder) Skill(string) Result           { panic(notRecorded{}) }
func (recorder) Say(string)                    { panic(notRecorded{}) }

// atOnce says whether the host's file has a side by side row (how its
// dispatches run at once), and rare.md says to send them so.
func (c *controller) atOnce() bool {
	for _, r := range c.host.TableWith("Need") {
		if len(r) == 2 && r[0] == "side by side" && strings.Contains(r[1], "at once") {
			return strings.Contains(c.sideText(), "Send the dispatches of several units together as your host's file says (its `side by side` row")
		}
	}
	return false
}

// exitFive says whether a call's failure is sdd-ledger's exit 5, for
// which SKILL.md says to run Look and take its row.
func (c *controller) exitFive(out string) bool {
	return strings.HasPrefix(out, "Exit code 5\n") && strings.Contains(oneLine(c.skill.Body), "5: the step does not fit the ledger (run **Look** and take its row)")
}

// sideJoined says whether, side by side, a round's command steps go in
// one call ended with Look, as rare.md says.
func (c *controller) sideJoined() bool {
	return strings.Contains(c.sideText(), "then every command step of theirs in one call, joined with ` && ` and ended with **Look**")
}

// isCommandRow says whether a row's Next is commands only: no prompt, no
// stop, no rare move.
func (c *controller) isCommandRow(r stateRow) bool {
	next := r.next
	return !strings.HasPrefix(next, "stop") && !strings.HasPrefix(next, "as `") && !strings.Contains(next, "(rare.md#breaker)") && !c.isPrompt(next)
}

// sideText is rare.md's section on tasks side by side, its blanks folded.
func (c *controller) sideText() string {
	c.readRare()
	return strings.Join(strings.Fields(c.rare.Section("Side by side")), " ")
}

// sideNoNext says whether, side by side, a Next's "+ next" is left out.
func (c *controller) sideNoNext() bool {
	return strings.Contains(c.sideText(), "leaving out `+ next`")
}

// inWorktree is cmd as a task side by side runs it: in its worktree,
// where rare.md says so.
func (c *controller) inWorktree(u *unit, cmd string) string {
	wt := u.worktree()
	if wt == "" || !strings.Contains(c.sideText(), "`cd '<path>' && <check>`") || c.joinedHere(u) {
		return cmd
	}
	return "cd " + shellQuote(wt) + " && " + cmd
}

// joinedHere says whether u's check is of the merge its Close made, run
// where the controller is (rare.md).
func (c *controller) joinedHere(u *unit) bool {
	return c.rowOf(u).name == "joined" && strings.Contains(c.sideText(), "at row `joined`, the merge its Close made, it runs where you are")
}

// backToTop has the call after a check in a worktree begin with a cd
// back to the repository's top, as rare.md says (a shell may stay where
// a cd left it).
func (c *controller) backToTop() {
	if !strings.Contains(c.sideText(), "the call after it begins with `cd '<top>' && `, `<top>` being Look's `workspace:` up to `/.superpowers`") {
		return
	}
	top, _, _ := strings.Cut(c.v["<workspace>"], "/.superpowers")
	c.cdBack = "cd " + shellQuote(top)
}

// checkAlone says whether a unit's check is a call of its own (a task
// side by side: its cd would hold for the commands after it).
func (c *controller) checkAlone(u *unit) bool {
	return u.worktree() != "" && !c.joinedHere(u) && strings.Contains(c.sideText(), "`<check>` is a call of its own")
}

// workIn is the line a task side by side's implementer and fix prompts
// end with, where rare.md says so; "" for any other unit.
func (c *controller) workIn(u *unit) string {
	wt := u.worktree()
	if wt == "" || !strings.Contains(c.sideText(), "end with one more line, `Work in: <path>`") {
		return ""
	}
	return "Work in: " + wt + "\n"
}

// worktree is the unit's own checkout, as its worktree: line names it; ""
// for a unit on the feature branch.
func (u *unit) worktree() string {
	v, ok := u.detail("worktree:")
	if !ok {
		return ""
	}
	path, _, _ := strings.Cut(v, " (branch ")
	return path
}
