package plantask

import (
	"io"
	"path"
	"slices"
	"strings"

	"github.com/sdd-go/sdd-go/internal/lazyre"
)

// Tasks side by side (docs/protocol.md): a task may begin beside the
// tasks before it only where the plan, as written, shows it independent
// of them. The waits are computed here from each task's text, never
// guessed, and never fewer than these rules give: task j waits for an
// earlier task i when
//
//   - their Files lists share a path, or one names a folder holding a
//     path of the other's;
//   - j's text names a path i's Files list (or its git add) writes;
//   - j's text names Task i;
//   - j consumes what i produces (an identifier of j's Consumes among
//     i's Produces);
//   - either has no Files list, or either touches a file every task
//     shares (a lockfile or manifest, migrations, generated code, the
//     plan itself): then j waits for every earlier task;
//   - j's "**Depends on:**" line names Task i. One naming a task the plan
//     has not, or a later one, is noted, and j waits for every earlier
//     task.

// Need is one task's waits.
type Need struct {
	Task  string   // its number
	Waits []string // the earlier tasks it waits for, in plan order
	Notes []string // what its Depends on names that is no earlier task
	// Files are the paths its Files list (and its git add) declare; nil
	// without a Files list.
	Files []string
}

// Declares says whether path is one of n's declared files, or under a
// folder it declares.
func (n Need) Declares(path string) bool {
	for _, f := range n.Files {
		if overlaps(f, path) {
			return true
		}
	}
	return false
}

// maxGraphText bounds how much of a task's text is read for its waits; a
// task cut there waits for every earlier task (what it would name is
// unknown).
const maxGraphText = 256 << 10

// Needs reads the plan and returns each task's waits, in plan order.
func Needs(plan io.Reader, planPath string) ([]Need, error) {
	texts, err := allTexts(plan)
	if err != nil {
		return nil, err
	}
	outlines := make([]outline, len(texts))
	for i, t := range texts {
		outlines[i] = outlineOf(t, planPath)
	}
	numbers := make([]string, len(texts))
	for i, t := range texts {
		numbers[i] = t.number
	}
	out := make([]Need, len(outlines))
	for j, b := range outlines {
		n := Need{Task: b.number}
		if b.listed {
			n.Files = b.files
		}
		all := b.wide()
		for _, d := range b.dependsOn {
			k := slices.Index(numbers, d)
			if k < 0 || k >= j {
				n.Notes = append(n.Notes, "its Depends on names Task "+d+", which is no task before it: it waits for every earlier task")
				all = true
			}
		}
		for i := 0; i < j; i++ {
			if all || outlines[i].wide() || b.waitsFor(outlines[i]) {
				n.Waits = append(n.Waits, outlines[i].number)
			}
		}
		out[j] = n
	}
	return out, nil
}

// taskText is one task's heading number and text.
type taskText struct {
	number string
	text   string
	cut    bool
}

// allTexts reads every task's text in one pass, as Texts does (a heading
// inside a ``` fence does not count; the first heading of a number), in
// plan order, each cut at maxGraphText.
func allTexts(plan io.Reader) ([]taskText, error) {
	texts, cut, order, err := readTexts(plan, func(string) bool { return true }, maxGraphText)
	if err != nil {
		return nil, err
	}
	out := make([]taskText, len(order))
	for i, n := range order {
		out[i] = taskText{number: n, text: texts[n], cut: cut[n]}
	}
	return out, nil
}

// outline is what a task's text says of its place among the others.
type outline struct {
	number    string
	text      string
	cut       bool
	files     []string        // its Files list's paths and its git add paths
	listed    bool            // it has a Files list
	shared    bool            // a path of it is one every task shares
	produces  []string        // identifiers under Produces
	consumes  []string        // identifiers under Consumes
	dependsOn []string        // task numbers its Depends on line names
	named     map[string]bool // task numbers its text names ("Task 3"), but its own heading's
	words     map[string]bool // its text's runs of path bytes, each whole: the paths it may name
}

