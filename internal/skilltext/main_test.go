package skilltext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// commandNames are the binaries the skill text calls.
var commandNames = []string{"sdd-workspace", "task-brief", "review-package"}

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
	var err error
	moduleRoot, err = findModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "skilltext-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binDir = tmp
	cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = moduleRoot
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		buildErr = fmt.Errorf("go build ./cmd/...: %v\n%s", err, out.String())
	} else {
		for _, name := range commandNames {
			if _, err := os.Stat(binPath(name)); err != nil {
				buildErr = fmt.Errorf("go build ./cmd/... made no %s: %v", name, err)
			}
		}
	}
	return m.Run()
}

func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
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

// readSkillFile reads a file of the skill directory.
func readSkillFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "skill", name))
	require.NoError(t, err)
	return string(b)
}

// skillFiles lists the markdown files of skill/.
func skillFiles(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(moduleRoot, "skill"))
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	require.Contains(t, out, "SKILL.md")
	return out
}

// hermeticEnv is the environment for git and the commands in a test: the
// caller's, minus anything that would let the machine's git configuration
// or repository discovery leak in, with a throwaway HOME and a fixed
// identity.
func hermeticEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(strings.ToUpper(k), "GIT_"),
			k == "HOME", k == "USERPROFILE", k == "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"USERPROFILE="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"),
		"GIT_AUTHOR_NAME=SDD Test",
		"GIT_AUTHOR_EMAIL=sdd@example.invalid",
		"GIT_COMMITTER_NAME=SDD Test",
		"GIT_COMMITTER_EMAIL=sdd@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
	)
}

// result is what one process run produced.
type result struct {
	stdout, stderr string
	code           int
}

func runIn(t *testing.T, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run %s %q: %v", prog, args, err)
	}
	return r
}
