package follower

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/ledger"
)

// TestEveryRowHasAResume: each row of the state table is the row Look
// names in some resume state, which both executors run to a step the
// commands accept or to a stop for the human (skilltext's
// TestResumeTable; the host suites): no row is named and then refused for
// ever. The rows without one are never the row Look names first.
func TestEveryRowHasAResume(t *testing.T) {
	never := map[ledger.Row]string{
		ledger.RowDone:    "a done unit is passed over: Look names the first unit not done",
		ledger.RowBatched: "a batched unit follows its batch's first task, which Look names first",
		ledger.RowForeign: "the ledger as a whole: skilltext's TestResumeForeignLedger and each host's ForeignLedger",
	}
	has := map[string]bool{}
	for _, r := range Resumes() {
		has[r.Row] = true
	}
	for _, r := range ledger.Rows() {
		if why, ok := never[r]; ok {
			assert.False(t, has[r.String()], "row %s has a resume state now: take it out of never (%s)", r, why)
			continue
		}
		assert.True(t, has[r.String()], "row %s has no resume state in Resumes()", r)
	}
}