// wide says whether the task waits for, and is waited for by, every
// other task before or after it.
func (o outline) wide() bool { return o.cut || !o.listed || o.shared }

var (
	consumesRe  = lazyre.New(`(?i)^\s*[-*]\s+(?:\*\*)?consumes(?:\*\*)?:\s*(.*)$`)
	dependsRe   = lazyre.New(`(?i)^\s*\*\*depends on:?\*\*:?\s*(.*)$`)
	taskNameRe  = lazyre.New(`(?i)\btasks?\s+(\d+)((?:\s*(?:,|and|or|&)\s*\d+)*)`)
	numberRe    = lazyre.New(`\d+`)
	gitAddRe    = lazyre.New(`^\s*(?:\$\s*)?git add\s+(.*)$`)
	lineRangeRe = lazyre.New(`:\d+(?:-\d+)?$`)
	wordRe      = lazyre.New(`[A-Za-z_][A-Za-z0-9_]{2,}`)
)

func outlineOf(t taskText, planPath string) outline {
	o := outline{number: t.number, text: t.text, cut: t.cut}
	lines := strings.Split(t.text, "\n")
	inFiles, inFence := false, false
	var list *[]string // a Produces or Consumes whose items nest under it
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			if m := gitAddRe().FindStringSubmatch(l); m != nil {
				for _, f := range strings.Fields(m[1]) {
					if !strings.HasPrefix(f, "-") {
						o.files = append(o.files, strings.Trim(f, `"'`))
					}
				}
			}
			continue
		}
		if list != nil {
			if m := nestedItemRe().FindStringSubmatch(l); m != nil {
				*list = append(*list, identifiers(m[1])...)
				continue
			}
			list = nil
		}
		switch {
		case filesRe().MatchString(l):
			inFiles, o.listed = true, true
			continue
		case inFiles:
			if m := fileItemRe().FindStringSubmatch(l); m != nil {
				o.files = append(o.files, lineRangeRe().ReplaceAllString(m[2], ""))
				continue
			}
			inFiles = false
		}
		if m := producesRe().FindStringSubmatch(l); m != nil {
			o.produces = append(o.produces, identifiers(m[1])...)
			list = &o.produces
		} else if m := consumesRe().FindStringSubmatch(l); m != nil {
			o.consumes = append(o.consumes, identifiers(m[1])...)
			list = &o.consumes
		} else if m := dependsRe().FindStringSubmatch(l); m != nil {
			for _, n := range taskNameRe().FindAllStringSubmatch(m[1], -1) {
				o.dependsOn = append(o.dependsOn, numberRe().FindAllString(n[0], -1)...)
			}
		}
	}
	for _, f := range o.files {
		if sharedFile(f, planPath) {
			o.shared = true
		}
	}
	// What every pair of tasks reads of the later one's text, read once:
	// a plan of hundreds of tasks has tens of thousands of pairs.
	o.named = map[string]bool{}
	for _, m := range taskNameRe().FindAllString(o.text, -1) {
		if !ownHeading(o, m) {
			for _, n := range numberRe().FindAllString(m, -1) {
				o.named[n] = true
			}
		}
	}
	o.words = map[string]bool{}
	for _, w := range strings.FieldsFunc(o.text, func(r rune) bool { return r >= 0x80 || !pathByte(byte(r)) }) {
		// A sentence's full stop after a path, and a ./ before it, are
		// not the path's.
		o.words[w] = true
		o.words[strings.TrimPrefix(strings.TrimRight(w, "."), "./")] = true
	}
	return o
}

// identifiers are the names an item of Produces or Consumes speaks of;
// none for "none".
func identifiers(item string) []string {
	if nothing(item) {
		return nil
	}
	return wordRe().FindAllString(item, -1)
}

