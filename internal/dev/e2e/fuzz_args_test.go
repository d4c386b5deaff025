//go:build !windows

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// The statuses a command may end with on any arguments, in a repository
// where git works: 0, 1 (I/O), 2 (usage), 3 (task not found), and git's own
// 128/129 (an unknown or unusable revision in a well-formed range).
var documentedStatus = map[int]bool{0: true, 1: true, 2: true, 3: true, 128: true, 129: true}

var successLine = map[string]*regexp.Regexp{
	"sdd-workspace":  regexp.MustCompile(`(?s)^/.*\n$`),
	"task-brief":     regexp.MustCompile(`(?s)^wrote .*: [1-9][0-9]* lines\n$`),
	"review-package": regexp.MustCompile(`(?s)^wrote .*: [0-9]+ commit\(s\), [0-9]+ bytes\n$`),
}

// FuzzArguments throws arbitrary argument lists at the three real binaries
// in a scratch repository and checks: no panic, a documented exit status,
// and stdout either empty or the one documented line. Arguments that could
// reach outside the scratch directory (absolute paths, "..") are left out:
// the fuzzer runs as whatever user runs the tests.
func FuzzArguments(f *testing.F) {
	f.Add(uint8(0), "plan.md", "", "", "", uint8(1))
	f.Add(uint8(1), "plan.md", "1", "out.md", "", uint8(3))
	f.Add(uint8(1), "plan.md", "1.", "", "", uint8(2))
	f.Add(uint8(2), "plan.md", "HEAD~1", "HEAD", "pkg.diff", uint8(4))
	f.Add(uint8(2), "plan.md", "--all", "HEAD", "", uint8(3))
	f.Add(uint8(0), "-h", "", "", "", uint8(1))
	f.Add(uint8(2), "plan.md", "HEAD:f.txt", "HEAD", "x", uint8(4))
	r := testutil.NewRepo(f)
	r.Write("plan.md", twoTasks)
	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	r.Write("sub/.keep", "")
	bins, err := testutil.BuildBinaries()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, a0, a1, a2, a3 string, n uint8) {
		name := ship.Commands[int(which)%3]
		args := []string{a0, a1, a2, a3}[:int(n)%5]
		for _, a := range args {
			if strings.Contains(a, "..") || filepath.IsAbs(a) || strings.ContainsRune(a, 0) || strings.HasPrefix(a, "~") {
				t.Skip("could reach outside the scratch repository")
			}
		}
		res := testutil.RunIn(r.Root, r.Env, filepath.Join(bins, name), args...)
		if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "goroutine ") {
			t.Fatalf("%s %q panicked:\n%s", name, args, res.Stderr)
		}
		if !documentedStatus[res.Code] {
			t.Fatalf("%s %q: undocumented status %d\n%s", name, args, res.Code, res.Stderr)
		}
		switch {
		case res.Stdout == "":
		case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version"):
		case res.Code == 0 && successLine[name].MatchString(res.Stdout):
		default:
			t.Fatalf("%s %q: stdout is not the one documented line: %q", name, args, res.Stdout)
		}
		// Keep the scratch repository as it started.
		_ = os.RemoveAll(filepath.Join(r.Root, ".superpowers"))
	})
}
