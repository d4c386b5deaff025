package host

import (
	"os"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestMain removes the commands and the installer InstallPlugin built.
func TestMain(m *testing.M) {
	code := m.Run()
	testutil.CleanupBinaries()
	RemoveInstaller()
	os.Exit(code)
}
