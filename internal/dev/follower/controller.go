package follower

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/ledger"
)

// stopped unwinds a script once it has said its last words.
type stopped string

// Controller is the controller's script for one turn of the conversation.
// It reads the skill, runs Look, reads the plan, and from then on does
// what SKILL.md's state table says: for each unit (each task in plan
// order, then the final review) it takes the first row whose conditions
// hold for the unit's facts and does the row's Next, until a row says to
// stop or the run is finished. Every decision is the text's: which row
// fits (the table's conditions, in the order its rule sentence gives:
// rules.go), how a call's steps join, what an implementer's status leads
// to, whether a Minor finding loops, what a row does (its Next:
// the named blocks and prompts), which model and tool a dispatch gets (the
// dispatch table and the tiers), how the breaker rules (rare.md's table).
// The facts come from the commands' output, and after a subagent's answer
// from the answer, as SKILL.md says; where a command names a row, the
// follower's own reading of the table must name the same one.
//
// Its last call is Say, which ends the turn; its return value is the same
// words (FailPrefix… on a failure). A turn is one Controller: when the
// human answers a question, the next turn is a new Controller(sc) with the
// answers in sc.Human. The script unwinds itself after Say with a panic it
// recovers; any other panic (a host stopping a replayed script) passes.
func Controller(sc Scenario) Script {
	return func(t Tools) (last string) {
		c := &controller{t: t, sc: sc}
		defer unwound(func(s stopped) { last = string(s) })
		c.run()
		return c.fail("the run ended without last words")
	}
}

// unit is what the controller knows of one unit: its facts and the
// values its steps need.
type unit struct {
	name  string // "Task 2", "Final"
	n     string // "2", or "final"
	facts map[string]string
	named string // the row the last command named for it; "" after an answer

	details       []string     // the lines under its state line, as the last command or Look printed them
	dispatches    []dispatched // this turn's dispatches for it, in order
	unblocked     string       // Look's unblocked: line, the change the next dispatch carries
	review        string       // the newest review path, as <review>'s cell takes it
	notVerifiable string
	open          []finding
	shas          []string // Look's "shas:" and "plan:" lines: why the record no longer holds
}

// dispatched is a dispatch of this turn and the id it returned; kind is
// the dispatch table's name of it (implementer, fix, reviewer, …).
type dispatched struct{ kind, id string }

func (u *unit) task() bool { return u.n != "final" }

// controller is one turn's locals.
type controller struct {
	t     Tools
	sc    Scenario
	skill Skill
	host  *Text // the host's file, host-<name>.md, read before the first command
	rare  *Text // rare.md, once read
	v     Values

	ledger, ledgerRow string // Look's ledger state and row
	look              output
	units             []*unit
	pkg, bytes        string   // the last package a command wrote
	settled           []string // the settled: lines of the last Start task N
	planRead          bool
	looks             int
	collect           *[]string              // side by side: a round's command steps, gathered for one call
	cdBack            string                 // side by side: what the next call begins with after a check in a worktree
	together          map[string]AgentResult // side by side: dispatches sent together, answered, by prompt
	steps             int
}

// maxSteps bounds a turn: the longest scenario takes about 40.
const maxSteps = 150

func (c *controller) say(text string) string {
	c.t.Say(text)
	panic(stopped(text))
}

func (c *controller) fail(format string, args ...any) string {
	return c.say(FailPrefix + fmt.Sprintf(format, args...))
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
	c.readHost()
	c.lookAgain()
	if c.sc.Lost != "" {
		c.lostDispatch()
	}
	for {
		c.step()
	}
}

// lookAgain runs Look and takes what it prints; then, as the text says,
// the plan is read once if this turn has not read it.
func (c *controller) lookAgain() {
	c.looks++
	if c.looks > 3 {
		c.fail("Look would run a fourth time in one turn")
	}
	c.lookFrom(c.bash(c.block("Look", c.v)))
}

