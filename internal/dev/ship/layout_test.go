package ship_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

const module = "github.com/sdd-go/sdd-go/"

// TestArchitectureTablesMatchTheTree: docs/architecture.md's product table
// names exactly the packages the shipped commands import (and those are
// exactly internal/'s folders but dev), and its tooling table has one row
// per folder of internal/dev and scripts, so a newcomer can name the
// product from the tree and the page alike.
func TestArchitectureTablesMatchTheTree(t *testing.T) {
	root := testutil.ModuleRoot()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	product, tooling := tableCells(t, string(doc), "## Product packages"), tableCells(t, string(doc), "## Tooling")

	var args []string
	for _, c := range ship.Commands {
		args = append(args, "./cmd/"+c)
	}
	out, err := exec.Command("go", append([]string{"list", "-C", root, "-deps"}, args...)...).Output()
	require.NoError(t, err)
	var imported []string
	for _, p := range strings.Fields(string(out)) {
		if rel, ok := strings.CutPrefix(p, module); ok && strings.HasPrefix(rel, "internal/") {
			imported = append(imported, rel)
		}
	}
	assert.ElementsMatch(t, imported, subdirs(t, root, "internal", "dev"), "the binaries import every product folder and only those")
	assert.ElementsMatch(t, imported, only(product, "internal/"), "the product table names the packages the binaries import")

	want := append(subdirs(t, root, "internal/dev"), subdirs(t, root, "scripts")...)
	for _, f := range mustGlob(t, filepath.Join(root, "scripts", "*.sh")) {
		want = append(want, "scripts/"+filepath.Base(f))
	}
	assert.ElementsMatch(t, want, only(tooling, "internal/dev/", "scripts/"), "the tooling table has one row per folder")
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// tableCells returns the code spans of the first cell of each row of the
// table under heading.
func tableCells(t *testing.T, doc, heading string) []string {
	t.Helper()
	i := strings.Index(doc, heading)
	require.GreaterOrEqual(t, i, 0, heading)
	var cells []string
	inTable := false
	for _, line := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		first := strings.Split(line, "|")[1]
		for _, m := range codeSpan.FindAllStringSubmatch(first, -1) {
			cells = append(cells, m[1])
		}
	}
	return cells
}

// only keeps the cells starting with one of prefixes.
func only(cells []string, prefixes ...string) []string {
	var out []string
	for _, c := range cells {
		for _, p := range prefixes {
			if strings.HasPrefix(c, p) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// subdirs lists dir's folders (relative to root, slash-separated), but skip.
func subdirs(t *testing.T, root, dir string, skip ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(skip, e.Name()) {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	return m
}
