package opencodehost

import (
	"os"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestMain removes the commands InstallSkill had testutil build, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	os.Exit(code)
}
