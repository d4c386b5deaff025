package skilltext

import (
	"fmt"
	"regexp"
	"strings"
)

// A small POSIX shell reader, enough for the checks of the text's blocks:
// which variables a block sets and reads, which commands it runs with
// which words and redirections, and what a word evaluates to once its
// variables and substitutions have values. It knows quoting (single,
// double, backslash), parameter expansions (${…} with their words),
// command and arithmetic substitutions, comments, case, for, and the
// text's <placeholders> as literal words. Here-documents are refused: the
// text has none, and a reader that half-understood one would miss what
// the checks look for.

// shPart is one piece of a word.
type shPart struct {
	kind byte   // 'l' literal text, 'v' a parameter expansion, 's' a command substitution
	text string // the literal text, the parameter's name, or the substitution's source
	sub  []shTok
	ops  []shPart // a ${name…} expansion's own word (for ${x#"$root"/}), flattened
}

// shWord is a shell word as written, with its pieces.
type shWord struct {
	raw   string
	parts []shPart
	line  int
}

type shTok struct {
	op   string // an operator, or "" for a word
	word shWord
	line int
}

// shCmd is one simple command.
type shCmd struct {
	words  []shWord // the command name and its arguments
	redirs []shRedir
	line   int
	depth  int                 // 0 at the top level; inside a substitution or a subshell more
	loops  map[string][]shWord // the for loops around it: variable → its words
}

type shRedir struct {
	op     string
	target shWord
	line   int
}

// shScript is what the reader found in a block.
type shScript struct {
	cmds     []shCmd
	redirs   []shRedir           // every redirection, a compound command's included
	assigned map[string]bool     // NAME=, for NAME, read NAME, ${NAME:=…}; "@" after set --
	values   map[string][]shWord // the NAME=value words, in order
	refs     []shRef
}

type shRef struct {
	name string
	line int
}

// name is the command's name, "" for none.
func (c shCmd) name() string {
	if len(c.words) == 0 {
		return ""
	}
	return c.words[0].raw
}

var (
	shNameRe        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)
	shAssignRe      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	shPlaceholderRe = regexp.MustCompile(`^<[A-Za-z](?:[A-Za-z0-9 ]*[A-Za-z0-9])?>`)
)

type shLexer struct {
	src  string
	i    int
	line int
}

func (l *shLexer) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", l.line, fmt.Sprintf(format, args...))
}

func (l *shLexer) peek(s string) bool { return strings.HasPrefix(l.src[l.i:], s) }

// tokens reads tokens up to the end, or, inside $(…), up to its closing
// parenthesis, which it consumes.
func (l *shLexer) tokens(inSubst bool) ([]shTok, error) {
	var out []shTok
	depth := 0 // open ( of subshells and case patterns' ) are not counted
	caseDepth := 0
	for {
		for l.i < len(l.src) && (l.src[l.i] == ' ' || l.src[l.i] == '\t' || l.peek("\\\n")) {
			if l.peek("\\\n") {
				l.i++
				l.line++
			}
			l.i++
		}
		if l.i >= len(l.src) {
			if inSubst {
				return nil, l.errf("an unclosed $(")
			}
			return out, nil
		}
		c := l.src[l.i]
		switch {
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
			continue
		case c == '\n':
			out = append(out, shTok{op: "\n", line: l.line})
			l.i++
			l.line++
			continue
		case c == ')' && inSubst && depth == 0 && caseDepth == 0:
			l.i++
			return out, nil
		}
		if op := l.operator(); op != "" {
			if op == "<<" || op == "<<-" {
				return nil, l.errf("a here-document: not supported by this reader")
			}
			switch op {
			case "(":
				depth++
			case ")":
				if depth > 0 {
					depth--
				}
			}
			out = append(out, shTok{op: op, line: l.line})
			continue
		}
		w, err := l.word("")
		if err != nil {
			return nil, err
		}
		// An IO number: digits right before < or >.
		if l.i < len(l.src) && (l.src[l.i] == '<' || l.src[l.i] == '>') && isDigits(w.raw) {
			op := l.operator()
			out = append(out, shTok{op: w.raw + op, line: w.line})
			continue
		}
		switch w.raw {
		case "case":
			caseDepth++
		case "esac":
			caseDepth--
		}
		out = append(out, shTok{word: w, line: w.line})
	}
}

