package follower

import (
	"regexp"
	"slices"
	"strings"
)

// This file is the values of the Placeholder table's rows that the
// controller takes from what it has seen (Look's output, the commands',
// the subagents' answers), each read from its row's Value cell: the
// label of the line it comes from, the order of its sources, the form of
// a list. A cell that changes changes what the run fills in; one the
// follower cannot read stops the run.

// placeholderCell is the Value cell of the Placeholder table's row that
// names the placeholder, its spaces folded.
func (c *controller) placeholderCell(name string) string {
	for _, r := range c.skill.TableWith("Placeholder") {
		if len(r) == 2 && slices.Contains(strings.Split(r[0], ", "), "`"+name+"`") {
			return oneLine(r[1])
		}
	}
	c.fail("the Placeholder table has no row for %s", name)
	return ""
}

// outLabelRe is the label of a line a command prints, in a code span:
// `workspace:`, `implementer:`.
var outLabelRe = regexp.MustCompile("`([a-z][a-z ?]*:)`")

// answerLabelRe is the label of a line of a subagent's answer: `Review:`.
var answerLabelRe = regexp.MustCompile("`([A-Z][A-Za-z ]*):`")

// outLabel is the first printed line's label a cell names ("" for none).
func outLabel(cell string) string {
	if m := outLabelRe.FindStringSubmatch(cell); m != nil {
		return m[1]
	}
	return ""
}

// lineValue is the value of the first line of out that begins with
// label and a blank (at the start of the line, or as a unit's detail,
// indented).
func lineValue(out, label string) (string, bool) {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimLeft(l, " "), label+" "); ok {
			return v, true
		}
	}
	return "", false
}

// workspace is <workspace>: the line of Look's output its cell names.
func (c *controller) workspace(look string) string {
	cell := c.placeholderCell("<workspace>")
	label := outLabel(cell)
	if label == "" {
		c.fail("the Placeholder table's value of <workspace>, %q, names no line Look prints (a `label:`)", cell)
	}
	v, ok := lineValue(look, label)
	if !ok {
		c.fail("Look printed no %q line, which the Placeholder table's <workspace> names:\n%s", label, look)
	}
	return v
}

// detail is the value of the unit's detail line (the lines under its
// state line, as the last command or Look printed them) of that label.
func (u *unit) detail(label string) (string, bool) {
	for _, d := range u.details {
		if v, ok := strings.CutPrefix(d, label+" "); ok {
			return v, true
		}
	}
	return "", false
}

// lastDispatchRe is an <agent id> source that is a dispatch of this
// turn: "the id your last implementer or fix dispatch returned".
var lastDispatchRe = regexp.MustCompile(`^the id your last (?:(.+?) )?dispatch returned$`)

// literalRe is a source that is a value as written: `none`.
var literalRe = regexp.MustCompile("^`([^`]+)`$")

// agentID is <agent id> for u: the first of its cell's sources, tried in
// the cell's order ("…, else …"), that has a value; dispatched is true
// when it is the id a dispatch of this turn returned, idless when that
// dispatch returned none (a host whose dispatches give no id), the value
// being the next source's.
func (c *controller) agentID(u *unit) (id string, dispatched, idless bool) {
	cell := c.placeholderCell("<agent id>")
	for _, src := range strings.Split(cell, ", else ") {
		src = strings.TrimSpace(src)
		if m := lastDispatchRe.FindStringSubmatch(src); m != nil {
			var kinds []string
			if m[1] != "" {
				kinds = strings.Split(m[1], " or ")
			}
			for i := len(u.dispatches) - 1; i >= 0; i-- {
				if d := u.dispatches[i]; len(kinds) == 0 || slices.Contains(kinds, d.kind) {
					if d.id != "" {
						return d.id, true, false
					}
					idless = true // the next source
					break
				}
			}
			continue
		}
		if m := literalRe.FindStringSubmatch(src); m != nil {
			return m[1], false, idless
		}
		if label := outLabel(src); label != "" && strings.HasPrefix(src, "Look's ") {
			if v, ok := u.detail(label); ok {
				return v, false, idless
			}
			continue
		}
		c.fail("the Placeholder table's value of <agent id> has a source the follower cannot read: %q", src)
	}
	c.fail("%s: no source of the Placeholder table's <agent id> (%q) has a value", u.name, cell)
	return "", false, false
}

// reviewLabels are the sources <review>'s cell names: the label of the
// line a command or Look prints (`review:`) and of the reviewer's answer
// (`Review:`); the newer of the two is the value.
func (c *controller) reviewLabels() (printed, answer string) {
	cell := c.placeholderCell("<review>")
	if m := answerLabelRe.FindStringSubmatch(cell); m != nil {
		answer = m[1]
	}
	printed = outLabel(cell)
	if printed == "" && answer == "" {
		c.fail("the Placeholder table's value of <review>, %q, names no line to take it from", cell)
	}
	return printed, answer
}

// packageSources read <package> and <bytes>'s cell: the pattern of the
// line that writes a package (`wrote … .diff: …, <bytes> bytes`), made a
// regular expression whose groups are the path and the size, and the
// label of a unit's line that names it (`package:`).
func (c *controller) packageSources() (wrote *regexp.Regexp, path, size int, label string) {
	cell := c.placeholderCell("<package>")
	for _, m := range codeSpanRe.FindAllStringSubmatch(cell, -1) {
		switch {
		case strings.Contains(m[1], "…") && wrote == nil:
			wrote, path, size = patternRe(m[1])
		case outLabelRe.MatchString("`" + m[1] + "`"):
			label = m[1]
		}
	}
	if wrote == nil || path == 0 || size == 0 {
		c.fail("the Placeholder table's value of <package>, %q, gives no line with the path and <bytes>", cell)
	}
	return wrote, path, size, label
}

