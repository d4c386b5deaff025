package e2e

// OUTFILEs that are the process's own descriptors (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N: docs/spec.md diff3, revision of
// 2026-12-03): whatever the kernel finds there is written, through the
// descriptor's file, never replaced by name. And signals at the moment an
// output gets its name (every-signals).

import (
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
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	require.NoError(t, err)
	_, err = syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE|syscall.IN_MOVED_TO)
	require.NoError(t, err)
	names := make(chan string, 1024)
	go func() {
		buf := make([]byte, 64*1024)
		for {
			n, err := syscall.Read(fd, buf)
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
	t.Cleanup(func() { syscall.Close(fd) })
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
		// runs.
		deadline := time.Now().Add(2 * time.Second)
		runs, caught := 0, 0
		for runs < 200 && time.Now().Before(deadline) {
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
	builds := testutil.OutputBuilds(t)
	require.Len(t, builds, 2)
	for _, b := range builds {
		r := testutil.NewRepo(t)
		r.Write("plan.md", twoTasks)
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
		var seen []string
		for {
			select {
			case n := <-names:
				seen = append(seen, n)
				continue
			case <-time.After(100 * time.Millisecond):
			}
			break
		}
		named := len(seen) > 0 && strings.HasPrefix(seen[0], ".sdd-")
		assert.Equal(t, b.Name == "named-temps", named, "%s made %v", b.Name, seen)
		assert.Contains(t, seen, "new.md")
	}
}
