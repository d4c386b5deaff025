package skilltext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// The catalogue of text mutants: each is a change to the skill text that
// must make `make test` fail, and each is killed by a run of the text
// (the walk-through, a scenario, a resume), never by a check of its
// wording. A decision the text states (a row's conditions, its Next, the
// cap, a model, what follows Close, whether a final review happens, the
// foreign-ledger stop) is the follower's to read from the text, so a
// mutant of it changes what the run does, or makes the follower's reading
// of the table disagree with the row sdd-ledger names.

// mutantRun runs a scenario on the text in dir and says what went wrong.
type mutantRun func(t *testing.T, dir string) []string

// walkRun is the walk-through.
func walkRun(t *testing.T, dir string) []string {
	p, _ := walk(t, dir)
	return p
}

// walkRunOn is the walk-through with the host's file of host.
func walkRunOn(host string) mutantRun {
	return func(t *testing.T, dir string) []string {
		p, _ := walkOn(t, dir, host)
		return p
	}
}

// sideRun is six ordinary tasks, three at a time, on Claude Code's file:
// it must finish, every task joined, in at most 0.6 dispatch steps a
// dispatch.
func sideRun(t *testing.T, dir string) []string {
	plan, sc := sixTasks()
	repo := walkRepo(t, sc.Plan, plan)
	sc.Human = follower.Human{Answered: true, Side: 3}
	r := runDirect(t, repo, sc, directOptions{skillDir: dir})
	p := finishedRun(r)
	d := countDispatches(r.calls)
	if s, all := dispatchSteps(r.calls), d.implementers+d.reviewers+d.fixes; 10*s > 6*all {
		p = append(p, fmt.Sprintf("%d dispatch steps for %d dispatches", s, all))
	}
	return p
}

// sideWalkRun is the walk-through's plan with Files lists, two at a time,
// on Codex's file: Task 1's check runs in its worktree.
func sideWalkRun(t *testing.T, dir string) []string {
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	return finishedRun(runDirect(t, repo, follower.SideScenario(2), directOptions{skillDir: dir, host: "codex"}))
}

// sideWalkClaudeRun is sideWalkRun on Claude Code's file, whose
// session keeps a command's cd for the next one.
func sideWalkClaudeRun(t *testing.T, dir string) []string {
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	return finishedRun(runDirect(t, repo, follower.SideScenario(2), directOptions{skillDir: dir}))
}

// joinedRun resumes from the state "joined: a merge commit to check" and
// requires the state's next steps (the merge checked before Close).
func joinedRun(t *testing.T, dir string) []string {
	c := resumeOf(t, "joined: a merge commit to check")
	plan := c.Scenario().Plan
	repo := walkRepo(t, plan, follower.PlanText(plan))
	cut := runDirect(t, repo, c.Scenario(), directOptions{skillDir: dir, maxCalls: c.Cut})
	r := runDirect(t, repo, c.AfterCompaction(), directOptions{skillDir: dir, after: cut})
	got := actions(t, dir, r.calls)
	if len(got) < 3+len(c.Next) || strings.Join(got[3:3+len(c.Next)], "|") != strings.Join(c.Next, "|") {
		return []string{fmt.Sprintf("after the cut: %q, the state says %q", got, c.Next)}
	}
	return finishedRun(r)
}

// sideQuestionRun is the walk-through's plan with Files lists, the human
// not yet asked: the run must stop with the question how many at a time.
func sideQuestionRun(t *testing.T, dir string) []string {
	repo := walkRepo(t, follower.SidePlanPath, follower.SidePlan)
	r := runDirect(t, repo, follower.SideScenario(0), directOptions{skillDir: dir})
	if !strings.Contains(r.final, "how many tasks may run at a time") {
		return []string{"the run did not ask how many tasks at a time: " + r.final}
	}
	return nil
}

// scenarioRun runs sc to its end and requires it to finish cleanly, then
// applies check to the actions.
func scenarioRun(sc func() follower.Scenario, check func(actions []string) []string) mutantRun {
	return func(t *testing.T, dir string) []string {
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, sc(), directOptions{skillDir: dir})
		var p []string
		if !strings.HasPrefix(r.final, "Done: ") {
			p = append(p, "the run did not finish: "+r.final)
		}
		p = append(p, failedCalls(r.calls)...)
		if check != nil {
			p = append(p, check(actions(t, dir, r.calls))...)
		}
		return p
	}
}

// stopRun requires the scenario's run to stop with stop in its last words.
func stopRun(sc func() follower.Scenario, stop string) mutantRun {
	return func(t *testing.T, dir string) []string {
		repo := walkRepo(t, follower.WalkPlanPath, follower.WalkPlan)
		r := runDirect(t, repo, sc(), directOptions{skillDir: dir})
		if !strings.Contains(r.final, stop) {
			return []string{"the run did not stop with " + stop + ": " + r.final}
		}
		return failedCalls(r.calls)
	}
}

// foreignRun is the foreign-ledger stop: the run asks, and the ledger and
// workspace stay as they were.
func foreignRun(t *testing.T, dir string) []string {
	repo, ws, before := foreignLedger(t, IdentityPrefix+"docs/plans/other.md\nTask 1: base="+strings.Repeat("a", 40)+"\n")
	r := runDirect(t, repo, follower.WalkScenario(), directOptions{skillDir: dir})
	var p []string
	if !strings.Contains(r.final, "another run's only record") {
		p = append(p, "the run did not stop and ask: "+r.final)
	}
	if diff := diffSnapshots(before, snapshotTree(t, ws)); diff != "" {
		p = append(p, "the foreign workspace changed: "+diff)
	}
	return append(p, failedCalls(r.calls)...)
}