// patternRe makes a line's pattern as the text writes one ("wrote …
// .diff: …, <bytes> bytes") a regular expression: "… .ext" is a path
// ending in .ext (the blank only sets the ellipsis apart), any other
// "…" any text, <bytes> a number; path and size are their groups.
func patternRe(p string) (re *regexp.Regexp, path, size int) {
	var b strings.Builder
	b.WriteString("(?m)^")
	group := 0
	for p != "" {
		switch {
		case strings.HasPrefix(p, "… ."):
			ext := strings.TrimPrefix(p, "… ")
			end := 1
			for end < len(ext) && (ext[end] >= 'a' && ext[end] <= 'z' || ext[end] >= 'A' && ext[end] <= 'Z' || ext[end] >= '0' && ext[end] <= '9') {
				end++
			}
			group++
			path = group
			b.WriteString(`(.+` + regexp.QuoteMeta(ext[:end]) + `)`)
			p = ext[end:]
		case strings.HasPrefix(p, "…"):
			b.WriteString(`.*`)
			p = strings.TrimPrefix(p, "…")
		case strings.HasPrefix(p, "<bytes>"):
			group++
			size = group
			b.WriteString(`(\d+)`)
			p = strings.TrimPrefix(p, "<bytes>")
		default:
			n := strings.IndexAny(p[1:], "…<")
			if n < 0 {
				n = len(p) - 1
			}
			b.WriteString(regexp.QuoteMeta(p[:n+1]))
			p = p[n+1:]
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String()), path, size
}

// wrotePackage is the package the last line of out that writes one
// names, as <package>'s cell reads that line.
func (c *controller) wrotePackage(out string) (path, bytes string, ok bool) {
	re, p, s, _ := c.packageSources()
	m := re.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return "", "", false
	}
	last := m[len(m)-1]
	return last[p], last[s], true
}

var sizeRe = regexp.MustCompile(`^(.+) \((\d+) bytes\)$`)

// packageOf is the package a unit's detail line names, as <package>'s
// cell names that line: "<path> (<bytes> bytes)".
func (c *controller) packageOf(u *unit) (path, bytes string, ok bool) {
	_, _, _, label := c.packageSources()
	if label == "" {
		return "", "", false
	}
	v, ok := u.detail(label)
	if !ok {
		return "", "", false
	}
	m := sizeRe.FindStringSubmatch(v)
	if m == nil {
		c.fail("%s's %s line gives no size: %q", u.name, label, v)
	}
	return m[1], m[2], true
}

var idRe = regexp.MustCompile(`F\d+`)

// openFindings is <open findings> for fs, in the form its cell's example
// shows (`F2 off-by-one in Parse; F3 …`): each finding with its id where
// the example begins with one, joined as the example joins two.
func (c *controller) openFindings(fs []finding) string {
	cell := c.placeholderCell("<open findings>")
	m := codeSpanRe.FindStringSubmatch(cell)
	if m == nil {
		c.fail("the Placeholder table's value of <open findings>, %q, shows no example", cell)
	}
	ex := m[1]
	ids := idRe.FindAllStringIndex(ex, -1)
	withID := len(ids) > 0 && ids[0][0] == 0
	// The joint: what stands between the first finding and the second
	// (its id, or the ellipsis).
	next := strings.Index(ex, "…")
	if withID && len(ids) > 1 {
		next = ids[1][0]
	}
	if next <= 0 {
		c.fail("the Placeholder table's example of <open findings>, %q, shows no second finding", ex)
	}
	head := ex[:next]
	j := len(head)
	for j > 0 && strings.ContainsRune(" ;,/|&", rune(head[j-1])) {
		j--
	}
	sep := head[j:]
	if strings.TrimSpace(sep) == "" && sep == "" {
		c.fail("the Placeholder table's example of <open findings>, %q, shows no joint between two findings", ex)
	}
	if len(fs) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range fs {
		if withID {
			parts = append(parts, f.line())
		} else {
			parts = append(parts, f.text)
		}
	}
	return strings.Join(parts, sep)
}

// decisionsRe reads <decisions>'s cell: how each decision is quoted, and
// what stands for none.
var decisionsRe = regexp.MustCompile("in (single|double) quotes; (nothing|`[^`]+`) when none")

// quoteDecisions is <decisions> for ds, as its cell says.
func (c *controller) quoteDecisions(ds []string) string {
	cell := c.placeholderCell("<decisions>")
	m := decisionsRe.FindStringSubmatch(cell)
	if m == nil {
		c.fail("the Placeholder table's value of <decisions>, %q, says neither how each is quoted nor what stands for none", cell)
	}
	if len(ds) == 0 {
		if m[2] == "nothing" {
			return ""
		}
		return strings.Trim(m[2], "`")
	}
	q := map[string]string{"single": "'", "double": `"`}[m[1]]
	var out []string
	for _, d := range ds {
		out = append(out, q+strings.ReplaceAll(d, "'", "’")+q)
	}
	return strings.Join(out, " ")
}
