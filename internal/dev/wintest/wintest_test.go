//go:build windows

package wintest

// The Windows-only end-to-end cases: testscripts under testdata/script,
// run against the real .exe files and git. make test-windows runs them under
// Wine (scripts/wintest), with binaries cross-built on Linux and the
// stand-in git.exe relaying to the Linux git; on a Windows machine
// `go test ./internal/dev/wintest` builds the binaries and uses Git for Windows,
// and the cases that need the stand-in's other git spellings skip ([relay]).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/sdd-go/sdd-go/internal/dev/wintest/relay"
)

var update = flag.Bool("update", false, "rewrite testscript golden files")

// sleeperEnv makes a copy of this test binary stand in for a long-running
// command: see cmdSleepers.
const sleeperEnv = "SDD_WINTEST_SLEEPER"

var binDir string

func TestMain(m *testing.M) {
	if name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"); slices.Contains(ship.Commands, name) && os.Getenv(sleeperEnv) != "" {
		// A stand-in for an old binary that is still running.
		fmt.Println("sleeping", name)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	testutil.MainWithBinaries(m, func(dir string) error {
		binDir = dir
		if os.Getenv(testutil.BinDirEnv) != "" {
			return nil
		}
		return buildInstaller(dir)
	})
}

// buildInstaller adds install-skill.exe to the binaries BuildBinaries made
// (under Wine the harness built it with the rest).
func buildInstaller(dir string) error {
	b := ship.Build{Root: testutil.ModuleRoot(), Out: dir, Race: testutil.RaceEnabled,
		Only: []string{}, Extra: []string{"./scripts/install-skill"}}
	return b.Run(context.Background())
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup:               func(env *testscript.Env) error { return testutil.ScriptEnv(env, binDir) },
		Condition: func(cond string) (bool, error) {
			if cond == "relay" {
				return underRelay(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":   testutil.StatusCmd,
			"unescape": cmdUnescape,
			"entries":  testutil.EntriesCmd,
			"hold":     cmdHold,
			"release":  cmdRelease,
			"sleepers": cmdSleepers,
		},
	})
}

// underRelay reports whether the git on PATH is the harness's stand-in,
// which can imitate the MSYS, Cygwin and mount spellings of the top level.
func underRelay() bool {
	git, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(filepath.Dir(git), relay.AddrFile))
	return err == nil
}

// cmdUnescape writes DST from SRC with the escapes \r, \n, \t, \\ and \xHH
// turned into bytes and SRC's own line ends dropped, so a txtar (text, LF,
// checked out as such on every OS) can hold a CRLF plan, a package with
// carriage returns or a file without a final newline, one line per line:
//
//	unescape plan.txt plan.md
func cmdUnescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unescape SRC DST")
	}
	src := ts.ReadFile(args[0])
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			continue
		}
		if src[i] != '\\' || i+1 == len(src) {
			b.WriteByte(src[i])
			continue
		}
		i++
		switch src[i] {
		case 'r':
			b.WriteByte('\r')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		case 'x':
			if i+2 >= len(src) {
				ts.Fatalf("unescape: short \\x")
			}
			v, err := strconv.ParseUint(src[i+1:i+3], 16, 8)
			ts.Check(err)
			b.WriteByte(byte(v))
			i += 2
		default:
			ts.Fatalf("unescape: unknown escape \\%c", src[i])
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o666))
}

// held are the files cmdHold keeps open, by the script's name for them.
var held = struct {
	sync.Mutex
	m map[string]syscall.Handle
}{m: map[string]syscall.Handle{}}

// cmdHold opens FILE as an editor or a virus scanner does: sharing reads
// and writes but not deletion, so no rename can replace it while it is
// open. With a duration it lets go by itself after that long:
//
//	hold out.md          (until `release out.md`)
//	hold out.md 400ms
func cmdHold(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: hold FILE [DURATION]")
	}
	p, err := syscall.UTF16PtrFromString(ts.MkAbs(args[0]))
	ts.Check(err)
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ, syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE,
		nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	ts.Check(err)
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		time.AfterFunc(d, func() { syscall.CloseHandle(h) })
		return
	}
	key := ts.MkAbs(args[0])
	held.Lock()
	held.m[key] = h
	held.Unlock()
	ts.Defer(func() { release(key) })
}

func cmdRelease(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: release FILE")
	}
	if !release(ts.MkAbs(args[0])) {
		ts.Fatalf("release: %s is not held", args[0])
	}
}

func release(key string) bool {
	held.Lock()
	defer held.Unlock()
	h, ok := held.m[key]
	if ok {
		syscall.CloseHandle(h)
		delete(held.m, key)
	}
	return ok
}

// cmdSleepers fills DIR with copies of this test binary named after the
// three commands; started with $SDD_WINTEST_SLEEPER set, each just sleeps,
// standing in for an old binary still running while it is replaced:
//
//	sleepers old
func cmdSleepers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleepers DIR")
	}
	self, err := os.Executable()
	ts.Check(err)
	b, err := os.ReadFile(self)
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o777))
	for _, name := range ship.DropIns {
		ts.Check(os.WriteFile(filepath.Join(dir, name+".exe"), b, 0o777))
	}
}
