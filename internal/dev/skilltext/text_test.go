package skilltext

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/ledger"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skillText is what the static checks read: every file of skill/ and the
// markdown files of docs/, by slash path from the module root
// ("skill/SKILL.md", "docs/protocol.md"). The checks take it as a value
// and return what is wrong, so a test can hand them a broken copy and see
// each one fail.
type skillText map[string]string

func loadText(t *testing.T) skillText {
	t.Helper()
	x := skillText{}
	for _, dir := range []string{"skill", "docs"} {
		ents, err := os.ReadDir(filepath.Join(moduleRoot, dir))
		require.NoError(t, err)
		for _, e := range ents {
			if e.IsDir() || dir == "docs" && !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(moduleRoot, dir, e.Name()))
			require.NoError(t, err)
			x[dir+"/"+e.Name()] = string(b)
		}
	}
	require.Contains(t, x, "skill/SKILL.md")
	require.Contains(t, x, "docs/protocol.md")
	return x
}

// edit is a copy of the text with one occurrence of old in file replaced
// by new; old must occur exactly once, so a break cannot miss silently.
func (x skillText) edit(t *testing.T, file, old, new string) skillText {
	t.Helper()
	require.Contains(t, x, file)
	require.Equal(t, 1, strings.Count(x[file], old), "%s holds %q exactly once", file, old)
	y := skillText{}
	for k, v := range x {
		y[k] = v
	}
	y[file] = strings.Replace(x[file], old, new, 1)
	return y
}

// without is a copy of the text without file.
func (x skillText) without(file string) skillText {
	y := skillText{}
	for k, v := range x {
		if k != file {
			y[k] = v
		}
	}
	return y
}

// files lists the paths under dir ("skill"), sorted.
func (x skillText) files(dir string) []string {
	var out []string
	for k := range x {
		if path.Dir(k) == dir {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

const skillMD = "skill/SKILL.md"

// stepFiles hold the blocks a controller runs as steps.
var stepFiles = []string{skillMD, "skill/rare.md"}

// sideDeclaring are the files that may declare placeholders of their own.
var sideDeclaring = []string{"skill/rare.md", "skill/manual.md"}

// block is a top-level fenced block of a file, with its name.
type block struct {
	File string
	Fence
	Name string // the first bold phrase of the paragraph right before the fence
}

// isLedger reports a block that shows a ledger (the Ledger lines block,
// the example's ledger) rather than something to run or send.
func (b block) isLedger() bool { return strings.HasPrefix(b.Body, IdentityPrefix) }

var boldRe = regexp.MustCompile(`\*\*(.+?)\*\*`)

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// blocks are the top-level fenced blocks of a file.
func (x skillText) blocks(file string) []block {
	text := x[file]
	lines := strings.Split(text, "\n")
	var out []block
	for _, f := range Fences(text) {
		if f.Depth != 0 {
			continue
		}
		b := block{File: file, Fence: f}
		if m := boldRe.FindStringSubmatch(paragraphBefore(lines, f.Line)); m != nil {
			b.Name = normalizeSpace(m[1])
		}
		out = append(out, b)
	}
	return out
}

// paragraphBefore is the paragraph that ends right above the fence on
// line fenceLine (1-based), its lines joined by blanks: blank lines
// skipped, then lines up to a blank line, a heading or a fence.
func paragraphBefore(lines []string, fenceLine int) string {
	i := fenceLine - 2
	for i >= 0 && strings.TrimSpace(lines[i]) == "" {
		i--
	}
	var para []string
	for ; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") {
			break
		}
		para = append([]string{l}, para...)
	}
	return strings.Join(para, " ")
}

// stepBlocks are the blocks a controller runs or sends as one step: every
// block of SKILL.md and rare.md but those that show a ledger.
func (x skillText) stepBlocks() []block {
	var out []block
	for _, f := range stepFiles {
		for _, b := range x.blocks(f) {
			if !b.isLedger() {
				out = append(out, b)
			}
		}
	}
	return out
}

// shBlocks are the ```sh blocks of the given files.
func (x skillText) shBlocks(files ...string) []block {
	var out []block
	for _, f := range files {
		for _, b := range x.blocks(f) {
			if b.Lang() == "sh" {
				out = append(out, b)
			}
		}
	}
	return out
}

// boldUse is a bold phrase of the prose.
type boldUse struct {
	Text    string
	Line    int
	Leading bool // the first thing in its paragraph or list item
}

var listMarkerRe = regexp.MustCompile(`^(?:[-*+]|[0-9]+[.)])\s+`)

// bolds are the bold phrases of a file's prose. A phrase that opens its
// paragraph or list item is Leading: a heading-like label or a block's
// own name, not a mention of something else. Table cells have no labels:
// every bold phrase in one is a mention.
func bolds(text string) []boldUse {
	type unit struct {
		cell  bool // a table cell: a bold phrase in it is always a mention
		s     strings.Builder
		lines []int // line of each byte of s
	}
	var units []*unit
	var cur *unit
	flush := func() { cur = nil }
	add := func(u *unit, s string, line int) {
		if u.s.Len() > 0 {
			u.s.WriteByte(' ')
			u.lines = append(u.lines, line)
		}
		u.s.WriteString(s)
		for range s {
			u.lines = append(u.lines, line)
		}
	}
	for i, raw := range strings.Split(Prose(text), "\n") {
		line := i + 1
		l := strings.TrimSpace(raw)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			flush()
		case strings.HasPrefix(l, "|"):
			flush()
			for _, cell := range strings.Split(strings.Trim(l, "|"), "|") {
				u := &unit{cell: true}
				add(u, strings.TrimSpace(cell), line)
				units = append(units, u)
			}
		default:
			if m := listMarkerRe.FindString(l); m != "" {
				flush()
				l = l[len(m):]
			}
			if cur == nil {
				cur = &unit{}
				units = append(units, cur)
			}
			add(cur, l, line)
		}
	}
	var out []boldUse
	for _, u := range units {
		s := u.s.String()
		// Byte offsets: lines holds one entry per rune written by range,
		// so map by rune index.
		runeLine := u.lines
		for _, m := range boldRe.FindAllStringSubmatchIndex(s, -1) {
			idx := len([]rune(s[:m[0]]))
			line := 0
			if idx < len(runeLine) {
				line = runeLine[idx]
			}
			out = append(out, boldUse{Text: normalizeSpace(s[m[2]:m[3]]), Line: line, Leading: !u.cell && strings.TrimSpace(s[:m[0]]) == ""})
		}
	}
	return out
}

