package ship_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/testutil"
)

// TestNamedPathsExist fails when a comment of a Go file, or a Markdown
// file (the README, docs/; not skill/ or examples/, whose paths are the
// installed skill's and the example project's), names a path of this
// module (internal/…, cmd/…, scripts/…) that is not in the tree: a
// package moved or renamed leaves no pointer to it behind.
func TestNamedPathsExist(t *testing.T) {
	root := testutil.ModuleRoot()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || rel == "skill" || rel == "examples" || rel == "bin" || rel == "dist") {
				return filepath.SkipDir
			}
			return nil
		}
		var texts []text
		switch {
		case strings.HasSuffix(path, ".go"):
			texts = goComments(t, path)
		case strings.HasSuffix(path, ".md") && !strings.Contains("/"+rel, "/testdata/"):
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			texts = []text{{1, string(b)}}
		}
		for _, tx := range texts {
			for _, m := range namedPaths(tx.s) {
				if exists(root, m.path) {
					continue
				}
				t.Errorf("%s:%d names %s, which is not in the tree", rel, tx.line+m.line, m.path)
			}
		}
		return nil
	})
	require.NoError(t, err)

}

// text is a piece of a file and the line it starts on.
type text struct {
	line int
	s    string
}

// goComments are the comments of the Go file at path.
func goComments(t *testing.T, path string) []text {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	var out []text
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			out = append(out, text{fset.Position(pos).Line, lit})
		}
	}
}

// pathMention is a path of this module as text names it: at the start of
// a word (not inside another path or a URL), perhaps after ./ or ../, up
// to the first character no path here holds; then what follows it.
var pathMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.~$/-])(?:\.\.?/)*((?:internal|cmd|scripts)/[A-Za-z0-9_./-]*)(.?)`)

// goSelector is a Go name after a package's path (internal/cliapp.Version).
var goSelector = regexp.MustCompile(`\.[A-Za-z_][A-Za-z0-9_]*$`)

type mention struct {
	line int // counted from the text's first line, 0 for that line
	path string
}

// namedPaths are the module paths s names. A pattern or a placeholder
// (cmd/..., cmd/<name>, scripts/*.sh) names the directory before it.
func namedPaths(s string) []mention {
	var out []mention
	for _, m := range pathMention.FindAllStringSubmatchIndex(s, -1) {
		p, next := s[m[2]:m[3]], s[m[4]:m[5]]
		if i := strings.Index(p, "..."); i >= 0 {
			p = p[:i]
			next = "*"
		}
		if strings.ContainsAny(next, "<*{[") {
			p = p[:strings.LastIndex(p, "/")+1]
		}
		p = strings.TrimRight(p, ".-")
		out = append(out, mention{strings.Count(s[:m[2]], "\n"), p})
	}
	return out
}

// exists reports whether p, slash-separated and relative to root, is a
// file or directory there, or a package's path with a Go name after it.
func exists(root, p string) bool {
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
		return true
	}
	if pkg := goSelector.ReplaceAllString(p, ""); pkg != p {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(pkg)))
		return err == nil && fi.IsDir()
	}
	return false
}
