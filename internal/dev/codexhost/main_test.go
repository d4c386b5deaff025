package codexhost

import (
	"os"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/host"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestMain removes the commands testutil built and the installer
// InstallSkill built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	host.RemoveInstaller()
	os.Exit(code)
}
