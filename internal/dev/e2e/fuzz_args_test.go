//go:build !windows

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
	"github.com/sdd-go/sdd-go/internal/exit"
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

// devicePath matches the device paths an argument may name: the standard
// descriptors under their /dev names, /dev/fd/N (the binary's own
// descriptors, whatever they are) and /dev/null.
var devicePath = regexp.MustCompile(`^/dev/(stdin|stdout|stderr|null|fd/[0-9]*)/?$`)

// toStdout matches an OUTFILE that is the command's stdout: stdout then
// carries the output before the success line.
var toStdout = regexp.MustCompile(`^/dev/(stdout|fd/0*1)$`)

// openDevice matches the device paths that are always open for writing in
// the fuzzer's runs (stdin is /dev/null, stdout and stderr are pipes).
var openDevice = regexp.MustCompile(`^/dev/(stdin|stdout|stderr|null|fd/0*[012])$`)

// outfile is the OUTFILE among args, "" when there is none.
func outfile(name string, args []string) string {
	switch {
	case name == "task-brief" && len(args) == 3:
		return args[2]
	case name == "review-package" && len(args) == 4:
		return args[3]
	}
	return ""
}

// FuzzArguments throws arbitrary argument lists at the three real binaries
// in a scratch repository and checks: no panic, a documented exit status,
// and stdout either empty or the one documented line (after the output
// itself, when the OUTFILE is stdout). Arguments that could reach outside
// the fuzzer's own directory are left out, since the fuzzer runs as
// whatever user runs the tests: "..", "~", and absolute paths other than
// the device paths (devicePath) and paths inside the fuzzer's directory.
func FuzzArguments(f *testing.F) {
	r := testutil.NewRepo(f)
	r.Write("plan.md", twoTasks)
	r.Commit("one", "f.txt", "1\n")
	r.Commit("two", "f.txt", "2\n")
	r.Write("sub/.keep", "")
	scratch := filepath.Dir(r.Root)

	f.Add(uint8(0), "plan.md", "", "", "", uint8(1))
	f.Add(uint8(1), "plan.md", "1", "out.md", "", uint8(3))
	f.Add(uint8(1), "plan.md", "1.", "", "", uint8(2))
	f.Add(uint8(2), "plan.md", "HEAD~1", "HEAD", "pkg.diff", uint8(4))
	f.Add(uint8(2), "plan.md", "--all", "HEAD", "", uint8(3))
	f.Add(uint8(0), "-h", "", "", "", uint8(1))
	f.Add(uint8(2), "plan.md", "HEAD:f.txt", "HEAD", "x", uint8(4))
	for _, out := range []string{"/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/null", "/dev/fd/1", "/dev/fd/2", "/dev/fd/3", "/dev/fd/9", "/dev/fd/", "/dev/stdout/", r.Root + "/abs.md", r.Root + "/sub/", r.Root + "/nodir/x.md"} {
		f.Add(uint8(1), "plan.md", "1", out, "", uint8(3))
		f.Add(uint8(2), "plan.md", "HEAD~1", "HEAD", out, uint8(4))
	}
	f.Add(uint8(1), r.Root+"/plan.md", "2", r.Root+"/sub/out.md", "", uint8(3))
	f.Add(uint8(0), "/dev/stdin", "", "", "", uint8(1))
	bins, err := testutil.BuildBinaries()
	if err != nil {
		f.Fatal(err)
	}
	// The binaries may write to /dev/fd/N: their own descriptors only.
	// A fuzzing worker holds its pipes to the coordinator on descriptors it
	// inherited, which Go does not mark close-on-exec; mark them, so that
	// no binary inherits them.
	for fd := 3; fd < 256; fd++ {
		syscall.CloseOnExec(fd)
	}
	f.Fuzz(func(t *testing.T, which uint8, a0, a1, a2, a3 string, n uint8) {
		name := ship.Commands[int(which)%3]
		args := []string{a0, a1, a2, a3}[:int(n)%5]
		stdoutOut := false
		for _, a := range args {
			if strings.Contains(a, "..") || strings.ContainsRune(a, 0) || strings.HasPrefix(a, "~") ||
				filepath.IsAbs(a) && !devicePath.MatchString(a) && !strings.HasPrefix(a, scratch+"/") {
				t.Skip("could reach outside the fuzzer's directory")
			}
			stdoutOut = stdoutOut || toStdout.MatchString(a)
		}
		res := testutil.RunIn(r.Root, r.Env, filepath.Join(bins, name), args...)
		if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "goroutine ") {
			t.Fatalf("%s %q panicked:\n%s", name, args, res.Stderr)
		}
		if !documentedStatus[res.Code] {
			t.Fatalf("%s %q: undocumented status %d\n%s", name, args, res.Code, res.Stderr)
		}
		if out := outfile(name, args); runtime.GOOS == "linux" && openDevice.MatchString(out) && res.Code == exit.IO {
			t.Fatalf("%s %q: an OUTFILE that is an open descriptor cannot fail:\n%s", name, args, res.Stderr)
		}
		stdout := res.Stdout
		if stdoutOut && res.Code == 0 {
			// The output, then the success line.
			body := strings.TrimSuffix(stdout, "\n")
			stdout = stdout[strings.LastIndex(body, "\n")+1:]
		}
		switch {
		case stdout == "":
		case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version"):
		case res.Code == 0 && successLine[name].MatchString(stdout):
		default:
			t.Fatalf("%s %q: stdout is not the one documented line: %q", name, args, res.Stdout)
		}
		// Keep the scratch repository as it started.
		_ = os.RemoveAll(filepath.Join(r.Root, ".superpowers"))
	})
}