// lookFrom takes what Look printed (at the end of out, after any
// commands' lines before it in the same call).
func (c *controller) lookFrom(out string) {
	o, err := parseOutput(out)
	if err != nil || o.ledger == "" {
		c.fail("Look printed no ledger state (%v):\n%s", err, out)
	}
	c.look = o
	c.settled = o.settled // what Look prints for an implementer to dispatch
	c.v["<workspace>"] = c.workspace(out)
	c.ledger, c.ledgerRow = o.ledger, o.ledgerRow
	was := c.units
	c.units = nil
	for _, ul := range o.units {
		u := &unit{name: ul.name, n: strings.TrimPrefix(ul.name, "Task ")}
		if c.ownValues() {
			// This turn's dispatches of each unit stay its own.
			for _, w := range was {
				if w.name == u.name {
					u.dispatches = w.dispatches
				}
			}
		}
		if ul.name == "Final" {
			u.n = "final"
		}
		c.take(u, ul)
		c.units = append(c.units, u)
	}
	if len(c.units) == 0 && c.ledger != "other" {
		c.fail("Look printed no unit:\n%s", out)
	}
	if !c.planRead && c.ledger != "other" {
		if r := c.t.Read(c.planPath(), 0, 0); r.IsError {
			c.fail("reading the plan: %s", r.Text)
		}
		c.planRead = true
	}
}

// take updates u from a state line a command printed.
func (c *controller) take(u *unit, ul *unitLine) {
	u.facts, u.named, u.details = ul.facts, ul.row, ul.details
	if label, _ := c.reviewLabels(); label != "" {
		if v, ok := u.detail(label); ok {
			u.review = v
		}
	}
	u.notVerifiable = ul.notVerifiable
	u.unblocked = ul.unblocked
	u.shas = ul.shas
	if len(ul.open) > 0 || ul.facts["open"] == "0" {
		u.open = ul.open
	}
	if p, b, ok := c.packageOf(u); ok {
		c.pkg, c.bytes = p, b
	}
}

// bash runs one Bash call; a failing call stops the run.
func (c *controller) bash(command string) string {
	if c.cdBack != "" {
		command, c.cdBack = c.cdBack+" && "+command, ""
	}
	r := c.t.Bash(command)
	if r.IsError {
		c.fail("a Bash call failed:\n%s\n--- it printed:\n%s", command, r.Text)
	}
	return r.Text
}

// command runs a Bash call of the text's commands and takes in what they
// printed: the units' new state lines, the package they wrote.
func (c *controller) command(command string) output {
	out := c.bash(command)
	o, err := parseOutput(out)
	if err != nil {
		c.fail("%v:\n%s", err, out)
	}
	c.absorbOutput(o, out)
	return o
}

// absorbOutput takes in what a call printed: the ledger's state, the
// units' state lines, the package written, the settled decisions.
func (c *controller) absorbOutput(o output, out string) {
	if o.ledger != "" {
		c.ledger, c.ledgerRow = o.ledger, o.ledgerRow
	}
	for _, ul := range o.units {
		c.take(c.unit(ul.name), ul)
	}
	if p, b, ok := c.wrotePackage(out); ok {
		c.pkg, c.bytes = p, b
	}
	if len(o.settled) > 0 || strings.Contains(out, "task-") && strings.Contains(out, "-brief.md: ") {
		c.settled = o.settled
	}
}

func (c *controller) unit(name string) *unit {
	for _, u := range c.units {
		if u.name == name {
			return u
		}
	}
	c.fail("no unit %q in Look's report", name)
	return nil
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
	if b.Lang == "sh" {
		// One command line (chains join them); an empty last placeholder
		// (<decisions>: nothing) leaves no blank behind.
		s = c.asHostRuns(strings.TrimRight(s, " \n"))
	}
	return s
}

func (c *controller) block(name string, v Values) string { return c.fill(c.skill.Text, name, v) }

// anyBlock finds a block in SKILL.md, else in rare.md once a step that
// links it has had it read.
func (c *controller) anyBlock(name string) (*Text, Block, bool) {
	if b, ok := c.skill.Blocks[name]; ok {
		return c.skill.Text, b, true
	}
	if c.rare != nil {
		if b, ok := c.rare.Blocks[name]; ok {
			return c.rare, b, true
		}
	}
	return nil, Block{}, false
}

// readRare reads rare.md once: SKILL.md links it for the breaker and the
// human's answers.
func (c *controller) readRare() {
	if c.rare != nil {
		return
	}
	r := c.t.Read(c.skill.Dir+"/rare.md", 0, 0)
	if r.IsError {
		c.fail("reading rare.md: %s", r.Text)
	}
	t, err := ParseText(FileText(r.Text))
	if err != nil {
		c.fail("rare.md: %v", err)
	}
	c.rare = t
}

