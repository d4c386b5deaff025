// Package skilltext checks the skill text (skill/) against the binaries
// and the protocol (docs/protocol.md): the front matter the host lists,
// the links between the files, the blocks a controller runs (they parse,
// never cd, read only their own variables, delete only the literal
// workspace, hold no typed sha, use only defined placeholders, carry
// unique bold names), every call of a command against its --help, the
// ledger lines the blocks write against the formats, the subagents'
// answer formats, the manual recipe against the commands, and the facts
// the protocol fixes. Each check is a function from the text to its
// problems, so a test runs it on a broken copy too and sees it fail.
//
// Beside the checks live the readers they share: markdown (front matter,
// fences, inline code, links, anchors, bold phrases), a small POSIX shell
// reader, and the ledger parser, which the walk-through and resume tests
// use as well.
//
// The package is test-only: every file is a _test.go file, so nothing of
// it can be imported or linked into the commands, and `go build` skips it.
package skilltext

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Fence is one fenced code block.
type Fence struct {
	Info  string // the info string after the opening fence, e.g. "sh"
	Body  string // the lines between the fences, each ending in a newline
	Line  int    // 1-based line number of the opening fence
	End   int    // 1-based line number of the closing fence (or the last line)
	Depth int    // 0 for a top-level block, 1 for a block inside another
}

// Lang is the first word of the info string.
func (f Fence) Lang() string {
	fields := strings.Fields(f.Info)
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

var fenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// Fences returns the fenced blocks of a markdown text in order of their
// opening line, outer blocks before the blocks nested in them. A block
// whose body is itself markdown (a prompt template fenced with four
// backticks holding a three-backtick block) is searched again, one level
// deep, so nested blocks are found too.
func Fences(text string) []Fence {
	return fences(text, 0, 0)
}

func fences(text string, lineOffset, depth int) []Fence {
	var out []Fence
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(strings.TrimRight(lines[i], "\r\n"))
		if m == nil {
			continue
		}
		marker := m[1]
		if marker[0] == '`' && strings.Contains(m[2], "`") {
			continue // not a fence: a backtick info string is not allowed
		}
		var body strings.Builder
		j := i + 1
		for ; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], "\r\n")
			t := strings.TrimLeft(l, " ")
			if len(l)-len(t) <= 3 && strings.HasPrefix(t, marker[:1]) &&
				strings.Trim(t, marker[:1]) == "" && len(t) >= len(marker) {
				break
			}
			body.WriteString(lines[j])
			if !strings.HasSuffix(lines[j], "\n") {
				body.WriteString("\n")
			}
		}
		f := Fence{Info: strings.TrimSpace(m[2]), Body: body.String(), Line: lineOffset + i + 1, End: lineOffset + j + 1, Depth: depth}
		out = append(out, f)
		if depth == 0 {
			out = append(out, fences(f.Body, lineOffset+i+1, depth+1)...)
		}
		i = j
	}
	return out
}

// Prose returns the text with every top-level fenced block blanked out
// (its lines kept, empty), so line numbers stay valid.
func Prose(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for _, f := range Fences(text) {
		if f.Depth != 0 {
			continue
		}
		for k := f.Line - 1; k < f.End && k < len(lines); k++ {
			if strings.HasSuffix(lines[k], "\n") {
				lines[k] = "\n"
			} else {
				lines[k] = ""
			}
		}
	}
	return strings.Join(lines, "")
}

// Span is a piece of text with the line it starts on.
type Span struct {
	Text string
	Line int
}

var inlineCode = regexp.MustCompile("(`+)([^`](?:.*?[^`])?)(?:`+)")

// InlineCode returns the inline code spans of the prose (outside fenced
// blocks). A span does not cross a line; that is enough for this text.
func InlineCode(text string) []Span {
	var out []Span
	for i, line := range strings.Split(Prose(text), "\n") {
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			out = append(out, Span{Text: strings.TrimSpace(m[2]), Line: i + 1})
		}
	}
	return out
}

var linkRe = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// Links returns the targets of inline links in the prose.
func Links(text string) []Span {
	var out []Span
	for i, line := range strings.Split(Prose(text), "\n") {
		line = inlineCode.ReplaceAllString(line, "")
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			out = append(out, Span{Text: m[1], Line: i + 1})
		}
	}
	return out
}

var headingRe = regexp.MustCompile(`^#{1,6}[ \t]+(.*?)[ \t#]*$`)

// Anchors returns the GitHub-style anchor of every heading in the prose.
func Anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(Prose(text), "\n") {
		m := headingRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out[Slug(m[1])] = true
	}
	return out
}

// Slug turns a heading into its anchor as GitHub renders it: lower case,
// punctuation other than '-' and '_' dropped, spaces made hyphens.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsLetter(r), unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FrontMatter parses the block between the leading "---" lines: one
// "key: value" pair per line, values optionally quoted. It accepts only
// that subset of YAML, which is all a skill's front matter needs, and
// returns the rest of the text as body.
func FrontMatter(text string) (fields map[string]string, body string, err error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	if !sc.Scan() || sc.Text() != "---" {
		return nil, "", fmt.Errorf("front matter: first line is not ---")
	}
	fields = map[string]string{}
	n := 1
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "---" {
			rest := strings.SplitAfterN(text, "\n", n+1)
			if len(rest) == n+1 {
				body = rest[n]
			}
			return fields, body, nil
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || key == "" || strings.TrimSpace(key) != key || strings.ContainsAny(key, " \t") {
			return nil, "", fmt.Errorf("front matter line %d: not a key: value pair: %q", n, line)
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		} else if strings.HasPrefix(value, "\"") || strings.HasPrefix(value, "'") {
			return nil, "", fmt.Errorf("front matter line %d: unbalanced quote", n)
		} else if strings.Contains(value, ": ") || strings.HasPrefix(value, "[") || strings.HasPrefix(value, "{") ||
			strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") || strings.Contains(value, " #") {
			// Plain YAML scalars cannot hold these; a real parser would
			// read something else than what is meant.
			return nil, "", fmt.Errorf("front matter line %d: value needs quoting: %q", n, value)
		}
		if _, dup := fields[key]; dup {
			return nil, "", fmt.Errorf("front matter line %d: duplicate key %q", n, key)
		}
		fields[key] = value
	}
	return nil, "", fmt.Errorf("front matter: no closing ---")
}
