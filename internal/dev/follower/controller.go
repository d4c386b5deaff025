package follower

import (
	"fmt"
	"regexp"
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
