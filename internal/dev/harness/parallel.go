package harness

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// parallel: tasks side by side in the real CLI (issue 38). The human
// answered two at a time; Tasks 1 and 2 of follower.SidePlan need
// nothing of each other: each starts in its own worktree, their
// implementers are dispatched in one message and run at once, each is
// reviewed from its own package (Task 2 with its fix round) and joined
// at its close; Task 3 starts once both have. The ledger records each
// task's branch and join, the branch holds every task's commits, and no
// call of the session waited for a person.
func parallel(t *testing.T, h Host) {
	implementer := func(n int) string { return fmt.Sprintf("You implement Task %d ", n) }
	// The implementers' first requests meet: a host running them at once
	// overlaps them however late its second starts (a Pi subagent's
	// process compiles its extension first; on a loaded machine the
	// other's whole conversation once ran meanwhile). One run after the
	// other is held up 30 s, then fails below.
	meet := func(s *Sessions) { s.Server.Meet(30*time.Second, implementer(1), implementer(2)) }
	repo, s, keep, p := carryOut(t, h, follower.SideScenario(2), meet)
	checkCalls(t, h, s, p)

	together := 0
	for _, st := range p.Controller() {
		if st.Together && len(st.Calls) > 0 {
			together++
		}
	}
	t.Logf("side by side in the real CLI: dispatches %v, %d sendings of several dispatches, %d requests, session %v",
		dispatchesOf(p), together, len(s.Server.Requests()), p.Elapsed.Round(time.Millisecond))
	assert.Positive(t, together, "no dispatches went side by side")
	// At once: the two implementers' conversations' requests overlap in
	// time (a host that ran them one after the other would serve all of
	// one before the first of the other).
	span := map[int][2]int{}
	for _, r := range s.Server.Requests() {
		for _, n := range []int{1, 2} {
			if strings.HasPrefix(r.Prompt, implementer(n)) {
				sp, ok := span[n]
				if !ok {
					sp = [2]int{r.Seq, r.Seq}
				}
				sp[0], sp[1] = min(sp[0], r.Seq), max(sp[1], r.Seq)
				span[n] = sp
			}
		}
	}
	t.Logf("the implementers' requests: Task 1 %v, Task 2 %v", span[1], span[2])
	assert.True(t, span[1][0] < span[2][1] && span[2][0] < span[1][1], "the implementers of Tasks 1 and 2 ran one after the other: requests %v and %v", span[1], span[2])

	ledger := finished(t, p, keep, follower.Workspace(follower.SidePlanPath))
	for n := 1; n <= 3; n++ {
		for _, want := range []string{
			fmt.Sprintf("\nTask %d: branch=sdd/greet-side/task-%d\n", n, n),
			fmt.Sprintf("\nTask %d: joined=", n),
			fmt.Sprintf("\nTask %d: complete (commits ", n),
		} {
			assert.Contains(t, ledger, want)
		}
	}
	got := strings.Split(testutil.Git(t, repo, "log", "--no-merges", "--format=%s", "main..HEAD"), "\n")
	slices.Sort(got)
	assert.Equal(t, []string{"Task 1: check1.sh", "Task 1: greet.txt", "Task 2: bye.txt", "Task 2: fix F1", "Task 3: index.txt"}, got, "every task's commits on the branch")
	assert.Equal(t, "", testutil.Git(t, repo, "branch", "--list", "sdd/*"), "every task's branch removed once joined")
	require.Equal(t, "", testutil.Git(t, repo, "status", "--porcelain"))
}