var shOperators = []string{"&&", "||", ";;", ">>", ">&", ">|", "<<-", "<<", "<&", "<>", ";", "&", "|", "(", ")", "<", ">"}

func (l *shLexer) operator() string {
	if shPlaceholderRe.MatchString(l.src[l.i:]) {
		return "" // <N>: a word the reader replaces, not a redirection
	}
	for _, op := range shOperators {
		if l.peek(op) {
			l.i += len(op)
			return op
		}
	}
	return ""
}

// word reads one word; it ends at an unquoted blank or operator, or at an
// unquoted byte of stop.
func (l *shLexer) word(stop string) (shWord, error) {
	start, line := l.i, l.line
	var parts []shPart
	lit := func(s string) {
		if n := len(parts); n > 0 && parts[n-1].kind == 'l' {
			parts[n-1].text += s
			return
		}
		parts = append(parts, shPart{kind: 'l', text: s})
	}
	for l.i < len(l.src) {
		c := l.src[l.i]
		if stop != "" {
			if strings.IndexByte(stop, c) >= 0 {
				break
			}
		} else if strings.IndexByte(" \t\n;&|()<>", c) >= 0 {
			if c != '<' || !shPlaceholderRe.MatchString(l.src[l.i:]) {
				break
			}
		}
		switch {
		case c == '<' && shPlaceholderRe.MatchString(l.src[l.i:]):
			m := shPlaceholderRe.FindString(l.src[l.i:])
			lit(m)
			l.i += len(m)
		case c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], '\'')
			if end < 0 {
				return shWord{}, l.errf("an unclosed single quote")
			}
			s := l.src[l.i+1 : l.i+1+end]
			l.line += strings.Count(s, "\n")
			lit(s)
			l.i += end + 2
		case c == '"':
			l.i++
			for {
				if l.i >= len(l.src) {
					return shWord{}, l.errf("an unclosed double quote")
				}
				d := l.src[l.i]
				if d == '"' {
					l.i++
					break
				}
				switch {
				case d == '\\' && l.i+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.i+1]) >= 0:
					if l.src[l.i+1] != '\n' {
						lit(l.src[l.i+1 : l.i+2])
					} else {
						l.line++
					}
					l.i += 2
				case d == '$' || d == '`':
					p, err := l.expansion()
					if err != nil {
						return shWord{}, err
					}
					parts = append(parts, p...)
				default:
					if d == '\n' {
						l.line++
					}
					lit(l.src[l.i : l.i+1])
					l.i++
				}
			}
		case c == '\\':
			if l.i+1 < len(l.src) {
				if l.src[l.i+1] != '\n' {
					lit(l.src[l.i+1 : l.i+2])
				} else {
					l.line++
				}
				l.i += 2
			} else {
				lit("\\")
				l.i++
			}
		case c == '$' || c == '`':
			p, err := l.expansion()
			if err != nil {
				return shWord{}, err
			}
			parts = append(parts, p...)
		default:
			lit(l.src[l.i : l.i+1])
			l.i++
		}
	}
	return shWord{raw: l.src[start:l.i], parts: parts, line: line}, nil
}

