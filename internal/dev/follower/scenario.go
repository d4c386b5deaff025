package follower

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultSkill is the skill's name as the sdd-go plugin lists it.
const DefaultSkill = "sdd-go:subagent-driven-development"

// FailPrefix starts what a script says when it stops because something the
// scenario expects did not happen (a block failed, a reply did not parse,
// the text lacks a block): the run failed, and the words after it say why.
const FailPrefix = "follower failed: "

// Scenario is what one run of the skill meets: the plan as the human gave
// it, what each subagent does, and what the human has answered so far.
// The controller knows the plan's tasks from it (a real controller reads
// the plan once); the subagents take their work from it.
type Scenario struct {
	Skill       string // the Skill tool's name; "" is DefaultSkill
	Plan        string // the plan file as the human named it
	StartBranch string // the branch this run's branch was made from; "" is main
	Tasks       []Task // the plan's tasks, in plan order

	// Contradictions are questions about the plan the controller asks
	// before Task 1 (Setup 4).
	Contradictions []string
	// Human is what the human has answered so far.
	Human Human
	// NewSession: this turn is in a session other than the one that
	// dispatched the subagents the ledger names (a new session, not a
	// compaction of the same one): what an earlier session dispatched
	// cannot be reached.
	NewSession bool
	// Lost is the dispatch whose answer a compaction cut off, as the
	// controller's summary of its context names it ("implementer 1",
	// "re-reviewer 2", "final reviewer 0": its role and task); "" for
	// none.
	Lost string

	FinalMinors []string // what the final reviewer reports as Minor
	// Resolved are the files a join conflicted on, as a fix round
	// resolves them (run side by side).
	Resolved map[string]string
}

// Task is one task of the plan and what its implementer and reviewers do.
type Task struct {
	N     int
	Title string // the heading's text after "Task <N>: "; the brief must hold it

	Commits []Commit // what the implementer commits, in order
	// Test is the plan's test command for the task: the implementer runs
	// it and reports it, and the controller runs it as <check> when the
	// reviewer could not verify something.
	Test string

	// Escapes: its implementer, told to work in the task's worktree,
	// commits on the main checkout instead (run side by side).
	Escapes bool

	// Tier is the task's tier as the text names tiers (fast, standard,
	// most capable); "" is standard: the controller's judgment of the
	// task, which the dispatch table turns into models.
	Tier string
	// Settled are the decisions later tasks build on that the controller
	// records when it closes the task.
	Settled []string
	// Judgment: reading the task, the controller finds it needs judgment
	// (rare.md's Batches keeps such a task out of a batch, whatever its
	// text's shape).
	Judgment bool
	// Question: the task waits on a question for the human (one of the
	// questions before Task 1).
	Question bool

	// Asks is the status the implementer first answers instead of DONE
	// (NEEDS_CONTEXT or BLOCKED: nothing done; DONE_WITH_CONCERNS: done,
	// with a doubt), until a dispatch's Rulings line holds Context, the
	// controller's answer from the plan.
	Asks, Context string
	// InTree: the task's files are in the tree before it begins (an
	// earlier task wrote them): its implementer looks, finds its work
	// done, and commits nothing.
	InTree bool

	Defect       *Defect  // a planted defect, or nil
	Minors       []string // Minor one-liners the task's review reports
	Unverifiable string   // an item the reviewer cannot verify (spec ⚠️), or ""
	OutOfScope   []string // what the re-reviewer notes outside its scope
	// Rulings are the controller's rulings on findings round 5 leaves
	// open, by the finding's text (after its id): "park: <why>" or
	// "block: <reason>".
	Rulings map[string]string
}

// Commit is one commit of an implementer.
type Commit struct {
	Message string
	Files   []File
}

// File is a file a commit writes, its path relative to the repository.
type File struct{ Path, Content string }