// resumeState runs follower.Resumes()'s state of that name on the text.
func resumeState(name string) mutantRun {
	return func(t *testing.T, dir string) []string {
		for _, c := range follower.Resumes() {
			if c.Name != name {
				continue
			}
			repo, cut := cutRun(t, follower.WalkPlanPath, follower.WalkPlan, c.Scenario(), c.Cut, "")
			if c.Edit != nil {
				if err := c.Edit(repo.Root, repo.Root+"/.superpowers/sdd/greet"); err != nil {
					t.Fatal(err)
				}
			}
			r := resumeRun(t, repo, cut, c.AfterCompaction(), dir)
			p := failedCalls(r.calls)
			got := actions(t, dir, r.calls)
			if len(got) < 3+len(c.Next) || strings.Join(got[3:3+len(c.Next)], "|") != strings.Join(c.Next, "|") {
				p = append(p, "the steps after Look: "+strings.Join(got, ", "))
			}
			if c.Stop == "" && !strings.HasPrefix(r.final, "Done: ") {
				p = append(p, "the resumed run did not finish: "+r.final)
			}
			if c.Stop != "" && (!strings.Contains(r.final, c.Stop) || strings.HasPrefix(r.final, follower.FailPrefix)) {
				p = append(p, "the resumed run did not stop as the state does: "+r.final)
			}
			return p
		}
		t.Fatalf("no resume state %q", name)
		return nil
	}
}

// noAttempts is sc with rounds that commit nothing before the fixing one.
func noAttempts(sc follower.Scenario) follower.Scenario {
	d := *sc.Tasks[1].Defect
	d.Attempts = false
	sc.Tasks[1].Defect = &d
	return sc
}

func roundsOf(actions []string) []string {
	var out []string
	for _, a := range actions {
		if strings.Contains(a, "fix 2") {
			out = append(out, a)
		}
	}
	return out
}

// parkedRounds checks the breaker scenario's rounds: 1-3 on the task's tier,
// 4-5 one tier up (opus).
func parkedRounds(actions []string) []string {
	want := "Agent fix 2 (sonnet)|Agent fix 2 (sonnet)|Agent fix 2 (sonnet)|Agent fix 2 (opus)|Agent fix 2 (opus)"
	if got := strings.Join(roundsOf(actions), "|"); got != want {
		return []string{"the fix rounds were " + got}
	}
	return nil
}