// values are the placeholders of u's steps: <N>, <who>, <brief> and
// <report> as the Placeholder table gives them.
func (c *controller) values(u *unit) Values {
	v := c.v.With("<N>", u.n)
	if n, ok := c.tableValue("<N>", u, v); ok {
		v["<N>"] = n
	}
	for _, name := range []string{"<who>", "<brief>", "<report>"} {
		x, ok := c.tableValue(name, u, v)
		if !ok {
			c.fail("the Placeholder table gives %s no value", name)
		}
		v[name] = x
	}
	id, _, _ := c.agentID(u)
	v = v.With("<agent id>", id, "<open findings>", c.openFindings(u.open))
	if u.review != "" {
		v["<review>"] = u.review
	}
	if c.pkg != "" {
		v["<package>"], v["<bytes>"] = c.pkg, c.bytes
	}
	if c.ownValues() {
		if p, b, ok := c.packageOf(u); ok {
			v["<package>"], v["<bytes>"] = p, b
		}
	}
	return v
}

// ownValues says whether, side by side, a unit's values are its own
// (rare.md): its package, its dispatches' ids, whatever another unit's
// step printed last.
func (c *controller) ownValues() bool {
	return c.look.sideK > 1 && strings.Contains(c.sideText(), "A unit's `<agent id>`, `<package>` and `<bytes>` are its own")
}

func (c *controller) wsPath(name string) string { return c.v["<workspace>"] + "/" + name }

// The state table.

// stateRow is one row of SKILL.md's state table.
type stateRow struct{ name, when, next string }

func (c *controller) table() []stateRow {
	var out []stateRow
	for _, r := range c.tableOf(c.skill.Text, "SKILL.md", "state", "Row", 3) {
		out = append(out, stateRow{name: strings.Trim(r[0], "`"), when: strings.Trim(r[1], "`"), next: r[2]})
	}
	return out
}

// tableOf is the table of the text of file whose first column is first
// (what names it in a failure), each of its rows width cells: a text
// without it, or a row of another width, is one the follower cannot take.
func (c *controller) tableOf(t *Text, file, what, first string, width int) []Row {
	rows := t.TableWith(first)
	if len(rows) == 0 {
		c.fail("%s has no %s table (a table whose first column is %s)", file, what, first)
	}
	for _, r := range rows {
		if len(r) != width {
			c.fail("a row of the %s table without %d cells: %q", what, width, r)
		}
	}
	return rows
}

// pick is the row the text's rule takes among those whose conditions all
// hold for facts; rows about facts the unit does not have are passed over.
// The rows are the text's, read from its table, never the command's: a
// text whose table drifts from internal/ledger's must fail a run, not be
// corrected by it. The conditions' reading is the one the command uses,
// ledger.Match: one language, one reader.
func (c *controller) pick(facts map[string]string) stateRow {
	for _, r := range c.rowsInTextOrder() {
		ok, err := ledger.Match(r.when, facts)
		if err != nil {
			continue // a condition on a fact these facts lack: another kind of row
		}
		if ok {
			return r
		}
	}
	c.fail("no row of the state table fits %v", facts)
	return stateRow{}
}

// factsOf are u's facts with its kind, as the table's conditions read them.
func factsOf(u *unit) map[string]string {
	f := map[string]string{}
	for k, v := range u.facts {
		f[k] = v
	}
	f["unit"] = "task"
	if !u.task() {
		f["unit"] = "final"
	}
	return f
}

// rowOf picks u's row, and holds it to the row the last command named for
// it: the text's table and sdd-ledger's must agree.
func (c *controller) rowOf(u *unit) stateRow {
	r := c.pick(factsOf(u))
	if u.named != "" && u.named != r.name {
		c.fail("%s: the text's table picks row %s, sdd-ledger names %s (facts %v)", u.name, r.name, u.named, u.facts)
	}
	return r
}