// Defect is a planted defect: the implementer first writes Wrong into
// Path (one of the task's files), the task review reports it as an
// Important finding, and the fix round FixedIn writes the right content.
type Defect struct {
	Path    string
	Wrong   string
	Marker  string // a text of Wrong the right content lacks: how reviewers see the defect
	Finding string // the finding after its id and grade: "greet.txt:1 greeting misspelled"
	FixedIn int    // the fix round that fixes it; 0 means 1; earlier rounds commit nothing
	// Attempts: the rounds before FixedIn commit an attempt that leaves
	// the defect in place (the re-review rules it NOT ADDRESSED), rather
	// than nothing.
	Attempts bool
	// TerseFirst: a fix round's first answer gives no Tests line's command
	// and result (its report section does), as a fixer in a hurry answers;
	// dispatched again, it answers in full.
	TerseFirst bool
	// OnlyFinal is a defect the task's review cannot see (one only the
	// whole branch shows): the final review reports it, and its one fix
	// round (round 1) fixes it when FixedIn is 0 or 1.
	OnlyFinal bool
	// Disputes: the fix rounds before FixedIn dispute the finding (the
	// report says why under its id) and change nothing for it.
	Disputes bool
	// Breaks is a defect the fix that fixes this one brings in (a line
	// of the fix's diff the re-review reports as New); nil for none.
	Breaks *Defect
	// Right is what Path holds once this defect is fixed, where no task
	// of the scenario writes Path last (a defect a fix brought in).
	Right string
	// Minor: the task's review reports it as a Minor finding (deferred by
	// the commands), not an open one.
	Minor bool
	// Reopen: the final review finds that the ledger's line of it (a
	// deferred minor, a parked finding) must be fixed now that the whole
	// branch is visible.
	Reopen bool
	// Unseen is a defect no review sees in a diff: only running the task's
	// test shows it (the review lists the test as not verifiable, and the
	// controller's check fails). Its implementer reports the test passed
	// without running it (a report is an intention). Finding is then the
	// controller's line for the failed check.
	Unseen bool
}

// Human is what the human said in answer to the controller's questions.
// A controller that needs an answer the scenario does not hold asks and
// ends its turn; the next turn (a new Controller script, as after any
// pause) runs with the answers.
type Human struct {
	Answered bool // the human answered this run's questions before Task 1

	Done   []Earlier // commits of an earlier run the human counts as done tasks
	Review *Earlier  // committed work of an earlier run to be reviewed (the branch's newest)
	Moved  bool      // the plan moved from the workspace sdd-workspace's note named
	Side   int       // how many tasks at a time, for a plan Look's side?: line showed such tasks in; 0: not asked

	// GoOn is the human's decision to go on with a unit that stopped
	// (BLOCKED, or commits after its last round): what they changed.
	GoOn string
	// Restart is the human's word to keep a branch whose history changed
	// under the ledger, with their answers about its commits; nil where
	// they have not given it.
	Restart *Restart
}

// Restart is the human's word at row rewritten: keep the branch, what
// happened to it, and which of its commits since the start branch are
// done tasks and which to review.
type Restart struct {
	What   string
	Done   []Earlier
	Review *Earlier
}

// Earlier is a task an earlier run committed: its commits' positions in
// `git log --reverse '<start branch>'..HEAD`, the oldest being 1.
type Earlier struct{ N, First, Last int }

func (sc Scenario) skillName() string {
	if sc.Skill == "" {
		return DefaultSkill
	}
	return sc.Skill
}

func (sc Scenario) startBranch() string {
	if sc.StartBranch == "" {
		return "main"
	}
	return sc.StartBranch
}

// task returns Task n of the scenario.
func (sc Scenario) task(n int) (Task, error) {
	for _, t := range sc.Tasks {
		if t.N == n {
			return t, nil
		}
	}
	return Task{}, fmt.Errorf("the scenario has no Task %d", n)
}

// files is every file the task's commits write, the last content of each.
func (t Task) files() (paths []string, content map[string]string) {
	content = map[string]string{}
	for _, c := range t.Commits {
		for _, f := range c.Files {
			if _, seen := content[f.Path]; !seen {
				paths = append(paths, f.Path)
			}
			content[f.Path] = f.Content
		}
	}
	return paths, content
}