func TestTextMutants(t *testing.T) {
	t.Parallel()
	parked := func() follower.Scenario {
		return follower.StubbornScenario(9, "park: the brief allows either spelling")
	}
	blocked := func() follower.Scenario { return follower.StubbornScenario(9, "block: Task 3 reads bye.txt") }
	row := func(old, new string) textEdit { return textEdit{file: "SKILL.md", old: old, new: new} }
	for _, m := range []struct {
		name  string
		edits []textEdit
		run   mutantRun
	}{
		// The list of mutants the third edition's tests let live.
		{"the foreign-ledger rule inverted",
			[]textEdit{row("| `foreign` | `ledger=other` | stop: ask the human whose ledger it is; never rename, edit or delete it |",
				"| `foreign` | `ledger=other` | the ledger is this run's: **Start the run** + next |")}, foreignRun},
		{"the foreign and new rows' conditions swapped",
			[]textEdit{row("| `foreign` | `ledger=other` |", "| `foreign` | `ledger=none` |"), row("| `new` | `ledger=none` |", "| `new` | `ledger=other` |")}, walkRun},
		{"the cap 5 changed to 3 everywhere",
			[]textEdit{{file: "SKILL.md", old: "(a task has 5, Final 1)", new: "(a task has 3, Final 1)"},
				{file: "SKILL.md", old: "at most 5 rounds", new: "at most 3 rounds"}, {file: "SKILL.md", old: "| implementer, fix rounds 1-3 |", new: "| implementer, fix rounds 1-2 |"},
				{file: "SKILL.md", old: "| fix rounds 4-5 |", new: "| fix round 3 |"}, {file: "rare.md", old: "(5 for a task", new: "(3 for a task"}},
			scenarioRun(parked, parkedRounds)},
		{"the final reviewer on the fast model",
			[]textEdit{row("| final reviewer | most capable |", "| final reviewer | fast |")}, walkRun},
		{"Finish after the last task's Close",
			[]textEdit{row("| `final` | `unit=final last=none` | **Final package** |", "| `final` | `unit=final last=none` | **Finish** |")}, walkRun},
		{"Look replaced by a path the controller computes",
			[]textEdit{row("sdd-ledger look '<plan file>' '<start branch>'", "ls '.superpowers/sdd/greet'")}, walkRun},
		{"Look replaced by sdd-workspace",
			[]textEdit{row("sdd-ledger look '<plan file>' '<start branch>'", "sdd-workspace '<plan file>'")}, walkRun},

		// The rules that are sentences: which row, how steps join.
		{"the last row that fits taken",
			[]textEdit{row("first row, top down, whose conditions all hold", "last row, top down, whose conditions all hold")}, walkRun},
		{"the rows read bottom up",
			[]textEdit{row("first row, top down, whose conditions all hold", "first row, bottom up, whose conditions all hold")}, walkRun},
		{"the row record above record-close",
			[]textEdit{row("| `record-close` | `last=reviewed_head review=in pass=re open=0 after=0` | **Record the round** + **Close** + next |\n| `record` | `last=reviewed_head review=in pass=re` | **Record the round** |\n",
				"| `record` | `last=reviewed_head review=in pass=re` | **Record the round** |\n| `record-close` | `last=reviewed_head review=in pass=re open=0 after=0` | **Record the round** + **Close** + next |\n")}, walkRun},
		{"steps joined with ;",
			[]textEdit{row("join the steps' commands with ` && ` in one call", "join the steps' commands with ` ; ` in one call")}, walkRun},

		{"the brief's path not the one Start task N writes",
			[]textEdit{row("| `<brief>` | `<workspace>/task-<N>-brief.md`;", "| `<brief>` | `<workspace>/brief-<N>.md`;")}, walkRun},
		{"<who> not the task's name",
			[]textEdit{row("| `<who>` | `Task <N>`;", "| `<who>` | `task <N>`;")}, walkRun},
		{"a Minor finding sent into the fix loop",
			[]textEdit{row("Minor findings never enter the fix loop: the\ncommands defer them.", "The commands defer Minor findings.")}, walkRun},

		// What an implementer's status leads to.
		{"NEEDS_CONTEXT stops the run",
			[]textEdit{row("`NEEDS_CONTEXT` (answer, dispatch again)", "`NEEDS_CONTEXT` (ask the human)")}, askingRun("NEEDS_CONTEXT")},
		{"BLOCKED dispatched again on the same model",
			[]textEdit{row("more\ncontext, a stronger model, a smaller task", "more\ncontext, a smaller task")}, askingRun("BLOCKED")},
		{"BLOCKED only for the human",
			[]textEdit{row("then change something: more\ncontext, a stronger model, a smaller task, or the human if the plan is\nwrong;", "then stop: the human only;")}, askingRun("BLOCKED")},
		{"DONE_WITH_CONCERNS dispatched again",
			[]textEdit{row("(settle a doubt about correctness\nor scope before the review)", "(answer, dispatch again)")}, askingRun("DONE_WITH_CONCERNS")},
		{"DONE_WITH_CONCERNS not named",
			[]textEdit{row("`DONE_WITH_CONCERNS` (settle a doubt about correctness\nor scope before the review), ", "")}, askingRun("DONE_WITH_CONCERNS")},

		// Step order and what follows each step.
		{"Close without the next step in its call",
			[]textEdit{row("| `close` | `last=reviewed_head review=in open=0 spec=✅,n/a after=0` | **Close** + next |",
				"| `close` | `last=reviewed_head review=in open=0 spec=✅,n/a after=0` | **Close** |")}, walkRun},
		{"no final review: Finish after every task",
			[]textEdit{row("| `final` | `unit=final last=none` | **Final package** |", "| `final` | `unit=final last=none` | the next unit |")}, walkRun},
		{"a fix dispatch not followed by its package",
			[]textEdit{row("the **Fix prompt**, round `round`+1; then **Package** |", "the **Fix prompt**, round `round`+1 |")},
			scenarioRun(func() follower.Scenario { return noAttempts(follower.StubbornScenario(2, "")) }, nil)},

		// The verdict rules.
		{"close and check swapped",
			[]textEdit{row("open=0 spec=✅,n/a after=0` |", "open=0 spec=⚠️ after=0` |"), row("open=0 spec=⚠️ after=0` | `<check>`", "open=0 spec=✅,n/a after=0` | `<check>`")}, walkRun},
		{"the check left out",
			[]textEdit{row("spec=⚠️ after=0` | `<check>` + **Close** + next |", "spec=⚠️ after=0` | **Close** + next |")}, walkRun},
		{"findings open closed",
			[]textEdit{row("| `fix` | `open>0` |", "| `fix` | `open>9` |")}, walkRun},
		{"a re-review's round not recorded before Close",
			[]textEdit{row("| **Record the round** + **Close** + next |", "| **Close** + next |")}, walkRun},

		// The models and the tools.
		{"reviewers one tier up",
			[]textEdit{row("| reviewer, re-reviewer | the task's tier, at least standard |", "| reviewer, re-reviewer | one tier above the task's |")}, walkRun},
		{"reviewers on the fast tier",
			[]textEdit{row("| reviewer, re-reviewer | the task's tier, at least standard |", "| reviewer, re-reviewer | the task's tier |")},
			scenarioRun(fastTask3, wants("Agent implementer 3 (haiku)", "Bash Package", "Agent reviewer 3 (sonnet)"))},
		{"a fix's answer without its tests not sent back",
			[]textEdit{row("A fix's answer whose `Tests:` line does not give the covering tests'\ncommand and result goes back: the same round again, saying so.\n", "")},
			scenarioRun(terseFix, wants("Agent fix 2 (sonnet)", "Agent fix 2 (sonnet)", "Bash Package"))},
		{"the re-review's round not the row's",
			[]textEdit{row("the **Re-reviewer prompt**, round `round`+1 |", "the **Re-reviewer prompt**, round 1 |")},
			scenarioRun(func() follower.Scenario { return follower.StubbornScenario(2, "") }, nil)},
		{"dispatches in the background",
			[]textEdit{{file: "host-claude-code.md", old: ", `run_in_background: false`", new: ", `run_in_background: true`"}}, walkRun},
		{"the standard and most capable tiers' models swapped",
			[]textEdit{{file: "host-claude-code.md", old: "standard (`sonnet`), most capable (`opus`)", new: "standard (`opus`), most capable (`sonnet`)"}}, walkRun},
		{"the host's file not named",
			[]textEdit{row("[host-claude-code.md](host-claude-code.md) in Claude Code,", "")}, walkRun},
		{"the commands run from <skill dir>/bin where the host has them on PATH",
			[]textEdit{{file: "host-claude-code.md", old: "writes it: `<command>`", new: "writes it: `<skill dir>/bin/<command>`"}}, walkRun},
		// The host files' decisions, each killed by the walk-through with
		// that host's file: the agent type of a dispatch, where a fix round
		// goes, the form of a command.
		{"Claude Code's dispatches of a read-only agent type",
			[]textEdit{{file: "host-claude-code.md", old: "`subagent_type` `general-purpose`", new: "`subagent_type` `Explore`"}}, walkRun},
		{"OpenCode's dispatches of its primary agent",
			[]textEdit{{file: "host-opencode.md", old: "`subagent_type` `general`", new: "`subagent_type` `build`"}}, walkRunOn("opencode")},
		{"Copilot CLI's dispatches of its read-only agent",
			[]textEdit{{file: "host-copilot.md", old: "`agent_type` `general-purpose`", new: "`agent_type` `explore`"}}, walkRunOn("copilot")},
		{"Gemini CLI's dispatches of its investigator",
			[]textEdit{{file: "host-gemini.md", old: "`agent_name` `generalist`", new: "`agent_name` `codebase_investigator`"}}, walkRunOn("gemini")},
		{"Pi's dispatches of the extension's example worker",
			[]textEdit{{file: "host-pi.md", old: "`agent` `sdd-worker`", new: "`agent` `worker`"}}, walkRunOn("pi")},
		{"Droid's dispatches of its read-only explorer",
			[]textEdit{{file: "host-droid.md", old: "| a dispatch | the Task tool: `subagent_type` `worker`", new: "| a dispatch | the Task tool: `subagent_type` `explorer`"}}, walkRunOn("droid")},
		{"Claude Code's fix round continuing a foreground implementer",
			[]textEdit{{file: "host-claude-code.md", old: "| a fix round | a new implementer: a dispatch", new: "| a fix round | rounds 1-3: continue the implementer; rounds 4-5: a new implementer, a dispatch"}}, walkRun},
		{"Gemini CLI's fix round continuing a finished agent",
			[]textEdit{{file: "host-gemini.md", old: "| a fix round | a new implementer: a dispatch", new: "| a fix round | rounds 1-3: continue the implementer; rounds 4-5: a new implementer, a dispatch"}}, walkRunOn("gemini")},
		{"Pi's fix round continuing an agent whose process has ended",
			[]textEdit{{file: "host-pi.md", old: "| a fix round | a new implementer: a dispatch", new: "| a fix round | rounds 1-3: continue the implementer; rounds 4-5: a new implementer, a dispatch"}}, walkRunOn("pi")},
		{"Droid's fix rounds a new implementer",
			[]textEdit{{file: "host-droid.md", old: "| a fix round | rounds 1-3: continue the implementer:", new: "| a fix round | a new implementer; not: continue the implementer:"}}, walkRunOn("droid")},
		{"Droid's commands by name, which it has not on PATH",
			[]textEdit{{file: "host-droid.md", old: "`'<skill dir>/bin/<command>'`", new: "`<command>`"}}, walkRunOn("droid")},
		{"Codex CLI's fix rounds a new implementer",
			[]textEdit{{file: "host-codex.md", old: "| a fix round | rounds 1-3: continue the implementer:", new: "| a fix round | a new implementer; not: continue the implementer:"}}, walkRunOn("codex")},
		{"OpenCode's first fix round a new implementer",
			[]textEdit{{file: "host-opencode.md", old: "rounds 1-3: continue the implementer", new: "rounds 2-3: continue the implementer"}}, walkRunOn("opencode")},
		{"Copilot CLI's fix rounds a new implementer",
			[]textEdit{{file: "host-copilot.md", old: "| a fix round | rounds 1-3: continue the implementer:", new: "| a fix round | a new implementer; not: continue the implementer:"}}, walkRunOn("copilot")},
		{"Codex CLI's commands by name, which it has not on PATH",
			[]textEdit{{file: "host-codex.md", old: "`'<skill dir>/bin/<command>'`", new: "`<command>`"}}, walkRunOn("codex")},
		{"rounds 1-3 one tier up",
			[]textEdit{row("| implementer, fix rounds 1-3 | the task's tier |", "| implementer | the task's tier |\n| fix rounds 1-3 | one tier above the task's |")},
			scenarioRun(parked, parkedRounds)},
		{"rounds 4-5 on the task's tier",
			[]textEdit{row("| fix rounds 4-5 | one tier above the task's |", "| fix rounds 4-5 | the task's tier |")},
			scenarioRun(parked, parkedRounds)},

		// The stops and the breaker.
		{"BLOCKED goes on",
			[]textEdit{row("| `blocked` | `last=blocked` | stop: report to the human; on the human's word, [**Unblock**](rare.md#go-on) |", "| `blocked` | `last=blocked` | the next unit |")}, resumeState("blocked")},
		{"BLOCKED goes on without the human's word",
			[]textEdit{row("| `blocked` | `last=blocked` | stop: report to the human; on the human's word, [**Unblock**](rare.md#go-on) |", "| `blocked` | `last=blocked` | [**Unblock**](rare.md#go-on) |")}, resumeState("blocked")},
		{"rewritten history computed over",
			[]textEdit{row("| `rewritten` | `shas=rewritten,gone,missing` |", "| `rewritten` | `shas=never` |")}, resumeState("rewritten: the branch rebased under the run")},
		{"a restart without the human's answers",
			[]textEdit{row("[**Restart**](rare.md#history) + **Start the run** + [their answers](rare.md#answers) + **Look**", "[**Restart**](rare.md#history) + **Start the run** + **Look**")}, resumeState("rewritten: the human keeps the rebased branch")},
		{"late commits closed over at the cap",
			[]textEdit{row("| `late` | `after>0 left=0` |", "| `late` | `after>9 left=0` |")}, resumeState("late: a commit after round 5")},
		{"the human's decision to go on not recorded",
			[]textEdit{{file: "rare.md", old: "sdd-ledger unblock '<plan file>' <N> '<what changed>'", new: "sdd-ledger look '<plan file>' '<start branch>'"}}, resumeState("blocked: the human says go on")},
		{"a block ruling that does not stop",
			[]textEdit{{file: "rare.md", old: "| **Block**, then stop: report to the human", new: "| **Block** + next; report to the human"}}, stopRun(blocked, "Task 2 is BLOCKED")},
		{"the breaker parks without closing",
			[]textEdit{{file: "rare.md", old: "**Park**; with the last ruling, **Park** + **Close** + next", new: "**Park**"}},
			scenarioRun(parked, func(actions []string) []string {
				for _, a := range actions {
					if a == "Bash Park+Close+Start task N" {
						return nil
					}
				}
				return []string{"the last ruling did not close the task and start the next in its call"}
			})},
		{"a fix committed but not re-reviewed, dispatched again",
			[]textEdit{row("| `refix` | `after>0` | **Package** |\n", "")}, resumeState("refix")},
		{"batches never taken",
			[]textEdit{row("**Start task N**, or [**Start a batch**](rare.md#batches) where Look's `batch?:` line begins at it |", "**Start task N** |")}, microRun},
		{"a batched task started on its own",
			[]textEdit{row("| `batched` | `last=batched` | the next unit |\n", "")}, microRun},
		{"a batch's implementer does its first task only",
			[]textEdit{{file: "implementer-prompt.md", old: "- A brief may hold several tasks of the plan (a batch): do each, in its\n  order, one commit each, and report each under its own heading.\n", new: ""}}, microRun},
		{"a batch's findings not named by their task",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "- A brief of several tasks (a batch): judge each task's requirements, and\n  begin each finding's text with its task: `F2 [Important] Task 4: …`.\n", new: ""}}, microDefectRun},
		{"a commit after a clean review closed over",
			[]textEdit{row("| `refix` | `after>0` |", "| `refix` | `open>0 after>0` |")}, resumeState("refix: a commit after a clean review")},

		// What survives: the decisions later tasks build on, and what the
		// human must still decide.
		{"the settled decisions left out of the dispatch",
			[]textEdit{row("Settled by earlier tasks: <the settled: lines it needs, or none>", "Settled by earlier tasks: none")}, walkRun},
		{"the decisions not recorded at Close",
			[]textEdit{row("sdd-ledger close '<plan file>' <N> <decisions>", "sdd-ledger close '<plan file>' <N>")}, walkRun},
		{"Finish's list not given to the human",
			[]textEdit{row("Give the human what it printed in your last message", "Thank the human in your last message")}, walkRun},

		// Issue 37: what the follower decided in Go, read from the text
		// now, each killed by a run.
		// What follows a failed check.
		{"a failed check closed over",
			[]textEdit{row("it fails, the fix loop follows: **Add a finding**,", "it fails, say so in your last message and **Close**.\n\nA gap you find yourself is **Add a finding**,")}, checkFailsRun},
		{"what follows a failed check not said",
			[]textEdit{row(" If\nit fails, the fix loop follows: **Add a finding**,", "\n**Add a finding**, for a check of yours that failed,")}, checkFailsRun},
		// The Placeholder table's sources.
		{"<agent id> the implementer's, not the fix's",
			[]textEdit{row("the id your last implementer or fix dispatch returned", "the id your last implementer dispatch returned")}, walkRun},
		{"<agent id> not taken from Look after a compaction",
			[]textEdit{row("returned, else Look's `implementer:`, else `none` |", "returned, else `none` |")},
			hostResume("codex", "fix", false, continuing("agent-3"))},
		{"<workspace> the ledger's line",
			[]textEdit{row("| `<workspace>` | the `workspace:` path Look prints |", "| `<workspace>` | the `ledger:` path Look prints |")}, walkRun},
		{"<review> the package's line",
			[]textEdit{row("the newest `review:` path the last command or Look printed", "the newest `package:` path the last command or Look printed")}, walkRun},
		{"<review> not taken from the reviewer's answer",
			[]textEdit{row("the newest `review:` path the last command or Look printed, or the reviewer's `Review:` |", "the newest `review:` path the last command or Look printed |")}, walkRun},
		{"<bytes> the package's commit count",
			[]textEdit{row("`wrote … .diff: …, <bytes> bytes`", "`wrote … .diff: <bytes> commit(s), … bytes`")}, walkRun},
		{"<open findings> without their ids",
			[]textEdit{row("each open finding with its id: `F2 off-by-one in Parse; F3 …`", "each open finding: `off-by-one in Parse; …`")}, walkRun},
		{"<decisions> none when none",
			[]textEdit{row("in single quotes; nothing when none |", "in single quotes; `none` when none |")}, walkRun},
		// Where a fix round goes: SKILL.md's sentence and each host's
		// exception for an implementer of an earlier session.
		{"fix rounds 1-2 continue the implementer",
			[]textEdit{row("but fix rounds 1-3 continue the implementer", "but fix rounds 1-2 continue the implementer")},
			hostRun("codex", stubbornIn(3), continuing("agent-3", "agent-3", "agent-3"))},
		{"every fix round a fresh subagent",
			[]textEdit{row("Every dispatch is a\nfresh subagent, but fix rounds 1-3 continue the implementer (`<agent id>`)\nwhere your host's file says it can; a fix", "Every dispatch is a\nfresh subagent; a fix")}, walkRunOn("codex")},
		{"Codex CLI continues an implementer of an earlier session",
			[]textEdit{{file: "host-codex.md", old: "; rounds 4-5, and an implementer of an earlier session: a new", new: "; rounds 4-5: a new"}},
			hostResume("codex", "fix", true, continuing("new"))},
		{"OpenCode continues an implementer of an earlier session",
			[]textEdit{{file: "host-opencode.md", old: "; rounds 4-5, and an implementer of an earlier session: a new", new: "; rounds 4-5: a new"}},
			hostResume("opencode", "fix", true, continuing("new"))},
		{"Copilot CLI continues an implementer of an earlier session",
			[]textEdit{{file: "host-copilot.md", old: "; rounds 4-5, and an implementer of an earlier session: a new", new: "; rounds 4-5: a new"}},
			hostResume("copilot", "fix", true, continuing("new"))},

		// The late row reached by the final review.
		{"late commits after the final fix go to the breaker",
			[]textEdit{row("| `late` | `after>0 left=0` | stop: commits after the last review, no round left; on the human's word, [**Unblock**](rare.md#go-on) |",
				"| `late` | `after>0 left=0` | [the breaker](rare.md#breaker) |")}, resumeState("late: a commit after the final fix")},
		{"late commits of the final review not reviewed on the human's word",
			[]textEdit{row("no round left; on the human's word, [**Unblock**](rare.md#go-on) |", "no round left; on the human's word, **Close** + next |")},
			resumeState("late: the human says go on after the final fix")},
		// A dispatch whose answer a compaction cut off.
		{"a lost dispatch waited for",
			[]textEdit{row("A dispatch whose answer you lost to a compaction or a new\nsession is lost: take Look's row.", "A dispatch whose answer you lost to a compaction or a new\nsession is still running: wait for its answer.")}, resumeState("package")},
		{"a lost dispatch dispatched again",
			[]textEdit{row("A dispatch whose answer you lost to a compaction or a new\nsession is lost: take Look's row.", "A dispatch whose answer you lost to a compaction or a new\nsession is to be done again: dispatch it again.")}, resumeState("package")},
		// The questions before Task 1.
		{"the questions before Task 1 one at a time",
			[]textEdit{row("then ask the human\neverything at once:", "then ask the human\neach question in turn:")}, questionsRun},
		{"the branch's earlier commits not asked about",
			[]textEdit{row("; which\ncommits Look lists since `<start branch>` (or an `old flat ledger:`,\nwhich is never continued or edited) are done tasks of this plan and which\nto review;", ";")}, questionsRun},
		// A host file's text outside its Need table: Gemini CLI's stop when
		// a file of the workspace is refused.
		{"Gemini CLI's stop for a refused file dropped",
			[]textEdit{{file: "host-gemini.md", old: "{\"respectGitIgnore\": false}}`: if a subagent reports\none refused, stop and ask the user to set it.", new: "{\"respectGitIgnore\": false}}`."}}, refusedRun},
		{"Gemini CLI's stop only for a reviewer's refused package",
			[]textEdit{{file: "host-gemini.md", old: "if a subagent reports\none refused,", new: "if a reviewer reports\nthe package refused,"}}, refusedRun},
		// The ways on the human is given after rewritten history.
		{"the branch put back with reset --hard",
			[]textEdit{{file: "rare.md", old: "`git reset --keep <the newest\n  sha named>`", new: "`git reset --hard <the newest\n  sha named>`"}}, putBackRun},
		{"the way back not given",
			[]textEdit{{file: "rare.md", old: "- put the branch, or the plan's numbers, back where the ledger saw them\n  (undo the rebase or reset, for instance `git reset --keep <the newest\n  sha named>`); then Look;\n", new: ""}}, putBackRun},
		// The subagents' rules, from their role files.
		{"Spec ✅ and ⚠️ swapped",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "- Spec is ✅ when nothing is missing, extra or misunderstood and all could\n  be verified; ❌ when anything is missing, extra or misunderstood; ⚠️ when\n  the diff conforms",
				new: "- Spec is ⚠️ when nothing is missing, extra or misunderstood and all could\n  be verified; ❌ when anything is missing, extra or misunderstood; ✅ when\n  the diff conforms"}}, walkRun},
		{"findings numbered without their F",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "Number the findings that are not Minor F1, F2, …", new: "Number the findings that are not Minor 1, 2, …"}}, walkRun},
		{"a final review's findings numbered apart",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "(in a\n  final review too)", new: "(in a\n  final review G1, G2, …)"}}, reopenRun},
		{"a disputed finding ADDRESSED",
			[]textEdit{{file: "re-review-prompt.md", old: "An attempt that does not remove the problem is\n  NOT ADDRESSED, and so is a finding disputed without the diff settling\n  it.",
				new: "An attempt that does not remove the problem is\n  NOT ADDRESSED; a finding the implementer disputes with a reason is\n  ADDRESSED."}}, disputeRun},
		{"New findings numbered from F1",
			[]textEdit{{file: "re-review-prompt.md", old: "numbered on from the highest id you were given.", new: "numbered from F1."}}, breakingFixRun},
		{"the final review does not look at deferred minors",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "For each\n`minor (deferred)` and `parked` line", new: "For each\n`parked` line"}}, reopenRun},
		{"what the final review finds must be fixed not opened",
			[]textEdit{{file: "task-reviewer-prompt.md", old: "one that must becomes an\nopen finding.", new: "one that must is named in\nthe review's details."}}, reopenRun},
		{"a fix round's report written anew",
			[]textEdit{{file: "implementer-prompt.md", old: "Append to the Report file (never overwrite it) a section", new: "Write the Report file anew, a section"}}, walkRun},
		{"a fix round's section titled otherwise than the re-review reads",
			[]textEdit{{file: "implementer-prompt.md", old: "a section\n`Fix round <R>` giving", new: "a section\n`Round <R>` giving"}}, walkRun},
		{"<open findings> joined with commas",
			[]textEdit{row("`F2 off-by-one in Parse; F3 …`", "`F2 off-by-one in Parse, F3 …`")}, disputeRun},
		{"master worked on without the human's yes",
			[]textEdit{row("`main` or `master` needs the", "`main` needs the")}, onMasterRun},
		{"<decisions> in double quotes",
			[]textEdit{row("(an interface, a name, a ruling) in single quotes;", "(an interface, a name, a ruling) in double quotes;")}, microJudgmentRun},
		// Which tasks a batch takes.
		{"a task that needs judgment batched",
			[]textEdit{{file: "rare.md", old: "if none needs judgment, defines\nsomething later tasks use", new: "if none defines\nsomething later tasks use"}}, microJudgmentRun},
		// Tasks side by side (issue 38).
		{"the question how many tasks at a time not asked",
			[]textEdit{row("; for\n`side?:`, [how many at a time](rare.md#side-by-side).", ".")}, sideQuestionRun},
		{"an implementer side by side not told to work in its worktree",
			[]textEdit{{file: "implementer-prompt.md", old: "edit only files under it, run git as `git -C '<that\n  path>' …` and any other command as `cd '<that path>' && …`, and commit\n  there, never elsewhere.", new: "edit only files under it."}}, sideRun},
		{"the dispatches of several units each in a message of its own",
			[]textEdit{{file: "rare.md", old: "Send the dispatches of several units together as your host's file says (its `side by side` row; without one, one at a time, in `next:`'s order),", new: "Send each dispatch in a message of its own,"}}, sideRun},
		{"a task's check in one call with the steps after it",
			[]textEdit{{file: "rare.md", old: "Its `<check>` is a call of its own, `cd '<path>' && <check>`, before the row's other steps;", new: "Its `<check>` is `cd '<path>' && <check>`;"}}, sideWalkRun},
		{"no cd back to the top after a check in a worktree",
			[]textEdit{{file: "rare.md", old: "Your shell may stay in `<path>`: the call after it begins with\n`cd '<top>' && `, `<top>` being Look's `workspace:` up to `/.superpowers`.\n", new: ""}}, sideWalkClaudeRun},
		{"a merge commit's join not checked",
			[]textEdit{row("| `joined` | `last=joined` | `<check>` + **Close** + next |", "| `joined` | `last=joined` | **Close** + next |")}, joinedRun},
		{"a task that defines what later tasks use batched",
			[]textEdit{{file: "rare.md", old: "if none needs judgment, defines\nsomething later tasks use, or waits", new: "if none needs judgment or waits"}}, microSettledRun},

		// The subagents' files.
		{"a dispatch that names no role file",
			[]textEdit{row("Read <skill dir>/implementer-prompt.md and follow it.", "Follow <skill dir>/implementer-prompt.md.")}, walkRun},
		{"a role file's answer with another label",
			[]textEdit{{file: "implementer-prompt.md", old: "Tests: <one line: command and result>", new: "Checks: <one line: command and result>"}}, walkRun},
	} {
		if testing.Short() && !shortMutants[m.name] {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			if p := m.run(t, skillCopy(t, m.edits...)); len(p) == 0 {
				t.Errorf("the mutant lived: the run passed on the changed text")
			} else {
				t.Logf("killed: %s", strings.SplitN(p[0], "\n", 2)[0])
			}
		})
	}
}