// expansion reads what starts at $ or a backquote.
func (l *shLexer) expansion() ([]shPart, error) {
	rest := l.src[l.i:]
	switch {
	case strings.HasPrefix(rest, "$(("):
		end := strings.Index(rest, "))")
		if end < 0 {
			return nil, l.errf("an unclosed $((")
		}
		body := rest[3:end]
		l.i += end + 2
		// Arithmetic names its variables without $.
		var out []shPart
		for _, n := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`).FindAllString(body, -1) {
			out = append(out, shPart{kind: 'v', text: n})
		}
		return out, nil
	case strings.HasPrefix(rest, "$("):
		l.i += 2
		start := l.i
		toks, err := l.tokens(true)
		if err != nil {
			return nil, err
		}
		return []shPart{{kind: 's', text: l.src[start : l.i-1], sub: toks}}, nil
	case strings.HasPrefix(rest, "`"):
		end := strings.IndexByte(rest[1:], '`')
		if end < 0 {
			return nil, l.errf("an unclosed backquote")
		}
		body := rest[1 : 1+end]
		sub := &shLexer{src: body, line: l.line}
		toks, err := sub.tokens(false)
		if err != nil {
			return nil, err
		}
		l.i += end + 2
		return []shPart{{kind: 's', text: body, sub: toks}}, nil
	case strings.HasPrefix(rest, "${"):
		l.i += 2
		name := shNameRe.FindString(l.src[l.i:])
		if name == "" && l.i < len(l.src) && strings.IndexByte("0123456789@*#?$!-", l.src[l.i]) >= 0 {
			name = l.src[l.i : l.i+1]
		}
		if name == "" {
			return nil, l.errf("a ${ without a parameter name")
		}
		l.i += len(name)
		op := regexp.MustCompile(`^(:?[-=+?]|##?|%%?)`).FindString(l.src[l.i:])
		l.i += len(op)
		w, err := l.word("}")
		if err != nil {
			return nil, err
		}
		if l.i >= len(l.src) {
			return nil, l.errf("an unclosed ${")
		}
		l.i++ // }
		p := shPart{kind: 'v', text: name, ops: w.parts}
		if op == "=" || op == ":=" {
			p.kind = 'a' // assigns as it expands
		}
		return []shPart{p}, nil
	}
	if n := shNameRe.FindString(rest[1:]); n != "" {
		l.i += 1 + len(n)
		return []shPart{{kind: 'v', text: n}}, nil
	}
	if len(rest) > 1 && strings.IndexByte("0123456789@*#?$!-", rest[1]) >= 0 {
		l.i += 2
		return []shPart{{kind: 'v', text: rest[1:2]}}, nil
	}
	l.i++
	return []shPart{{kind: 'l', text: "$"}}, nil
}

// parseSh reads a block.
func parseSh(src string) (*shScript, error) {
	l := &shLexer{src: src, line: 1}
	toks, err := l.tokens(false)
	if err != nil {
		return nil, err
	}
	s := &shScript{assigned: map[string]bool{}, values: map[string][]shWord{}}
	s.walk(toks, 0, nil)
	return s, nil
}

var shReserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "{": true, "}": true, "!": true, "esac": true,
}