// defect finds the planted defect a finding of unit n names: Task n's, or
// for the final review (n == 0) any task's.
func (sc Scenario) defect(n int, finding string) (*Defect, bool) {
	// A batch's finding names its task first ("Task 4: …").
	if m := batchFindingRe.FindStringSubmatch(finding); m != nil {
		n, finding = atoiOr(m[1]), m[2]
	}
	for _, t := range sc.Tasks {
		if (t.N == n || n == 0) && t.Defect != nil && t.Defect.Finding == finding {
			return t.Defect, true
		}
		if (t.N == n || n == 0) && t.Defect != nil && t.Defect.Breaks != nil && t.Defect.Breaks.Finding == finding {
			return t.Defect.Breaks, true
		}
	}
	return nil, false
}

var batchFindingRe = regexp.MustCompile(`^Task (\d+): (.+)$`)

// rightContent is what the defect's file holds once fixed: the last
// content its task's commits give it.
func (sc Scenario) rightContent(d *Defect) string {
	if d.Right != "" {
		return d.Right
	}
	for _, t := range sc.Tasks {
		if t.Defect == d {
			_, content := t.files()
			return content[d.Path]
		}
	}
	return ""
}

// ruling is the controller's ruling on a finding round 5 (or the final
// fix) leaves open: Task n's, or for the final review any task's.
func (sc Scenario) ruling(n int, finding string) string {
	for _, t := range sc.Tasks {
		if r, ok := t.Rulings[finding]; ok && (t.N == n || n == 0) {
			return r
		}
	}
	return ""
}

// test is the plan's test command for unit n; the final review's runs
// every task's.
func (sc Scenario) test(n int) string {
	var tests []string
	for _, t := range sc.Tasks {
		if (t.N == n || n == 0) && t.Test != "" {
			tests = append(tests, t.Test)
		}
	}
	return strings.Join(tests, " && ")
}

func (d *Defect) fixedIn() int {
	if d.FixedIn == 0 {
		return 1
	}
	return d.FixedIn
}

// tier is the task's tier: standard unless the scenario says otherwise.
func (t Task) tier() string {
	if t.Tier == "" {
		return "standard"
	}
	return t.Tier
}

// UserRules are the allow rules a user gives a run of the scenario once:
// the tools the subagents use, and the plan's own commands (staging,
// committing, each task's test). The controller's commands come from the
// skill's allowed-tools, never from here.
func (sc Scenario) UserRules() []string {
	rules := []string{"Skill", "Read", "Write", "Edit", "Agent", "Bash(git add:*)", "Bash(git commit:*)"}
	if sc.Human.Side > 1 {
		// Tasks side by side: each implementer works in its worktree,
		// git as git -C, any other command after a cd to it
		// (implementer-prompt.md).
		rules = append(rules, "Bash(git -C * add *)", "Bash(git -C * commit *)", "Bash(git -C * merge *)", "Bash(cd:*)")
	}
	seen := map[string]bool{}
	for _, t := range sc.Tasks {
		if t.Test != "" && !seen[t.Test] {
			seen[t.Test] = true
			rules = append(rules, "Bash("+t.Test+")")
		}
	}
	return rules
}

// AllowedTools reads the allowed-tools of a SKILL.md's front matter.
func AllowedTools(skillMD string) []string {
	rest, ok := strings.CutPrefix(skillMD, "---\n")
	if !ok {
		return nil
	}
	front, _, _ := strings.Cut(rest, "\n---\n")
	for _, l := range strings.Split(front, "\n") {
		if v, ok := strings.CutPrefix(l, "allowed-tools:"); ok {
			var out []string
			for _, r := range splitRules(v) {
				if r = strings.TrimSpace(r); r != "" {
					out = append(out, r)
				}
			}
			return out
		}
	}
	return nil
}

// splitRules splits a rule list at the commas outside parentheses.
func splitRules(s string) []string {
	var out []string
	depth, from := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[from:i])
				from = i + 1
			}
		}
	}
	return append(out, s[from:])
}
