package copilothost

import (
	"os"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestMain removes the installer and the commands InstallSkill had built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	harness.RemoveInstaller()
	testutil.CleanupBinaries()
	os.Exit(code)
}
