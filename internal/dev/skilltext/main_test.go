package skilltext

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/gitenv"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

var (
	moduleRoot string // the directory holding go.mod
	binDir     string // where TestMain built the commands
	buildErr   error  // why they could not be built, if so
)

// TestMain builds the real commands once, so the tests check the text
// against what the binaries actually do rather than a copy of their usage.
// Tests that need the binaries fail with buildErr when the build failed;
// the pure markdown tests run either way.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	moduleRoot = testutil.ModuleRoot()
	binDir, buildErr = testutil.ToolBinaries()
	defer testutil.CleanupBinaries()
	if buildErr == nil {
		for _, name := range ship.Commands {
			if _, err := os.Stat(binPath(name)); err != nil {
				buildErr = fmt.Errorf("go build ./cmd/... made no %s: %v", name, err)
			}
		}
	}
	return m.Run()
}

func binPath(name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(binDir, name)
}

func requireBinaries(t *testing.T) {
	t.Helper()
	require.NoError(t, buildErr, "the commands must build for this test")
}

// hermeticEnv is the environment for git and the commands in a test: the
// caller's, minus anything that would let the machine's git configuration
// or repository discovery leak in, with a throwaway HOME and a fixed
// identity.
func hermeticEnv(home string) []string { return gitenv.Hermetic(home) }

// result is what one process run produced.
type result struct {
	stdout, stderr string
	code           int
}

func runIn(t *testing.T, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	r := testutil.RunIn(dir, env, prog, args...)
	if r.Code == -1 {
		t.Fatalf("run %s %q: %s", prog, args, r.Stderr)
	}
	return result{stdout: r.Stdout, stderr: r.Stderr, code: r.Code}
}
