package opencodehost

import (
	"os"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/host"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestMain removes the installer and the commands InstallSkill had built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	host.RemoveInstaller()
	testutil.CleanupBinaries()
	os.Exit(code)
}