// walk turns tokens into commands, noting what is set and read.
func (s *shScript) walk(toks []shTok, depth int, loops map[string][]shWord) {
	type frame struct {
		loopVar string
		subsh   bool
	}
	var stack []frame
	cur := map[string][]shWord{}
	for k, v := range loops {
		cur[k] = v
	}
	var cmd *shCmd
	cmdPos := true
	inCasePatterns := false
	d := depth
	end := func() {
		if cmd != nil {
			s.cmds = append(s.cmds, *cmd)
			cmd = nil
		}
		cmdPos = true
	}
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		if tk.op != "" {
			switch {
			case strings.ContainsAny(tk.op, "<>"):
				if i+1 < len(toks) && toks[i+1].op == "" {
					i++
					s.words(toks[i].word, d, cur)
					r := shRedir{op: tk.op, target: toks[i].word, line: tk.line}
					s.redirs = append(s.redirs, r)
					if cmd != nil {
						cmd.redirs = append(cmd.redirs, r)
					}
				}
			case tk.op == ")" && inCasePatterns:
				inCasePatterns = false
				cmdPos = true
			case tk.op == "|" && inCasePatterns:
			case tk.op == "(" && cmdPos && cmd == nil:
				stack = append(stack, frame{subsh: true})
				d++
			case tk.op == ")":
				end()
				if n := len(stack); n > 0 && stack[n-1].subsh {
					stack = stack[:n-1]
					d--
				}
			case tk.op == ";;":
				end()
				inCasePatterns = true
			default:
				end()
			}
			continue
		}
		w := tk.word
		if inCasePatterns {
			if w.raw == "esac" {
				inCasePatterns = false
				end()
				continue
			}
			s.words(w, d, cur)
			continue
		}
		if cmdPos && cmd == nil {
			switch {
			case w.raw == "for" && i+1 < len(toks) && toks[i+1].op == "":
				name := toks[i+1].word.raw
				s.assigned[name] = true
				i++
				var list []shWord
				if i+1 < len(toks) && toks[i+1].word.raw == "in" {
					i++
					for i+1 < len(toks) && toks[i+1].op == "" {
						i++
						s.words(toks[i].word, d, cur)
						list = append(list, toks[i].word)
					}
				}
				cur[name] = list
				stack = append(stack, frame{loopVar: name})
				continue
			case w.raw == "case" && i+1 < len(toks):
				i++
				s.words(toks[i].word, d, cur)
				if i+1 < len(toks) && toks[i+1].word.raw == "in" {
					i++
				}
				inCasePatterns = true
				continue
			case w.raw == "done":
				if n := len(stack); n > 0 && stack[n-1].loopVar != "" {
					delete(cur, stack[n-1].loopVar)
					stack = stack[:n-1]
				}
				continue
			case shReserved[w.raw]:
				continue
			case shAssignRe.MatchString(w.raw):
				name := shNameRe.FindString(w.raw)
				s.assigned[name] = true
				s.values[name] = append(s.values[name], w)
				s.words(w, d, cur)
				continue
			}
			cmd = &shCmd{line: w.line, depth: d, loops: map[string][]shWord{}}
			for k, v := range cur {
				cmd.loops[k] = v
			}
			cmdPos = false
		}
		s.words(w, d, cur)
		cmd.words = append(cmd.words, w)
		switch cmd.name() {
		case "read":
			if len(cmd.words) > 1 && shNameRe.MatchString(w.raw) && shNameRe.FindString(w.raw) == w.raw {
				s.assigned[w.raw] = true
			}
		case "set":
			if w.raw == "--" {
				s.assigned["@"] = true
			}
		case "export", "readonly", "local":
			if shAssignRe.MatchString(w.raw) {
				s.assigned[shNameRe.FindString(w.raw)] = true
			}
		}
	}
	end()
}

// words notes the variables a word reads and sets, and walks its
// substitutions.
func (s *shScript) words(w shWord, depth int, loops map[string][]shWord) {
	var visit func(parts []shPart)
	visit = func(parts []shPart) {
		for _, p := range parts {
			switch p.kind {
			case 'v':
				s.refs = append(s.refs, shRef{name: p.text, line: w.line})
			case 'a':
				s.assigned[p.text] = true
			case 's':
				s.walk(p.sub, depth+1, loops)
			}
			visit(p.ops)
		}
	}
	visit(w.parts)
}

// shEval evaluates a word: literal text as is, a parameter through vars,
// a command substitution through subst. Field splitting and globbing do
// not happen: the words evaluated here are quoted or plain.
func shEval(w shWord, vars func(name string) (string, error), subst func(src string) (string, error)) (string, error) {
	var b strings.Builder
	for _, p := range w.parts {
		switch p.kind {
		case 'l':
			b.WriteString(p.text)
		case 'v', 'a':
			if len(p.ops) > 0 {
				return "", fmt.Errorf("cannot evaluate ${%s…} with an operator", p.text)
			}
			v, err := vars(p.text)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case 's':
			v, err := subst(p.text)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

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
