package e2e

// Signals at the moment an output gets its name (every-signals), the
// temporary names each build makes, and an OUTFILE that is a mount point.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// inotifyCreates watches dir for new names and sends each on the channel
// until the test ends.
func inotifyCreates(t *testing.T, dir string) <-chan string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	require.NoError(t, err)
	_, err = syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_MOVED_TO)
	require.NoError(t, err)
	// A non-blocking fd wrapped in an os.File goes through the runtime's
	// poller, so Close wakes the reader and its number is not reused while
	// a read is pending. (A raw blocking read outlived the test's Close and
	// went on reading the number the next test's inotify was given,
	// stealing its events.)
	f := os.NewFile(uintptr(fd), "inotify")
	names := make(chan string, 1024)
	go func() {
		buf := make([]byte, 64*1024)
		for {
			n, err := f.Read(buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				names <- strings.TrimRight(string(name), "\x00")
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	return names
}

// No signal at any moment leaves a named temporary file: SIGTERM is sent
// the instant a .sdd-* name appears beside the OUTFILE (inotify), which is
// when one could be left: the unnamed output linked beside an existing
// target before the rename, or a named temporary file being written. Each
// run must end with the old file or the new one, complete, and no .sdd-*
// name.
func TestSignalWhenTheTemporaryFileIsNamed(t *testing.T) {
	eachBuild(t, func(t *testing.T, bins string) {
		r := testutil.NewRepo(t)
		r.Write("plan.md", longTask)
		dir := filepath.Join(r.Root, "out")
		require.NoError(t, os.Mkdir(dir, 0o755))
		out := filepath.Join(dir, "brief.md")
		names := inotifyCreates(t, dir)
		bin := filepath.Join(bins, "task-brief")
		// Before the fix, the shipped build left a name within 10 to 40
		// runs. It runs until the signal has met a name 11 times: a
		// loaded machine gets fewer runs a second, not fewer catches.
		deadline := time.Now().Add(30 * time.Second)
		runs, caught := 0, 0
		for runs < 200 && caught <= 10 && time.Now().Before(deadline) {
			runs++
			require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o644))
			for len(names) > 0 {
				<-names
			}
			cmd := exec.Command(bin, "plan.md", "1", "out/brief.md")
			cmd.Dir, cmd.Env = r.Root, r.Env
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
		wait:
			for {
				select {
				case name := <-names:
					if strings.HasPrefix(name, ".sdd-") {
						_ = cmd.Process.Signal(syscall.SIGTERM)
						caught++
						err = <-done
						break wait
					}
				case err = <-done:
					break wait
				}
			}
			if err != nil {
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee)
				ws := ee.Sys().(syscall.WaitStatus)
				require.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "run %d: %v", runs, err)
			}
			got := readFile(t, out)
			require.True(t, got == "old\n" || got == longBrief, "run %d: %q", runs, got)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "run %d left %v", runs, entries)
		}
		t.Logf("%d runs, %d signalled while a temporary name existed", runs, caught)
		require.Greater(t, caught, 10, "the signal must have met the named file")
	})
}

// The two builds differ as they should: writing a new file, the shipped
// one makes no temporary name at all (an unnamed file, linked in), the
// sdd_named_temps one makes a .sdd-* name first. (Without this, a tag that
// changed nothing would leave every test of the named path passing
// vacuously.)
func TestBuildsDifferInTheirTemporaryFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("make test runs the shipped build alone (testutil.OutputBuilds)")
	}
	builds := testutil.OutputBuilds(t)
	require.Len(t, builds, 2)
	for _, b := range builds {
		r := planRepo(t)
		dir := filepath.Join(r.Root, "out")
		require.NoError(t, os.Mkdir(dir, 0o755))
		const oTmpfile = 0x400000 | syscall.O_DIRECTORY // O_TMPFILE
		if fd, err := syscall.Open(dir, syscall.O_RDWR|oTmpfile, 0o600); err != nil {
			t.Skipf("no O_TMPFILE in %s (%v): both builds name their temporary files here", dir, err)
		} else {
			syscall.Close(fd)
		}
		names := inotifyCreates(t, dir)
		res := r.RunBuild(b.Dir, "", "task-brief", "plan.md", "1", "out/new.md")
		require.Equal(t, 0, res.Code, res.Stderr)
		// new.md's event is the last the command makes; wait for it rather
		// than for a quiet spell, which a loaded machine (CI runs the
		// packages side by side) can stretch past any short timer.
		var seen []string
		deadline := time.After(30 * time.Second)
	collect:
		for {
			select {
			case n := <-names:
				seen = append(seen, n)
				if n == "new.md" {
					break collect
				}
			case <-deadline:
				break collect
			}
		}
		named := len(seen) > 0 && strings.HasPrefix(seen[0], ".sdd-")
		assert.Equal(t, b.Name == "named-temps", named, "%s made %v", b.Name, seen)
		assert.Contains(t, seen, "new.md")
	}
}