// waitsFor says whether o, a later task, waits for e, an earlier one, by
// the rules that read both texts.
func (o outline) waitsFor(e outline) bool {
	for _, a := range o.files {
		for _, b := range e.files {
			if overlaps(a, b) {
				return true
			}
		}
	}
	for _, b := range e.files {
		if o.mentions(b) {
			return true
		}
	}
	if o.named[e.number] {
		return true
	}
	for _, c := range o.consumes {
		if slices.Contains(e.produces, c) && !commonWord(c) {
			return true
		}
	}
	return slices.Contains(o.dependsOn, e.number)
}

// ownHeading says whether a "Task N" mention of o is its own number (its
// heading names it).
func ownHeading(o outline, m string) bool {
	ns := numberRe().FindAllString(m, -1)
	return len(ns) == 1 && ns[0] == o.number
}

// overlaps says whether two paths are one file, or one is a folder that
// holds the other.
func overlaps(a, b string) bool {
	a, b = strings.TrimPrefix(a, "./"), strings.TrimPrefix(b, "./")
	if a == b {
		return true
	}
	in := func(dir, p string) bool {
		dir = strings.TrimSuffix(dir, "/")
		return dir != "" && strings.HasPrefix(p, dir+"/")
	}
	return in(a, b) || in(b, a)
}

// mentions says whether o's text names path p as a word of its own: a
// whole run of path bytes, looked up; a path holding other bytes is
// searched for.
func (o outline) mentions(p string) bool {
	p = strings.TrimPrefix(p, "./")
	if len(p) < 3 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if !pathByte(p[i]) {
			return mentions(o.text, p)
		}
	}
	return o.words[p]
}

// mentions says whether text names path: as a word of its own, not part
// of a longer path or name.
func mentions(text, p string) bool {
	p = strings.TrimPrefix(p, "./")
	if len(p) < 3 {
		return false
	}
	for i := 0; ; {
		k := strings.Index(text[i:], p)
		if k < 0 {
			return false
		}
		s, e := i+k, i+k+len(p)
		if (s == 0 || !pathByte(text[s-1])) && (e == len(text) || !pathByte(text[e])) {
			return true
		}
		i = s + 1
	}
}

func pathByte(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// commonWord is a word too common to tie two tasks by (a type's name, a
// keyword), where Produces and Consumes both speak of it.
func commonWord(w string) bool {
	switch strings.ToLower(w) {
	case "string", "int", "error", "bool", "func", "none", "returns", "return", "the", "and", "for", "from", "with", "type", "byte", "bytes", "float64", "int64", "uint", "any", "nil", "true", "false", "task", "tasks", "self", "str", "list", "dict", "void", "const", "let", "var", "new", "struct", "interface", "class", "def", "uses", "exact", "signatures", "function", "method":
		return true
	}
	return false
}

// sharedNames are files every task of a project shares: lockfiles and
// manifests of its dependencies.
var sharedNames = map[string]bool{
	"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	"package.json": true, "package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "bun.lockb": true,
	"Cargo.toml": true, "Cargo.lock": true, "pyproject.toml": true, "poetry.lock": true, "uv.lock": true, "Pipfile": true, "Pipfile.lock": true,
	"requirements.txt": true, "setup.py": true, "setup.cfg": true, "Gemfile": true, "Gemfile.lock": true, "composer.json": true, "composer.lock": true,
	"pom.xml": true, "build.gradle": true, "build.gradle.kts": true, "settings.gradle": true, "mix.exs": true, "mix.lock": true,
	"pubspec.yaml": true, "pubspec.lock": true, "Package.swift": true, "Package.resolved": true, "flake.lock": true,
}

var generatedRe = lazyre.New(`(^|/)(migrations?|generated|gen)/|\.pb\.go$|_gen\.go$|zz_generated|\.generated\.|(^|/)schema\.(sql|prisma|rb)$`)

// sharedFile says whether p is a file every task shares: a lockfile or
// manifest, a migration, generated code, or the plan itself.
func sharedFile(p, planPath string) bool {
	p = strings.TrimPrefix(p, "./")
	return sharedNames[path.Base(p)] || generatedRe().MatchString(p) || planPath != "" && p == strings.TrimPrefix(planPath, "./")
}