// shortMutants are the mutants make test runs (go test -short), to show
// that its runs can fail; make test-full runs the whole catalogue.
var shortMutants = map[string]bool{"the foreign-ledger rule inverted": true, "findings open closed": true}

// askingDispatches are Task 3's implementer dispatches when its first
// answer is each status, and the step after the last: the text's rule for
// the status (SKILL.md: answer and dispatch again; change something, a
// stronger model among it; settle the doubt before the review).
var askingDispatches = map[string][]string{
	"NEEDS_CONTEXT":      {"Agent implementer 3 (sonnet)", "Agent implementer 3 (sonnet)", "Bash Package"},
	"BLOCKED":            {"Agent implementer 3 (sonnet)", "Read rare.md", "Bash Block+Unblock", "Agent implementer 3 (opus)", "Bash Package"},
	"DONE_WITH_CONCERNS": {"Agent implementer 3 (sonnet)", "Bash Package"},
}

// askingRun is the walk-through whose Task 3 implementer first answers
// status: the run finishes, Task 3's dispatches being the text's.
func askingRun(status string) mutantRun {
	return scenarioRun(func() follower.Scenario { return follower.AskingScenario(status) }, func(actions []string) []string {
		// Task 3's steps from its first implementer dispatch to the step
		// after its last.
		first, last := -1, -1
		for i, a := range actions {
			if strings.HasPrefix(a, "Agent implementer 3 ") {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		var got []string
		if first >= 0 {
			got = actions[first:min(last+2, len(actions))]
		}
		if want := askingDispatches[status]; strings.Join(got, "|") != strings.Join(want, "|") {
			return []string{fmt.Sprintf("%s: Task 3's dispatches were %q, the text's rule gives %q", status, got, want)}
		}
		return nil
	})
}

// fastTask3 is the walk-through with Task 3 on the fast tier: its code is
// in its text (one file, spelled out).
func fastTask3() follower.Scenario {
	sc := follower.WalkScenario()
	sc.Tasks[2].Tier = "fast"
	return sc
}

// terseFix is the walk-through whose fixer answers its round's first
// dispatch without its tests.
func terseFix() follower.Scenario {
	sc := follower.WalkScenario()
	d := *sc.Tasks[1].Defect
	d.TerseFirst = true
	sc.Tasks[1].Defect = &d
	return sc
}

// wants requires the actions to hold seq, in order, one after another.
func wants(seq ...string) func([]string) []string {
	return func(actions []string) []string {
		for i := 0; i+len(seq) <= len(actions); i++ {
			if strings.Join(actions[i:i+len(seq)], "|") == strings.Join(seq, "|") {
				return nil
			}
		}
		return []string{fmt.Sprintf("the steps %q never come in a row: %q", seq, actions)}
	}
}

// TestNewRunsPassOnTheText: the runs the newer mutants are killed by pass
// on the text itself (a mutant is only killed if its run can pass).
func TestNewRunsPassOnTheText(t *testing.T) {
	fullOnly(t)
	t.Parallel()
	for name, run := range map[string]mutantRun{
		"a fast task's reviewer on standard":      scenarioRun(fastTask3, wants("Agent implementer 3 (haiku)", "Bash Package", "Agent reviewer 3 (sonnet)")),
		"a terse fix answer sent back":            scenarioRun(terseFix, wants("Agent fix 2 (sonnet)", "Agent fix 2 (sonnet)", "Bash Package")),
		"two rounds, each re-reviewed as its own": scenarioRun(func() follower.Scenario { return follower.StubbornScenario(2, "") }, nil),
		"NEEDS_CONTEXT answered":                  askingRun("NEEDS_CONTEXT"),
		"BLOCKED changed":                         askingRun("BLOCKED"),
		"DONE_WITH_CONCERNS settled":              askingRun("DONE_WITH_CONCERNS"),
		"a batch":                                 microRun,
		"a batch with a fix round":                microDefectRun,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if p := run(t, ""); len(p) > 0 {
				t.Errorf("the run on skill/: %s", strings.Join(p, "\n"))
			}
		})
	}
}

// microRun is the micro-task walk-through: one batch, I + R ≤ 4.
func microRun(t *testing.T, dir string) []string {
	return microRunOf(t, dir, follower.MicroScenario())
}

// microDefectRun is the micro-task walk-through with a defect in Task 3,
// fixed in one round of the batch.
func microDefectRun(t *testing.T, dir string) []string {
	return microRunOf(t, dir, follower.MicroDefectScenario())
}

func microRunOf(t *testing.T, dir string, sc follower.Scenario) []string {
	repo := walkRepo(t, follower.MicroPlanPath, follower.MicroPlan)
	r := runDirect(t, repo, sc, directOptions{skillDir: dir})
	var p []string
	if !strings.HasPrefix(r.final, "Done: ") {
		p = append(p, "the run did not finish: "+r.final)
	}
	p = append(p, failedCalls(r.calls)...)
	if d := countDispatches(r.calls); d.implementers+d.reviewers > 5 || d.implementers != 1 {
		p = append(p, fmt.Sprintf("not one batch: %+v", d))
	}
	return p
}