// placeholderSpanRe is a code span holding one placeholder and nothing else.
var placeholderSpanRe = regexp.MustCompile("`(<[A-Za-z](?:[A-Za-z0-9 ]*[A-Za-z0-9])?>)`")

// placeholderRe finds placeholders in a block.
var placeholderRe = regexp.MustCompile(`<[A-Za-z](?:[A-Za-z0-9 ]*[A-Za-z0-9])?>`)

// placeholderTable reads SKILL.md's placeholder table: the table whose
// header's first cell is "Placeholder"; each row's first cell names one or
// more placeholders as code spans.
func placeholderTable(skill string) map[string]bool {
	out := map[string]bool{}
	in := false
	for _, l := range strings.Split(Prose(skill), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			in = false
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if strings.TrimSpace(cells[0]) == "Placeholder" {
			in = true
			continue
		}
		if in {
			for _, m := range placeholderSpanRe.FindAllStringSubmatch(cells[0], -1) {
				out[m[1]] = true
			}
		}
	}
	return out
}

// declared are the placeholders a side file declares for its own blocks:
// each named alone in a code span of its prose, with the line it is first
// named on.
func declared(text string) map[string]int {
	out := map[string]int{}
	for _, s := range InlineCode(text) {
		if placeholderRe.FindString(s.Text) != s.Text {
			continue
		}
		if _, ok := out[s.Text]; !ok {
			out[s.Text] = s.Line
		}
	}
	return out
}

// fileText is a file's content; the test fails if it cannot be read.
func fileText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// requireClean fails the test with each problem a check found in the
// real text.
func requireClean(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

// requireCatches requires a check run on a broken copy of the text to
// report the break: a problem holding want.
func requireCatches(t *testing.T, problems []string, want string) {
	t.Helper()
	for _, p := range problems {
		if strings.Contains(p, want) {
			return
		}
	}
	assert.Fail(t, "the check misses the break", "no problem holds %q; it found:\n%s", want, strings.Join(problems, "\n"))
}

// broken is a broken copy of the text; a check must find a problem holding want.
type broken struct {
	text skillText
	want string
}

// requireCatchesEach requires check to report each break, a subtest each.
func requireCatchesEach(t *testing.T, check func(skillText) []string, breaks map[string]broken) {
	t.Helper()
	for name, b := range breaks {
		t.Run(name, func(t *testing.T) { requireCatches(t, check(b.text), b.want) })
	}
}

// fullOnly skips t under go test -short (make test), which keeps the
// walk-throughs and the checks of the text: the runs that hold the text
// state by state and mutant by mutant are make test-full's.
func fullOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("one of the runs make test-full adds to the walk-throughs")
	}
}

// posixShells are the shells a recipe of the text runs in: sh and bash
// (under go test -short, sh alone).
func posixShells(t *testing.T) []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX shell here")
	}
	var out []string
	shells := []string{"sh", "bash"}
	if testing.Short() {
		shells = shells[:1]
	}
	for _, sh := range shells {
		p, err := exec.LookPath(sh)
		if err != nil {
			t.Skipf("no %s on PATH", sh)
		}
		out = append(out, p)
	}
	return out
}

// lineDiff lists the lines of two texts that differ, each text named.
func lineDiff(wantName, want, gotName, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "  line %d: %s %q, %s %q\n", i+1, wantName, a, gotName, c)
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IdentityPrefix starts a ledger's first line.
const IdentityPrefix = ledger.IdentityPrefix
