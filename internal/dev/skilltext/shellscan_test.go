package skilltext

import (
	"regexp"
	"strings"
)

// Invocation is one place where the text runs or shows one of the
// commands, with the words that follow the command name.
type Invocation struct {
	Cmd  string
	Args []string // shell words as written, quotes and $(...) kept
	Line int      // 1-based line in the markdown file
	Code string   // the source line or inline span, for messages
}

// Invocations finds every invocation of the named commands in a markdown
// text: in each top-level fenced block (shell syntax, comments dropped,
// backslash continuations joined, $(...) searched recursively) and in each
// inline code span that starts with a command name and has more than the
// name in it (a bare `task-brief` is a mention, not a command line).
func Invocations(text string, names []string) []Invocation {
	isName := map[string]bool{}
	for _, n := range names {
		isName[n] = true
	}
	var out []Invocation
	for _, f := range Fences(text) {
		if f.Depth != 0 {
			continue
		}
		lines := strings.Split(f.Body, "\n")
		for i := 0; i < len(lines); i++ {
			start := i
			line := lines[i]
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + lines[i]
			}
			for _, c := range scanShell(line, isName) {
				c.Line = f.Line + 1 + start
				c.Code = strings.TrimSpace(line)
				out = append(out, c)
			}
		}
	}
	for _, s := range InlineCode(text) {
		words, _ := shellWords(s.Text)
		if len(words) < 2 || !isName[words[0].text] {
			continue
		}
		for _, c := range scanShell(s.Text, isName) {
			c.Line = s.Line
			c.Code = s.Text
			out = append(out, c)
		}
	}
	return out
}

type word struct {
	text string
	op   bool // an operator: | || && ; & ( ) or a redirection
}

// shellWords splits a line into words and operators the way a POSIX shell
// would at the top level: quotes and $(...) stay inside a word, an
// unquoted # at the start of a word begins a comment.
func shellWords(line string) ([]word, bool) {
	var (
		out   []word
		cur   strings.Builder
		inW   bool
		sq    bool
		dq    bool
		depth int
	)
	flush := func() {
		if inW {
			out = append(out, word{text: cur.String()})
			cur.Reset()
			inW = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case sq:
			cur.WriteByte(c)
			if c == '\'' {
				sq = false
			}
			continue
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			inW = true
			i++
			continue
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			cur.WriteString("$(")
			inW = true
			depth++
			i++
			continue
		case depth > 0:
			cur.WriteByte(c)
			if c == ')' && !sq {
				depth--
			}
			continue
		case dq:
			cur.WriteByte(c)
			if c == '"' {
				dq = false
			}
			continue
		}
		switch c {
		case '\'':
			sq = true
			inW = true
			cur.WriteByte(c)
		case '"':
			dq = true
			inW = true
			cur.WriteByte(c)
		case ' ', '\t':
			flush()
		case '#':
			if !inW {
				return out, true
			}
			cur.WriteByte(c)
		case '<':
			// A one-word placeholder of the text (<N>) is a word that
			// the reader replaces before running the line, not a
			// redirection.
			if m := bareWordPlaceholder.FindString(line[i:]); m != "" {
				cur.WriteString(m)
				inW = true
				i += len(m) - 1
				continue
			}
			fallthrough
		case '|', '&', ';', '(', ')', '>':
			op := string(c)
			if i+1 < len(line) && (line[i+1] == c || (c == '>' && line[i+1] == '&')) {
				op += string(line[i+1])
				i++
			}
			if (c == '>' || c == '<') && inW && isDigits(cur.String()) {
				op = cur.String() + op // 2> and the like
				cur.Reset()
				inW = false
			}
			flush()
			out = append(out, word{text: op, op: true})
		default:
			inW = true
			cur.WriteByte(c)
		}
	}
	flush()
	return out, false
}

var bareWordPlaceholder = regexp.MustCompile(`^<[A-Za-z0-9]+>`)

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// scanShell finds the invocations in one logical shell line, including
// those inside command substitutions.
func scanShell(line string, isName map[string]bool) []Invocation {
	words, _ := shellWords(line)
	var out []Invocation
	cmdPos := true
	for i := 0; i < len(words); i++ {
		w := words[i]
		for _, inner := range substitutions(w.text) {
			out = append(out, scanShell(inner, isName)...)
		}
		if w.op {
			isRedir := strings.ContainsAny(w.text, "<>")
			if isRedir {
				i++ // the redirection's target
			} else {
				cmdPos = true
			}
			continue
		}
		if !cmdPos {
			continue
		}
		if isAssignment(w.text) {
			continue
		}
		cmdPos = false
		if !isName[w.text] {
			continue
		}
		inv := Invocation{Cmd: w.text}
		for i+1 < len(words) && !words[i+1].op {
			i++
			inv.Args = append(inv.Args, words[i].text)
			for _, inner := range substitutions(words[i].text) {
				out = append(out, scanShell(inner, isName)...)
			}
		}
		out = append(out, inv)
	}
	return out
}

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range s[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// substitutions returns the texts inside the outermost $(...) of a word.
func substitutions(s string) []string {
	var out []string
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '$' || s[i+1] != '(' {
			continue
		}
		depth := 0
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				out = append(out, s[i+2:j])
				i = j
				break
			}
		}
	}
	return out
}

// Usage is a command's signature as its usage line states it.
type Usage struct {
	Cmd      string
	Required []string
	Optional []string
}

// ParseUsage reads a line of the form "usage: NAME ARG... [OPT]...".
func ParseUsage(line string) (Usage, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "usage: ")
	if !ok {
		return Usage{}, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return Usage{}, false
	}
	u := Usage{Cmd: f[0]}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			u.Optional = append(u.Optional, a[1:len(a)-1])
			continue
		}
		if len(u.Optional) > 0 {
			return Usage{}, false // a required argument after an optional one
		}
		u.Required = append(u.Required, a)
	}
	return u, true
}

// String gives the usage back in its own notation.
func (u Usage) String() string {
	parts := append([]string{u.Cmd}, u.Required...)
	for _, o := range u.Optional {
		parts = append(parts, "["+o+"]")
	}
	return strings.Join(parts, " ")
}

// Params lists the parameters in order, required first.
func (u Usage) Params() []string {
	return append(append([]string{}, u.Required...), u.Optional...)
}
