package follower

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Section is the text under the heading "## <heading>", up to the next
// heading of that level; "" when there is none.
func (t *Text) Section(heading string) string {
	_, rest, ok := strings.Cut("\n"+t.Body, "\n## "+heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// boldNames are the bold phrases of s, in order, each once.
func boldNames(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range boldRe.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// BaseDirPrefix starts the text the Skill tool returns; the skill's
// directory follows it, then a blank line and SKILL.md's body.
const BaseDirPrefix = "Base directory for this skill: "

// Text is one markdown file of the skill as the follower reads it: its
// command and prompt blocks by name, and its tables.
type Text struct {
	Body   string
	Blocks map[string]Block // by the first bold phrase of the paragraph before the fence
}

// Block is one fenced block of the text.
type Block struct {
	Name string
	Lang string // the fence's info string: sh, text
	Body string // without the fence lines and the list item's indentation
}

// Row is one row of a table: its cells, trimmed, backticks kept.
type Row []string

// Skill is what the Skill tool handed over: the skill's directory and
// SKILL.md's text.
type Skill struct {
	Dir string
	*Text
}

// ParseSkill reads the Skill tool's result.
func ParseSkill(result string) (Skill, error) {
	i := strings.Index(result, BaseDirPrefix)
	if i < 0 {
		return Skill{}, fmt.Errorf("the Skill tool's result has no %q line", strings.TrimSpace(BaseDirPrefix))
	}
	rest := result[i+len(BaseDirPrefix):]
	dir, body, _ := strings.Cut(rest, "\n")
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return Skill{}, fmt.Errorf("the Skill tool's result names no directory")
	}
	t, err := ParseText(strings.TrimLeft(body, "\n"))
	if err != nil {
		return Skill{}, err
	}
	return Skill{Dir: dir, Text: t}, nil
}

var (
	fenceRe = regexp.MustCompile("^([ \t]*)(`{3,}|~{3,})[ \t]*([^ \t`]*)[ \t]*$")
	boldRe  = regexp.MustCompile(`\*\*(.+?)\*\*`)
)

// ParseText finds the fenced blocks of a markdown text and names each by
// the first bold phrase of the paragraph right before it (a paragraph of
// a list item counts). Two blocks of one name are an error: a follower
// could not tell which one the text means.
func ParseText(md string) (*Text, error) {
	t := &Text{Body: md, Blocks: map[string]Block{}}
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence, lang := m[1], m[2], m[3]
		end := -1
		for j := i + 1; j < len(lines); j++ {
			s := strings.TrimLeft(lines[j], " \t")
			if strings.HasPrefix(s, fence) && strings.Trim(s, fence[:1]+" \t") == "" {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("line %d: a fence that never closes", i+1)
		}
		var body []string
		for _, l := range lines[i+1 : end] {
			body = append(body, strings.TrimPrefix(l, indent))
		}
		name := blockName(lines[:i])
		if name != "" {
			if _, dup := t.Blocks[name]; dup {
				return nil, fmt.Errorf("two blocks are named %q", name)
			}
			t.Blocks[name] = Block{Name: name, Lang: lang, Body: strings.Join(body, "\n") + "\n"}
		}
		i = end
	}
	return t, nil
}

// blockName is the first bold phrase of the last paragraph of lines
// (blank lines before the fence skipped), its whitespace made single.
func blockName(lines []string) string {
	j := len(lines) - 1
	for j >= 0 && strings.TrimSpace(lines[j]) == "" {
		j--
	}
	var para []string
	for ; j >= 0; j-- {
		s := strings.TrimSpace(lines[j])
		if s == "" || fenceRe.MatchString(lines[j]) || strings.HasPrefix(s, "#") {
			break
		}
		para = append([]string{s}, para...)
	}
	m := boldRe.FindStringSubmatch(strings.Join(para, " "))
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(m[1]), " ")
}

// Block returns the block of that name, or an error saying the text has
// none.
func (t *Text) Block(name string) (Block, error) {
	b, ok := t.Blocks[name]
	if !ok {
		return Block{}, fmt.Errorf("the text has no block named **%s** (it has %s)", name, strings.Join(t.Names(), ", "))
	}
	return b, nil
}

// Names lists the text's block names, sorted.
func (t *Text) Names() []string {
	var out []string
	for n := range t.Blocks {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Table returns the rows of the first table after the heading whose text
// is heading ("" for the first table of the text), header row left out.
func (t *Text) Table(heading string) []Row {
	lines := strings.Split(t.Body, "\n")
	i := 0
	if heading != "" {
		i = len(lines)
		for k, l := range lines {
			if strings.HasPrefix(l, "#") && strings.TrimSpace(strings.TrimLeft(l, "#")) == heading {
				i = k + 1
				break
			}
		}
	}
	var rows []Row
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			if len(rows) > 0 || heading != "" && strings.HasPrefix(l, "#") {
				break
			}
			continue
		}
		var cells Row
		for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	if len(rows) > 0 {
		rows = rows[1:] // the header
	}
	return rows
}

// TableWith returns the rows of the first table whose header's first
// cell is first.
func (t *Text) TableWith(first string) []Row {
	lines := strings.Split(t.Body, "\n")
	for k, l := range lines {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if strings.TrimSpace(cells[0]) != first || k > 0 && strings.HasPrefix(strings.TrimSpace(lines[k-1]), "|") {
			continue
		}
		sub := &Text{Body: strings.Join(lines[k:], "\n")}
		return sub.Table("")
	}
	return nil
}

// Values are the placeholders' literal values, keyed by the placeholder
// with its brackets: "<plan file>".
type Values map[string]string

// With returns a copy of v with more values (name, value pairs).
func (v Values) With(kv ...string) Values {
	out := Values{}
	for k, x := range v {
		out[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// PlaceholderRe matches a placeholder: a name in angle brackets.
var PlaceholderRe = regexp.MustCompile(`<[A-Za-z][^<>\n]*>`)

// Fill replaces every placeholder of the block with its value, brackets
// included, in one pass (a value is never read again). A placeholder
// without a value is an error: the text asks for a value the follower
// does not know, so the text is wrong.
func (b Block) Fill(v Values) (string, error) {
	var missing []string
	out := PlaceholderRe.ReplaceAllStringFunc(b.Body, func(p string) string {
		x, ok := v[p]
		if !ok {
			missing = append(missing, p)
			return p
		}
		return x
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("block **%s** has placeholders no value fills: %s", b.Name, strings.Join(unique(missing), " "))
	}
	return out, nil
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

var numberedRe = regexp.MustCompile(`^ *\d+(?:\t|:|→)(.*)$`)

// FileLines are the pieces of a file the Read tool shows, in order: each
// shown line is numbered (the number, a tab, colon or arrow, the text),
// and anything else the host put around them (reminders) is dropped. The
// host numbers the file's text split at its newlines, so a file ending
// in a newline shows a last, empty piece, and the pieces joined with
// newlines are the file.
func FileLines(shown string) []string {
	var out []string
	for _, l := range strings.Split(shown, "\n") {
		if m := numberedRe.FindStringSubmatch(l); m != nil {
			out = append(out, strings.TrimSuffix(m[1], "\r"))
		}
	}
	return out
}

// FileText is the file, or the part of it, that the Read tool shows.
func FileText(shown string) string { return strings.Join(FileLines(shown), "\n") }

// Answer is the labels of a role file's answer block (the fence under
// its "Your answer" heading), in order: Status, Commits, … or F<k>, New, ….
func Answer(role string) ([]string, error) {
	i := strings.Index(role, "\n## Your answer")
	if i < 0 {
		return nil, fmt.Errorf("the role file has no \"Your answer\" section")
	}
	lines := strings.Split(role[i:], "\n")
	var labels []string
	in := false
	for _, l := range lines[1:] {
		if fenceRe.MatchString(l) {
			if in {
				break
			}
			in = true
			continue
		}
		if !in {
			continue
		}
		label, _, ok := strings.Cut(l, ": ")
		if !ok {
			return nil, fmt.Errorf("answer line %q has no label", l)
		}
		labels = append(labels, label)
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("the role file's answer block is empty")
	}
	return labels, nil
}
