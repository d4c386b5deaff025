package follower

// Named are the scenarios by the names docs/prose-rules.md gives them:
// what a live trial (a real model as the controller, over the same plan,
// commits and subagents' answers) runs to show a rule of prose broken
// that no literal follower can hold. Resumes() names the resume states,
// which a trial may start from too.
func Named() map[string]func() Scenario {
	return map[string]func() Scenario{
		"walk-through":                       WalkScenario,
		"asking: NEEDS_CONTEXT":              func() Scenario { return AskingScenario("NEEDS_CONTEXT") },
		"asking: BLOCKED":                    func() Scenario { return AskingScenario("BLOCKED") },
		"asking: DONE_WITH_CONCERNS":         func() Scenario { return AskingScenario("DONE_WITH_CONCERNS") },
		"a check that fails":                 CheckFailsScenario,
		"a stubborn finding, parked":         func() Scenario { return StubbornScenario(9, "park: the brief allows either spelling") },
		"a stubborn finding, blocking":       func() Scenario { return StubbornScenario(9, "block: Task 3 reads bye.txt") },
		"the final review's finding":         func() Scenario { return FinalDefectScenario(1, "") },
		"a deferred minor reopened":          ReopenScenario,
		"a disputed finding":                 MicroDisputeScenario,
		"a fix that breaks another file":     BreakingFixScenario,
		"micro-tasks":                        MicroScenario,
		"micro-tasks, Task 7 needs judgment": MicroJudgmentScenario,
		"a plan with a contradiction":        ContradictionScenario,
	}
}

// Contradiction is what the controller of ContradictionScenario finds the
// plan contradicts itself in, before Task 1.
const Contradiction = "Task 3 lists bye.txt, which Task 2 may name otherwise: which name holds?"

// ContradictionScenario is the walk-through whose plan the controller
// finds contradicts itself (Contradiction): a question before Task 1.
func ContradictionScenario() Scenario {
	sc := WalkScenario()
	sc.Contradictions = []string{Contradiction}
	return sc
}
