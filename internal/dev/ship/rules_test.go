package ship_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestEveryRuleHasATest holds docs/spec.md's rules to the tests by name
// (the convention is spec.md's, under "Conventions"), so that no index
// of rules and tests is kept by hand: every rule has a testscript
// rule_<id>_….txtar or a Go test whose comment names it, and every
// rule_ script names a rule of spec.md or one of its groups.
func TestEveryRuleHasATest(t *testing.T) {
	root := testutil.ModuleRoot()
	spec, err := os.ReadFile(filepath.Join(root, "docs", "spec.md"))
	require.NoError(t, err)
	ids := ruleIDs(string(spec))
	require.NotEmpty(t, ids, "no rule found in docs/spec.md")
	groups := map[string]bool{}
	for _, id := range ids {
		groups[ruleGroup(id)] = true
	}

	tested := map[string]bool{}
	scripts, err := filepath.Glob(filepath.Join(root, "internal", "dev", "e2e", "testdata", "script", "rule_*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, s := range scripts {
		name := filepath.Base(s)
		id, group := scriptRule(name, ids)
		switch {
		case id != "":
			tested[id] = true
		case !groups[group]:
			t.Errorf("%s names no rule of docs/spec.md (rule_<id>_… or rule_<group>_…, groups %v)", name, slices.Sorted(maps.Keys(groups)))
		}
	}
	for id := range citedByGoTests(t, root, ids) {
		tested[id] = true
	}

	for _, id := range ids {
		if !tested[id] {
			t.Errorf("rule %s of docs/spec.md has no test that names it: no testscript rule_%s_….txtar and no Go test whose comment cites %s", id, strings.ReplaceAll(id, "-", "_"), id)
		}
	}
}

var ruleAnchor = regexp.MustCompile(`(?m)^<a id="([a-z0-9-]+)"></a>\n\*\*([a-z0-9-]+)\. `)

// ruleIDs are the ids of spec.md's rules: an anchor followed by the rule's
// bold label.
func ruleIDs(spec string) []string {
	var ids []string
	for _, m := range ruleAnchor.FindAllStringSubmatch(spec, -1) {
		if m[1] == m[2] {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// ruleGroup is the family a rule belongs to: ws for ws3, every for
// every-git, diff for diff12.
func ruleGroup(id string) string {
	g, _, _ := strings.Cut(id, "-")
	return strings.TrimRight(g, "0123456789")
}

// scriptRule reads a testscript's name, rule_<id>_<what>.txtar, the id's
// dashes written as underscores: the longest run of its words that is a
// rule's id, or else its first word, a group.
func scriptRule(name string, ids []string) (id, group string) {
	words := strings.Split(strings.TrimSuffix(strings.TrimPrefix(name, "rule_"), ".txtar"), "_")
	for k := len(words); k > 0; k-- {
		if c := strings.Join(words[:k], "-"); slices.Contains(ids, c) {
			return c, ""
		}
	}
	return "", words[0]
}

// citedByGoTests are the ids named in a comment of a Go test file
// anywhere in the module: a test's own comment, or its file's, which
// says what the tests in it check.
func citedByGoTests(t *testing.T, root string, ids []string) map[string]bool {
	t.Helper()
	self := filepath.Join(root, "internal", "dev", "ship") // these checks, whose comments cite no rule
	cited := map[string]bool{}
	words := map[string]*regexp.Regexp{}
	for _, id := range ids {
		words[id] = regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(id) + `($|[^A-Za-z0-9_-])`)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") || path == self {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, c := range f.Comments {
			for id, re := range words {
				if re.MatchString(c.Text()) {
					cited[id] = true
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return cited
}
