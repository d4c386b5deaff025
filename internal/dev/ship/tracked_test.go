package ship_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// executableMagic are the first bytes of the build outputs this project
// makes (ELF for Linux, PE for Windows, Mach-O for macOS, both byte orders
// and the universal form) and of the archives it releases.
var executableMagic = [][]byte{
	[]byte("\x7fELF"),
	[]byte("MZ"),
	{0xcf, 0xfa, 0xed, 0xfe}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xfe, 0xed, 0xfa, 0xce},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("PK\x03\x04"),
	{0x1f, 0x8b},
}

// TestNoBuildOutputIsTracked fails when git tracks a binary or an archive:
// build outputs belong in the ignored bin/ and dist/ (a 4 MB executable
// named dist once sat at the root and broke make dist).
func TestNoBuildOutputIsTracked(t *testing.T) {
	root := testutil.ModuleRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing is tracked", err)
	}
	var bad []string
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		head, err := readHead(filepath.Join(root, name), 4)
		if err != nil {
			continue // deleted in the work tree, or a submodule
		}
		for _, m := range executableMagic {
			if bytes.HasPrefix(head, m) {
				bad = append(bad, name)
				break
			}
		}
	}
	assert.Empty(t, bad, "build outputs tracked by git; remove them (git rm --cached) and keep them in bin/ or dist/")
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return b[:k], nil
}
