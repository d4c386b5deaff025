package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

var installer struct {
	once sync.Once
	bin  string // the installer, built once per process
	cmds string // the commands' binaries, as they ship
	err  error
}

// Install installs sdd-go for a host (claude-code, codex, opencode, …)
// into home the way a user does: the project's installer
// (scripts/install-skill, built once per process) runs with HOME set to
// home, the installer's args (--host …, --dir …), and the commands as
// they ship (testutil's build, passed with --bin, so nothing is compiled
// twice). env are more variables of its environment, such as the
// CODEX_HOME or XDG_CONFIG_HOME that says where that host looks.
func Install(t testing.TB, home string, args []string, env ...string) {
	t.Helper()
	installer.once.Do(func() {
		if installer.cmds, installer.err = testutil.BuildBinaries(); installer.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "sdd-installer-")
		if err != nil {
			installer.err = err
			return
		}
		installer.bin = filepath.Join(dir, ship.BinaryName("install-skill", runtime.GOOS))
		cmd := exec.Command("go", "build", "-o", installer.bin, "./scripts/install-skill")
		cmd.Dir = testutil.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			installer.err = fmt.Errorf("go build ./scripts/install-skill: %v\n%s", err, out)
		}
	})
	if installer.err != nil {
		t.Fatal(installer.err)
	}
	args = append(slices.Clone(args), "--bin", installer.cmds)
	cmd := exec.Command(installer.bin, args...)
	cmd.Dir = testutil.ModuleRoot()
	cmd.Env = append(append(os.Environ(), "HOME="+home, "USERPROFILE="+home, "CODEX_HOME=", "XDG_CONFIG_HOME=", "COPILOT_HOME=", "GEMINI_CLI_HOME="), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install-skill %v: %v\n%s", args, err, out)
	}
}

// Main is a host suite's TestMain: it runs the tests, then removes the
// installer Install built and the commands testutil built, if any.
func Main(m *testing.M) {
	code := m.Run()
	if installer.bin != "" {
		os.RemoveAll(filepath.Dir(installer.bin))
	}
	testutil.CleanupBinaries()
	os.Exit(code)
}

// SystemPath is the PATH a session gets: the directories of git, sh and
// bash (the shell tools' shell) and of more (rg for OpenCode), and
// nothing else, so a command of ours can only be found where the install
// put it, never in GOPATH/bin or ~/go/bin. It fails the test if one of
// them holds a command of ours, or a program is missing.
func SystemPath(t testing.TB, more ...string) []string {
	t.Helper()
	var dirs []string
	for _, prog := range append([]string{"git", "sh", "bash"}, more...) {
		p, err := exec.LookPath(prog)
		if err != nil {
			t.Fatalf("a session needs %s: %v", prog, err)
		}
		if d := filepath.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for _, c := range ship.Commands {
			if _, err := os.Stat(filepath.Join(d, ship.BinaryName(c, runtime.GOOS))); err == nil {
				t.Fatalf("%s on the sessions' PATH holds %s: a session could not tell it from the installed one", d, c)
			}
		}
	}
	return dirs
}
