package harness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
)

// What the host suites' scenarios read of a run, the same on every host.

// PerTask splits a controller's calls (the text's names: Bash, Read,
// Agent, …) at the calls that start each task (sdd-ledger task) and the
// final review (sdd-ledger final): the calls of setup, of each task, and
// of the final review, its last words (a Say) not counted.
func PerTask(calls []follower.Call, tasks int) (setup int, each []int, final int) {
	start := func(marker string) int {
		for i, c := range calls {
			if c.Tool == "Bash" && strings.Contains(follower.ByName(c.Input), marker) {
				return i
			}
		}
		return -1
	}
	var starts []int
	for n := 1; n <= tasks; n++ {
		starts = append(starts, start(fmt.Sprintf("sdd-ledger task '%s' %d", follower.WalkPlanPath, n)))
	}
	end := len(calls)
	if end > 0 && calls[end-1].Tool == "Say" {
		end--
	}
	starts = append(starts, start("sdd-ledger final "), end)
	for n := 0; n < tasks; n++ {
		each = append(each, starts[n+1]-starts[n])
	}
	return starts[0], each, starts[tasks+1] - starts[tasks]
}

var stepModelRe = regexp.MustCompile(` \([a-z0-9-]*\)$`)

// WithoutModel is a step of follower.Resumes without the model a
// dispatch names ("Agent fix 2 (sonnet)" is "Agent fix 2"): on a host
// where every agent runs on the session's model.
func WithoutModel(step string) string {
	if !strings.HasPrefix(step, "Agent ") {
		return step
	}
	return stepModelRe.ReplaceAllString(step, "")
}

// LookRow is the row on the next: line of a Look's output.
func LookRow(output string) (string, bool) {
	for _, l := range strings.Split(output, "\n") {
		if n, ok := strings.CutPrefix(l, "next: "); ok {
			_, row, _ := strings.Cut(n, "row=")
			return strings.TrimSpace(row), true
		}
	}
	return "", false
}