// underBindMount runs bin with args in dir, in a mount namespace of its own
// where the file src is bind-mounted over mountPoint (a path relative to
// dir): a single-file mount, as containers and CI harnesses collect a
// result. The mount goes with the namespace when the command ends.
func underBindMount(t *testing.T, dir string, env []string, src, mountPoint, bin string, args ...string) testutil.Result {
	t.Helper()
	script := `mount --bind "$0" "$1" && shift && exec "$@"`
	return testutil.RunIn(dir, env, "unshare", append([]string{"-m", "sh", "-c", script, src, mountPoint, bin}, args...)...)
}

// Difference 3 (revision of 2026-12-04): an OUTFILE that is a mount point
// cannot be renamed over (EBUSY), so it is written in place with the
// finished output, as the shell's `>` writes it, exit 0, as the script
// succeeds there. A failure still keeps the old contents: a task that is
// not found, a git that fails part way (the script empties the file for
// the first and leaves part of a package for the second).
func TestOutfileThatIsAMountPoint(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount inside a mount namespace of its own")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	probe := testutil.RunIn(t.TempDir(), nil, "unshare", "-m", "true")
	if probe.Code != 0 {
		t.Skipf("unshare -m is not allowed here: %s", probe.Stderr)
	}
	r := testutil.NewRepo(t)
	base := twoCommits(r, longTask)
	pkg := packageOf(t, r, base)
	r.Write("out.md", "the mount point's own file\n")
	srcDir := testutil.RealTempDir(t)
	src := filepath.Join(srcDir, "collected.md")
	failing := withPath(r.Env, faultyGit(t, `"$REAL" "$@" | head -c 100; echo "fatal: injected failure" >&2; exit 7`))

	cases := []struct {
		name, cmd string
		args      []string
		env       []string
		code      int
		want      string // what src holds after, "" for its old contents
		stdout    string
	}{
		{"brief", "task-brief", []string{"plan.md", "1", "out.md"}, r.Env, 0, longBrief, "wrote out.md: 4 lines\n"},
		{"package", "review-package", []string{"plan.md", base, "HEAD", "out.md"}, r.Env, 0, pkg,
			fmt.Sprintf("wrote out.md: 1 commit(s), %d bytes\n", len(pkg))},
		{"task not found", "task-brief", []string{"plan.md", "9", "out.md"}, r.Env, 3, "", ""},
		{"git failing part way", "review-package", []string{"plan.md", base, "HEAD", "out.md"}, failing, 7, "", ""},
	}
	for _, b := range testutil.OutputBuilds(t) {
		for _, c := range cases {
			t.Run(b.Name+"/"+c.name, func(t *testing.T) {
				const old = "collected before\n"
				require.NoError(t, os.WriteFile(src, []byte(old), 0o644))
				res := underBindMount(t, r.Root, c.env, src, "out.md", filepath.Join(b.Dir, c.cmd), c.args...)
				assert.Equal(t, c.code, res.Code, res.Stderr)
				assert.Equal(t, c.stdout, res.Stdout)
				want := c.want
				if want == "" {
					want = old
				}
				assert.Equal(t, want, readFile(t, src), "the mounted file")
				assert.Equal(t, "the mount point's own file\n", readFile(t, filepath.Join(r.Root, "out.md")), "under the mount")
				assertNoTemps(t, r.Root)
				assertOnly(t, srcDir, "collected.md")
			})
		}
	}

	if ref := referenceScripts(t); ref != "" {
		// The reference writes a mounted OUTFILE through its `>`.
		for _, c := range cases[:2] {
			require.NoError(t, os.WriteFile(src, []byte("collected before\n"), 0o644))
			res := underBindMount(t, r.Root, c.env, src, "out.md", filepath.Join(ref, c.cmd), c.args...)
			assert.Equal(t, 0, res.Code, "the reference: %s", res.Stderr)
			assert.Equal(t, c.stdout, res.Stdout, "the reference")
			assert.Equal(t, c.want, readFile(t, src), "the reference")
		}
	}
}
