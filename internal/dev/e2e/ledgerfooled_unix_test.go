//go:build unix

package e2e

// The ledger cannot be fooled: the reproductions that need a Unix kernel
// (a file size limit, a mount namespace, a FIFO, a signal); the others
// are in ledgerfooled_test.go.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// Review item 1, ld3: a write cut short by the file size limit leaves the
// ledger byte for byte as it was (not a cut line that reads back as a
// whole, shorter one); the retried step then records each line once.
func TestLedgerWriteCutShortIsTakenBack(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for ulimit -f")
	}
	long := strings.Repeat("x", 3800)
	for _, c := range []struct {
		name string
		args []string
		want []string // lines the retry must record, each once
	}{
		{"close", []string{"close", "plan.md", "1", long, "second decision"},
			[]string{"Task 1: minor (deferred): m1", "Task 1: minor (deferred): m2", "Task 1: settled — " + long, "Task 1: settled — second decision"}},
		{"finding", []string{"finding", "plan.md", "1", long}, []string{"Task 1: finding — F1 " + long}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := atCheck(t, 2)
			before := l.ledger()
			// The limit (bash counts 1024-byte blocks) falls inside the
			// append: the kernel writes up to it, then refuses the rest.
			blocks := len(before)/1024 + 1
			script := fmt.Sprintf(`ulimit -f %d && exec "$0" "$@"`, blocks)
			res := testutil.RunIn(l.r.Root, l.r.Env, "bash", append([]string{"-c", script, testutil.Bin(t, "sdd-ledger")}, c.args...)...)
			require.Equal(t, 1, res.Code, "%s%s", res.Stdout, res.Stderr)
			assert.Equal(t, before, l.ledger(), "the cut write is taken back")
			assert.Equal(t, 1, strings.Count(res.Stderr, l.path()), "the ledger named once: %s", res.Stderr)
			assert.NotContains(t, res.Stdout, "recorded ")
			l.run(c.args...)
			for _, w := range c.want {
				assert.Equal(t, 1, strings.Count(l.ledger(), w+"\n"), "%q once", w)
			}
		})
	}
}

// ld3, start on a ledger that exists empty (a start cut short before its
// first line, or the file made by hand): a first line the kernel refuses
// is a failure, exit 1 naming the ledger, never "started". The plan's
// path is over the file size limit (1 KiB), so the first line that names
// it is cut; the workspace's other files are under it.
func TestLedgerStartOnAnEmptyLedgerFailsWithItsWrite(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for ulimit -f")
	}
	dir := strings.Repeat("d", 200)
	plan := strings.Repeat(dir+"/", 5) + "plan.md"
	r := testutil.NewRepo(t)
	r.Commit("plan", plan, "# Plan\n\n## Task 1: one\nWrite f1.txt.\n")
	r.Git("checkout", "-q", "-b", "feat")
	require.Equal(t, 0, r.Run("", "sdd-workspace", plan).Code)
	ledger := filepath.Join(ws(r, "plan"), "progress.md")
	require.NoError(t, os.WriteFile(ledger, nil, 0o644))

	res := testutil.RunIn(r.Root, r.Env, "bash", "-c", `ulimit -f 1 && exec "$0" "$@"`, testutil.Bin(t, "sdd-ledger"), "start", plan)
	assert.Equal(t, 1, res.Code, "%s%s", res.Stdout, res.Stderr)
	assert.Empty(t, res.Stdout)
	assert.Equal(t, "sdd-ledger: "+ledger+": file too large\n", res.Stderr)
	assert.Equal(t, "", readFile(t, ledger), "the cut first line taken back")
}

// Review item 1, ld3 with a full file system (tmpfs of 64 KiB, in a mount
// namespace of its own): ENOSPC part way through the write is taken back
// as the file size limit is.
func TestLedgerFullDiskLeavesTheLedgerAsItWas(t *testing.T) {
	t.Parallel()
	needMountNamespace(t)
	l := atCheck(t, 2)
	ws := ws(l.r, "plan")
	saved := filepath.Join(testutil.RealTempDir(t), "saved")
	require.NoError(t, os.Mkdir(saved, 0o755))
	long := strings.Repeat("y", 3800)
	// In the namespace: the workspace's files copied onto a tmpfs mounted
	// over it, the tmpfs filled but for 2 KiB, close run, the ledger
	// copied out.
	script := `set -e
ws=$0 saved=$1 bin=$2; shift 2
cp -a "$ws/." "$saved/"
mount -t tmpfs -o size=64k tmpfs "$ws"
cp -a "$saved/." "$ws/"
cp "$ws/progress.md" "$saved/before.md"
dd if=/dev/zero of="$ws/fill" bs=1k count=64 2>/dev/null || true
rm "$ws/fill"; dd if=/dev/zero of="$ws/fill" bs=1k count=$(( $(df -k --output=avail "$ws" | tail -1) - 2 )) 2>/dev/null || true
set +e
"$bin" "$@" >"$saved/out" 2>"$saved/err"; echo $? >"$saved/status"
cp "$ws/progress.md" "$saved/after.md"`
	res := testutil.RunIn(l.r.Root, l.r.Env, "unshare", "-m", "sh", "-c", script, ws, saved, testutil.Bin(t, "sdd-ledger"), "close", "plan.md", "1", long, "second decision")
	require.Equal(t, 0, res.Code, "%s%s", res.Stdout, res.Stderr)
	status := strings.TrimSpace(readFile(t, filepath.Join(saved, "status")))
	errOut := readFile(t, filepath.Join(saved, "err"))
	require.Equal(t, "1", status, errOut)
	assert.Contains(t, errOut, "no space left on device")
	assert.Equal(t, readFile(t, filepath.Join(saved, "before.md")), readFile(t, filepath.Join(saved, "after.md")))
}

func needMountNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount inside a mount namespace of its own")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	if probe := testutil.RunIn(t.TempDir(), nil, "unshare", "-m", "true"); probe.Code != 0 {
		t.Skipf("unshare -m is not allowed here: %s", probe.Stderr)
	}
}

// Review item 12, ld2/ld6: a FIFO where the ledger (or a review) should be
// never makes a verb wait: Look says what it is, the verbs refuse it.
func TestLedgerFIFOIsNotWaitedOn(t *testing.T) {
	t.Parallel()
	l := newLedgerRun(t, 2)
	l.r.Run("", "sdd-workspace", "plan.md")
	require.NoError(t, syscall.Mkfifo(l.path(), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	look := exec.CommandContext(ctx, testutil.Bin(t, "sdd-ledger"), "look", "plan.md", "main")
	look.Dir, look.Env = l.r.Root, l.r.Env
	out, err := look.Output()
	require.NoError(t, ctx.Err(), "look waits on a FIFO ledger (killed)")
	require.NoError(t, err)
	assert.Contains(t, string(out), "is a FIFO, not a regular file")
	res := l.r.Run("", "sdd-ledger", "block", "plan.md", "1", "x")
	assert.Equal(t, 4, res.Code, res.Stderr)
	// In a workspace the scripts made (no marker), resolution reads the
	// ledger's first line: a FIFO there is not waited on either.
	require.NoError(t, os.Remove(filepath.Join(ws(l.r, "plan"), "plan-path")))
	res = l.r.Run("", "sdd-workspace", "plan.md")
	assert.Equal(t, 0, res.Code, res.Stderr)
}

// Review item 1 with a signal, ld3: SIGTERM at any moment of a verb that
// writes leaves the ledger as it was or with all of the verb's lines,
// never a cut one. Each try sends it a little later.
func TestLedgerSignalNeverCutsALine(t *testing.T) {
	t.Parallel()
	l := atCheck(t, 2)
	before := l.ledger()
	args := []string{"close", "plan.md", "1"}
	for i := 0; i < 100; i++ {
		args = append(args, fmt.Sprintf("decision %d %s", i, strings.Repeat("z", 1000)))
	}
	// The signal comes 0, 5, 10 … 195 ms after the start: before, while
	// and after the verb writes. -short sweeps the same span in 20 ms
	// steps (a cut line shows at any moment inside the write).
	tries, step := 40, 5*time.Millisecond
	if testing.Short() {
		tries, step = 10, 20*time.Millisecond
	}
	whole, untouched := 0, 0
	for try := 0; try < tries; try++ {
		require.NoError(t, os.WriteFile(l.path(), []byte(before), 0o644))
		cmd := exec.Command(testutil.Bin(t, "sdd-ledger"), args...)
		cmd.Dir, cmd.Env = l.r.Root, l.r.Env
		require.NoError(t, cmd.Start())
		time.Sleep(time.Duration(try) * step)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		after := l.ledger()
		switch {
		case after == before:
			untouched++
			var ee *exec.ExitError
			if err != nil {
				require.ErrorAs(t, err, &ee)
				ws, _ := ee.Sys().(syscall.WaitStatus)
				assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "try %d: %v", try, err)
			}
		default:
			whole++
			require.True(t, strings.HasPrefix(after, before), "try %d: the ledger's first bytes changed", try)
			added := strings.TrimPrefix(after, before)
			require.True(t, strings.HasSuffix(added, "\n"), "try %d: a cut line", try)
			assert.Equal(t, 103, strings.Count(added, "\n"), "try %d: all of close's lines (2 minors, 100 decisions, complete)", try)
		}
	}
	t.Logf("%d tries left the ledger as it was, %d with the verb's lines whole", untouched, whole)
}

// A step reads the facts twice, before its lines (is the unit at its
// row?) and after them (the row it prints), but asks git once: a close at
// row check makes one cat-file call (which reads HEAD too) and two
// rev-list calls (the commits off the branch, the work after the last
// sha), where it made two, two and three.
func TestLedgerStepAsksGitOnce(t *testing.T) {
	t.Parallel()
	l := atCheck(t, 2)
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	wrapper := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$1\" >> '%s'\nexec '%s' \"$@\"\n", calls, real)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "git"), []byte(wrapper), 0o755))
	cmd := exec.Command(testutil.Bin(t, "sdd-ledger"), "close", "plan.md", "1")
	cmd.Dir, cmd.Env = l.r.Root, withPath(l.r.Env, dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), " row=done\n")
	asked := map[string]int{}
	for _, c := range strings.Fields(readFile(t, calls)) {
		asked[c]++
	}
	assert.Equal(t, 1, asked["cat-file"], "%v", asked)
	assert.Equal(t, 2, asked["rev-list"], "%v", asked)
}