// step does the next thing the table says.
func (c *controller) step() {
	if c.steps++; c.steps > maxSteps {
		c.fail("%d steps and no end: the table sends the run round in a circle", maxSteps)
	}
	if c.ledger != "this" {
		r := c.pick(map[string]string{"ledger": c.ledger})
		if c.ledgerRow != "" && c.ledgerRow != r.name {
			c.fail("the ledger: the text's table picks row %s, sdd-ledger names %s", r.name, c.ledgerRow)
		}
		c.do(r, nil)
		return
	}
	if c.look.sideK > 1 {
		c.sideRound()
		return
	}
	for _, u := range c.units {
		r := c.rowOf(u)
		if isNextUnit(r.next) {
			continue
		}
		c.do(r, u)
		return
	}
	c.fail("every unit's row says to go on: the table never ends the run")
}

// sideRound is a round of a run side by side (rare.md, Side by side):
// the row of each unit Look's next: names, one after the other (no
// dispatch of several at once yet: the follower sends one tool call a
// message), then Look again.
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

// rowNamed is the state table's row of that name.
func (c *controller) rowNamed(name string) stateRow {
	for _, r := range c.table() {
		if r.name == name {
			return r
		}
	}
	c.fail("a Next names the row %s, which the state table has not", name)
	return stateRow{}
}

func isNextUnit(next string) bool { return strings.TrimSpace(next) == "the next unit" }

var boldNameRe = regexp.MustCompile(`\*\*(.+?)\*\*`)

// asRowRe is a Next that is another row's: "as `rewritten`, with …".
var asRowRe = regexp.MustCompile("^as `([^`]+)`")

// do does a row's Next for u (nil: the ledger as a whole).
func (c *controller) do(r stateRow, u *unit) {
	next := r.next
	if m := asRowRe.FindStringSubmatch(next); m != nil {
		next = c.rowNamed(m[1]).next
	}
	switch {
	case strings.HasPrefix(next, "stop"):
		// A stop waits for the human; where the text says what their word
		// leads to, and the human has given it, that is the next step.
		stop, onWord, hasWord := strings.Cut(next, "; on the human's word, ")
		if hasWord && c.humanSaid() {
			c.chain(u, onWord)
			return
		}
		who := "the ledger"
		if u != nil {
			who = u.name
		}
		c.say(fmt.Sprintf("Stopping at %s (row %s): %s. %s", who, r.name, strings.TrimPrefix(strings.TrimPrefix(stop, "stop"), ": "), c.stopDetail(u, r.name, stop)))
	case strings.Contains(next, "(rare.md#breaker)"):
		c.breaker(u)
	case c.isPrompt(next):
		prompt, then, _ := strings.Cut(next, "; then ")
		c.dispatch(u, prompt)
		if then != "" {
			c.chain(u, then)
		}
	default:
		c.chain(u, next)
	}
}

// isPrompt says whether a Next names a prompt (a text block) first.
func (c *controller) isPrompt(next string) bool {
	m := boldNameRe.FindStringSubmatch(next)
	if m == nil {
		return false
	}
	_, b, ok := c.anyBlock(m[1])
	return ok && b.Lang == "text"
}

func boldLast(s string) string {
	m := boldNameRe.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// stopDetail is what a stop tells the human.
func (c *controller) stopDetail(u *unit, row, stop string) string {
	switch {
	case u == nil:
		return fmt.Sprintf("%s/progress.md begins %q: it is another run's only record, not %s's; I have not touched it. Whose is it?", c.v["<workspace>"], c.look.firstLine, c.sc.Plan)
	case row == "rewritten" || row == "renumbered":
		// Every unit's lines that no longer hold, and the ways on as the
		// section the stop links gives them.
		var lines []string
		for _, x := range c.units {
			for _, l := range x.shas {
				lines = append(lines, x.name+": "+l)
			}
		}
		return fmt.Sprintf("What the ledger records no longer holds (the branch's history or the plan's tasks changed):\n%s\n%s", strings.Join(lines, "\n"), c.waysOn(stop))
	case row == "blocked":
		return fmt.Sprintf("%s is BLOCKED; the ledger and %s hold the fix history.", u.name, c.v["<workspace>"])
	}
	return fmt.Sprintf("%s waits for your word; the ledger and %s hold its history.", u.name, c.v["<workspace>"])
}

// humanSaid says whether the human has given the word a stop's next
// steps wait for: their decision to go on (what they changed), or to
// keep a branch whose history changed (with their answers). Which steps
// that word leads to is the row's to say.
func (c *controller) humanSaid() bool {
	h := c.sc.Human
	return h.GoOn != "" || h.Restart != nil
}

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
