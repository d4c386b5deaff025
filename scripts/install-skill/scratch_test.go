package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, c.Run())
	return c.Process.Pid
}

// TestStaleTemporariesAreRemoved: the temporaries of a run killed outright
// (SIGKILL, a crash: nothing could remove them) are removed by the next
// install, and by --uninstall, in every folder of the install: this
// installer's, named with the pid of a process that has ended, and the
// previous installer's (.<name>.tmp-<digits>) beside a file of the
// install. A temporary of a process that is still running is left, and so
// is a file of the user's that only looks like one.
func TestStaleTemporariesAreRemoved(t *testing.T) {
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			h := newHarness(t)
			code, _, stderr := h.run("--host", host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			place := h.placeOf(host)
			dead, live := deadPid(t), os.Getppid()
			stale := map[string]string{
				"bin/.sdd-ledger" + tempMark + fmt.Sprint(dead) + "-1":  "half a binary",
				"." + manifestName + tempMark + fmt.Sprint(dead) + "-7": "half a manifest",
				"bin/.task-brief.tmp-1234567":                           "the previous installer's",
				".LICENSE.tmp-42":                                       "the previous installer's",
			}
			kept := map[string]string{
				"bin/.sdd-workspace" + tempMark + fmt.Sprint(live) + "-1": "another run's, still going",
				".my-notes.md.tmp-5": "the user's",
			}
			for rel, body := range mergeMaps(stale, kept) {
				require.NoError(t, os.WriteFile(filepath.Join(place, filepath.FromSlash(rel)), []byte(body), 0o644))
			}

			writeFakeBinaries(t, h.bin, h.goos, "v2")
			code, _, stderr = h.run("--host", host, "--bin", h.bin)
			require.Equal(t, 0, code, stderr)
			got := readTree(t, place)
			for rel := range stale {
				assert.NotContains(t, got, rel, "removed by the install")
			}
			for rel, body := range kept {
				assert.Equal(t, body, got[rel], "left")
			}

			for rel, body := range stale {
				require.NoError(t, os.WriteFile(filepath.Join(place, filepath.FromSlash(rel)), []byte(body), 0o644))
			}
			code, _, stderr = h.run("--host", host, "--uninstall")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, kept, readTree(t, place), "--uninstall removed the rest")
		})
	}
}

func mergeMaps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
